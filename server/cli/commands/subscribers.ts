import { plural } from "../../../contract/plural.ts";
import { toCsv, toTsv } from "../../lib/csv.ts";
import { audited, type Command, exitCodes, writePrivateFile } from "../command.ts";
import { AdminError } from "../sqlite-files.ts";

function unsubscribeUrl(siteUrl: string, token: string): string {
  return `${siteUrl}/unsubscribe?token=${encodeURIComponent(token)}`;
}

export const subscriberCommands: Command[] = [
  {
    name: "subscribers list",
    usage: "[--json]",
    summary: "every address with its state: pending or confirmed",
    help: `Lists every address, oldest first, as tab-separated columns: email, status
(pending until its owner follows the confirmation link, then confirmed),
created_at and confirmed_at. Only confirmed addresses receive editions and
appear in "subscribers export". Pending addresses are forgotten a week after
their last confirmation mail.

  --json   one JSON array instead, for scripts`,
    options: { json: { type: "boolean" } },
    async run({ values, stdout, engagement }) {
      const states = await (await engagement()).subscribers.listStates();
      if (values.json) {
        stdout.write(`${JSON.stringify(states, null, 2)}\n`);
      } else {
        stdout.write(
          toTsv([
            ["email", "status", "created_at", "confirmed_at"],
            ...states.map((s) => [s.email, s.status, s.createdAt, s.confirmedAt ?? ""]),
          ]),
        );
      }
      return exitCodes.ok;
    },
  },
  {
    name: "subscribers export",
    usage: "[--out FILE]",
    summary: "the subscribers as CSV, each with an unsubscribe link",
    help: `Prints every confirmed subscriber as CSV (RFC 4180): email, subscribed_at
(when they confirmed, ISO-8601 UTC) and unsubscribe_url, oldest first. Put each subscriber's unsubscribe_url into
the mailings you send them. The links start with SITE_URL.
An address that
starts with + or - is written with a leading ' (so that a spreadsheet does not
take it for a formula): remove it before mailing.

  --out FILE   write to FILE (readable by its owner only) instead of the terminal`,
    options: { out: { type: "string" } },
    async run({ values, config, stdout, stderr, engagement, store }) {
      const subscribers = await (await engagement()).subscribers.list();
      // The subscribe endpoint refuses addresses with "=", "(" or "|"
      // (tests/server/subscribers.test.ts), but one may start with "+" or "-":
      // toCsv quotes those with a leading ' like every other cell that could
      // start a formula.
      const csv = toCsv([
        ["email", "subscribed_at", "unsubscribe_url"],
        ...subscribers.map((s) => [
          s.email,
          s.subscribedAt,
          unsubscribeUrl(config.siteUrl, s.unsubscribeToken),
        ]),
      ]);
      if (!config.SITE_URL) {
        stderr.write(`Note: SITE_URL is not set, so the links point at ${config.siteUrl}.\n`);
      }
      if (typeof values.out === "string") {
        writePrivateFile(values.out, csv);
        stderr.write(`Wrote ${plural(subscribers.length, "subscriber")} to ${values.out}.\n`);
      } else {
        stdout.write(csv);
      }
      await audited(store, "subscribers export", `${subscribers.length} addresses`);
      return exitCodes.ok;
    },
  },
  {
    name: "subscribers remove",
    usage: "EMAIL",
    summary: "remove one address from the newsletter",
    help: `Removes the subscriber with this address, in any letter case. Their old
unsubscribe link keeps answering "unsubscribed". Exit code 3 when no
subscriber has the address.`,
    arguments: ["EMAIL"],
    async run({ positionals, stdout, engagement, store }) {
      const [email = ""] = positionals;
      if (!(await (await engagement()).subscribers.remove(email))) {
        throw new AdminError(`No subscriber has the address ${email}.`, exitCodes.notFound);
      }
      // The audit trail never holds an address: the removal would leave a copy.
      await audited(store, "subscriber remove", "1 address");
      stdout.write(`Removed ${email}.\n`);
      return exitCodes.ok;
    },
  },
];
