import { plural } from "../../../contract/plural.ts";
import { toCsv, toTsv } from "../../lib/csv.ts";
import { type CommandContext, exitCodes, writePrivateFile } from "../command.ts";
import { AdminError } from "../sqlite-files.ts";

function unsubscribeUrl(siteUrl: string, token: string): string {
  return `${siteUrl}/unsubscribe?token=${encodeURIComponent(token)}`;
}

/** `subscribers list` (commands/subscribers.ts). */
export async function subscribersList({
  values,
  stdout,
  engagement,
}: CommandContext): Promise<number> {
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
}

/** `subscribers export` (commands/subscribers.ts). */
export async function subscribersExport({
  values,
  config,
  stdout,
  stderr,
  engagement,
  actor,
}: CommandContext): Promise<number> {
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
  await actor.audit("subscribers export", `${subscribers.length} addresses`);
  return exitCodes.ok;
}

/** `subscribers remove` (commands/subscribers.ts). */
export async function subscribersRemove({
  positionals,
  stdout,
  engagement,
  actor,
}: CommandContext): Promise<number> {
  const [email = ""] = positionals;
  if (!(await (await engagement()).subscribers.remove(email))) {
    throw new AdminError(`No subscriber has the address ${email}.`, exitCodes.notFound);
  }
  // The audit trail never holds an address: the removal would leave a copy.
  await actor.audit("subscriber remove", "1 address");
  stdout.write(`Removed ${email}.\n`);
  return exitCodes.ok;
}
