import { group } from "../command.ts";

const handlers = () => import("../handlers/readers.ts");

/** `readers` (docs/product.md, "Readers"): the console's "Readers" screen on the command line. */
export const readerCommands = group(handlers, [
  {
    name: "readers",
    usage: "[--since 7d] [--json]",
    summary: "visitors, views, sources and what brings clients, counted without cookies",
    help: `Prints the readership of the last days: visitors and views per day, who is
reading now (the last 30 minutes), the top pages with their engaged reads, the
sources, campaigns, countries and devices, and the conversions (subscriptions,
enquiries, bookings, comments, questions) by the entry page and the source of
the visit that led to them. What the server counted in its last few seconds
is written to the database a moment later.

  --since S   the period, ending today: 1d is today, 7d (the default)
              the last 7 days, 4w the last 28, or a first day, 2026-11-01;
              days run from midnight in your zone (the Bookings hours')
  --json      every row as JSON, for scripts`,
  },
]);
