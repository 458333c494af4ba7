import { group } from "../command.ts";

const handlers = () => import("../handlers/enquiries.ts");

/**
 * `enquiries list|show|close|delete|export` (docs/product.md, "Enquiries"):
 * the console's Enquiries screen for scripts and for when the console cannot
 * be reached. Tab-separated and CSV output are safe to open in a spreadsheet
 * (server/lib/csv.ts); every change is audited.
 */
export const enquiryCommands = group(handlers, [
  {
    name: "enquiries list",
    usage: "[--status new|answered|closed] [--service ID] [--search TEXT] [--json]",
    summary: "enquiries from the services page, newest first",
    help: `Lists enquiries, newest first, as tab-separated columns: id, created_at,
status, kept, service, name, email, organisation and the message's first
line. A cell that a spreadsheet would run as a formula starts with a '.

  --status S      only new, answered or closed ones
  --service ID    only those about one service (its id on /services, or "other")
  --search TEXT   only those whose name, email, organisation or message contain TEXT
  --json          one JSON array of whole enquiries instead, answers included`,
  },
  {
    name: "enquiries show",
    usage: "ID [--json]",
    summary: "one enquiry in full, with the answers sent",
    help: `Prints one enquiry: who sent it, the service, organisation and timeline,
its status, the whole message and every answer sent from the console. Exit
code 3 when there is no such enquiry.

  --json   the enquiry as JSON instead`,
  },
  {
    name: "enquiries close",
    usage: "ID [--json]",
    summary: "mark an enquiry closed",
    help: `Marks the enquiry closed (the console can reopen it). Exit code 3 when
there is no such enquiry.

  --json   print {"id":ID,"status":"closed"} instead`,
  },
  {
    name: "enquiries delete",
    usage: "ID [--json]",
    summary: "delete an enquiry with its answers and mails",
    help: `Deletes the enquiry, the answers sent to it and every mail about it that
is queued or recorded in the outbox. Exit code 3 when there is no such
enquiry.

  --json   print {"id":ID,"deleted":true} instead`,
  },
  {
    name: "enquiries export",
    usage: "[--out FILE]",
    summary: "every enquiry as CSV, safe to open in a spreadsheet",
    help: `Prints every enquiry as CSV (RFC 4180), newest first: id, created_at,
status, kept, service, name, email, organisation, timeline, message and the
number of answers. A cell that a spreadsheet would run as a formula starts
with a '.

  --out FILE   write to FILE (readable by its owner only) instead of the terminal`,
  },
]);
