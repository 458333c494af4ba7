import { plural } from "../../../contract/plural.ts";
import { subscriberActions } from "../../newsletter/owner-actions.ts";
import { type CommandContext, ownerAction, writeOut } from "../command.ts";
import { listed } from "../table.ts";

export const subscribersList = listed(
  async ({ engagement }) => (await engagement()).subscribers.listStates(),
  ["email", "status", "created_at", "confirmed_at"],
  (s) => [s.email, s.status, s.createdAt, s.confirmedAt ?? ""],
);

export async function subscribersExport(context: CommandContext) {
  const { config, engagement, actor } = context;
  const actions = subscriberActions((await engagement()).subscribers, config.siteUrl);
  if (!config.SITE_URL) {
    context.stderr.write(`Note: SITE_URL is not set, so the links point at ${config.siteUrl}.\n`);
  }
  await writeOut(context, async () => {
    const { csv, count } = await actions.exportCsv(actor);
    return { text: csv, what: plural(count, "subscriber") };
  });
}

export const subscribersRemove = ownerAction(
  ({ positionals }) => positionals[0] ?? "",
  async ({ config, engagement, actor }, email) =>
    subscriberActions((await engagement()).subscribers, config.siteUrl).remove(actor, email),
  (email) => `Removed ${email}.\n`,
  (email) => `No subscriber has the address ${email}.`,
);
