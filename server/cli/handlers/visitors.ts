import { plural } from "../../../contract/plural.ts";
import { toTsv } from "../../lib/csv.ts";
import { type CommandContext, exitCodes, parseId, usageError } from "../command.ts";
import { AdminError } from "../sqlite-files.ts";

/** `visitor ban` (commands/visitors.ts). */
export async function visitorBan({
  values,
  stdout,
  moderationActions,
  actor,
}: CommandContext): Promise<number> {
  if (typeof values.comment !== "string") throw usageError("--comment ID is required.");
  const id = parseId(values.comment, "--comment");
  let days: number | undefined;
  if (typeof values.days === "string") {
    days = Number(values.days);
    if (!/^\d+$/.test(values.days) || days < 1 || days > 36_500) {
      throw usageError(
        `--days must be a whole number of days from 1 to 36500, not "${values.days}".`,
      );
    }
  }
  const result = await (await moderationActions()).ban(actor, id, days);
  if (result === "not_found") {
    throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
  }
  const { ban } = result;
  stdout.write(
    `Ban ${ban.id}: the writer of comment ${id} (${ban.coversAddress ? "browser and address" : "browser"}) is refused ${ban.expiresAt ? `until ${ban.expiresAt}` : 'until "visitor unban"'}.\n`,
  );
  return exitCodes.ok;
}

/** `visitor unban` (commands/visitors.ts). */
export async function visitorUnban({
  values,
  stdout,
  moderationActions,
  actor,
}: CommandContext): Promise<number> {
  const byComment = typeof values.comment === "string";
  const byBan = typeof values.ban === "string";
  if (byComment === byBan) throw usageError("Give either --comment ID or --ban ID.");
  const lifted = await (await moderationActions()).unban(
    actor,
    byBan
      ? { banId: parseId(values.ban as string, "--ban") }
      : { commentId: parseId(values.comment as string, "--comment") },
  );
  if (lifted === 0) throw new AdminError("No ban in force matched.", exitCodes.notFound);
  stdout.write(`Lifted ${plural(lifted, "ban")}.\n`);
  return exitCodes.ok;
}

/** `visitor bans` (commands/visitors.ts). */
export async function visitorBans({ values, stdout, moderation }: CommandContext): Promise<number> {
  const bans = await (await moderation()).listBans();
  if (values.json) {
    stdout.write(`${JSON.stringify(bans, null, 2)}\n`);
  } else {
    stdout.write(
      toTsv([
        ["id", "comment", "created_at", "expires_at", "covers"],
        ...bans.map((ban) => [
          String(ban.id),
          ban.commentId === null ? "" : String(ban.commentId),
          ban.createdAt,
          ban.expiresAt ?? "never",
          ban.coversAddress ? "browser+address" : "browser",
        ]),
      ]),
    );
  }
  return exitCodes.ok;
}

/** `visitor purge` (commands/visitors.ts). */
export async function visitorPurge({
  values,
  stdout,
  moderationActions,
  actor,
}: CommandContext): Promise<number> {
  if (typeof values.comment !== "string") throw usageError("--comment ID is required.");
  const id = parseId(values.comment, "--comment");
  const removed = await (await moderationActions()).purge(actor, id);
  if (removed === "not_found") {
    throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
  }
  const { comments, reactions } = removed;
  stdout.write(
    `Removed ${plural(comments, "comment")} and ${plural(reactions, "reaction")} of the visitor who wrote comment ${id}.\n`,
  );
  return exitCodes.ok;
}
