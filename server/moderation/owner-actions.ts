import type { BanScope } from "../../contract/console.ts";
import { plural } from "../../contract/plural.ts";
import type { Alongside } from "../comments/repository.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import type { Engagement } from "../engagement/index.ts";
import type { Moderation } from "./service.ts";

/**
 * The owner's actions on comments and their writers, the same from the
 * console and from the command line (docs/architecture.md, "Owner actions"):
 * each acts (server/moderation/service.ts says how) and, when it changed
 * something, writes one line of the audit trail under its actor.
 */
export function moderationActions(
  moderation: Moderation,
  { comments, reactions }: Pick<Engagement, "comments" | "reactions">,
) {
  return {
    /** Publishes a held comment; its audit line is written in the same transaction. */
    approve: (by: OwnerActor, id: number) =>
      moderation.approveComment(id, (trx) => by.audit("comment approve", String(id), trx)),

    async reject(by: OwnerActor, id: number) {
      const outcome = await moderation.rejectComment(id);
      if (outcome === "rejected") await by.audit("comment reject", String(id));
      return outcome;
    },

    async spam(by: OwnerActor, id: number) {
      const outcome = await moderation.markSpam(id);
      if (outcome === "marked") await by.audit("comment spam", String(id));
      return outcome;
    },

    /** Deletes any comment, whoever wrote it; its audit line is written in the same transaction. */
    async remove(by: OwnerActor, id: number): Promise<"deleted" | "not_found"> {
      const audit: Alongside = (trx) => by.audit("comment delete", String(id), trx);
      return (await comments.removeAsOwner(id, audit)) ? "deleted" : "not_found";
    },

    /** Bans the writer of comment `id`: their browser, or with it everyone at its address. */
    async ban(by: OwnerActor, id: number, how: { days?: number | undefined; scope: BanScope }) {
      const result = await moderation.banVisitorOfComment(id, how);
      if (typeof result === "string") return result;
      const days = how.days ? `, ${plural(how.days, "day")}` : "";
      await by.audit("visitor ban", `comment ${id}, ${how.scope}${days}`);
      return result;
    },

    /** How many bans were lifted: one by its id, or all on the writer of a comment. */
    async unban(by: OwnerActor, target: { banId: number } | { commentId: number }) {
      const lifted = await moderation.unban(target);
      if (lifted === 0) return "not_found";
      const object = "banId" in target ? `ban ${target.banId}` : `comment ${target.commentId}`;
      await by.audit("visitor unban", object);
      return lifted;
    },

    /** Removes every comment and reaction of the visitor who wrote comment `id`. */
    async purge(by: OwnerActor, id: number) {
      const visitorId = await comments.authorOf(id);
      if (visitorId === null) return "not_found" as const;
      const removed = {
        comments: await comments.removeAllBy(visitorId),
        reactions: await reactions.removeAllBy(visitorId),
      };
      await by.audit("visitor purge", `comment ${id}`);
      return removed;
    },
  };
}

export type ModerationActions = ReturnType<typeof moderationActions>;

/** Why a ban of a comment's address was refused: the comment names none. */
export const noAddress = (id: number) =>
  `Comment ${id} was written before bans could name an address, so only its browser can be banned.`;
