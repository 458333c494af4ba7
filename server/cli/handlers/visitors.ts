import { type BanScope, banScopeSchema } from "../../../contract/console.ts";
import { limits } from "../../../contract/limits.ts";
import { plural } from "../../../contract/plural.ts";
import { noAddress, ownersComment } from "../../moderation/owner-actions.ts";
import {
  AdminError,
  daysOption,
  exitCodes,
  ownerAction,
  parseId,
  usageError,
  type Values,
} from "../command.ts";
import { listed } from "../table.ts";

/** --comment ID: a visitor is named by a comment they wrote. */
function commentOption(values: Values): number {
  if (typeof values.comment !== "string") throw usageError("--comment ID is required.");
  return parseId(values.comment, "--comment");
}

/** --scope browser|address: whom a ban names (the browser unless told). */
function scopeOption(values: Values): BanScope {
  if (values.scope === undefined) return "browser";
  const scope = banScopeSchema.safeParse(values.scope);
  if (!scope.success) {
    throw usageError(`--scope must be "browser" or "address", not "${String(values.scope)}".`);
  }
  return scope.data;
}

const noComment = ({ id }: { id: number }) => `There is no comment ${id}.`;

export const visitorBan = ownerAction(
  ({ values }) => ({
    id: commentOption(values),
    days: daysOption(values, limits.banDaysMax),
    scope: scopeOption(values),
  }),
  async ({ moderationActions, actor }, { id, days, scope }) => {
    const result = await (await moderationActions()).ban(actor, id, { days, scope });
    if (result === "no_address") throw new AdminError(noAddress(id), exitCodes.failed);
    if (result === "owners_comment") throw new AdminError(ownersComment(id), exitCodes.failed);
    return result;
  },
  ({ id }, { ban }) =>
    `Ban ${ban.id}: the writer of comment ${id} (${ban.coversAddress ? "browser and address" : "browser"}) is refused ${ban.expiresAt ? `until ${ban.expiresAt}` : 'until "visitor unban"'}.\n`,
  noComment,
);

export const visitorUnban = ownerAction(
  ({ values }) => {
    const byBan = typeof values.ban === "string";
    if (byBan === (typeof values.comment === "string")) {
      throw usageError("Give either --comment ID or --ban ID.");
    }
    return byBan
      ? { banId: parseId(values.ban as string, "--ban") }
      : { commentId: parseId(values.comment as string, "--comment") };
  },
  async ({ moderationActions, actor }, target) => (await moderationActions()).unban(actor, target),
  (_target, lifted) => `Lifted ${plural(lifted, "ban")}.\n`,
  () => "No ban in force matched.",
);

export const visitorBans = listed(
  async ({ moderation }) => (await moderation()).listBans(),
  ["id", "comment", "created_at", "expires_at", "covers"],
  (ban) => [
    ban.id,
    ban.commentId === null ? "" : ban.commentId,
    ban.createdAt,
    ban.expiresAt ?? "never",
    ban.coversAddress ? "browser+address" : "browser",
  ],
);

export const visitorPurge = ownerAction(
  ({ values }) => ({ id: commentOption(values) }),
  async ({ moderationActions, actor }, { id }) => (await moderationActions()).purge(actor, id),
  ({ id }, { comments, reactions }) =>
    `Removed ${plural(comments, "comment")} and ${plural(reactions, "reaction")} of the visitor who wrote comment ${id}.\n`,
  noComment,
);
