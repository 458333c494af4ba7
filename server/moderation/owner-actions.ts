import type { BanScope } from "../../contract/console.ts";
import { plural } from "../../contract/plural.ts";
import type { Alongside } from "../comments/repository.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import type { Engagement } from "../engagement/index.ts";
import { ownerVisitorId } from "../engagement/visitor.ts";
import type { Moderation } from "./service.ts";

/**
 * The owner's actions on comments and their writers, the same from the
 * console and from the command line (docs/architecture.md, "Owner actions"):
 * each acts (server/moderation/service.ts says how) and, when it changed
 * something, writes one line of the audit trail under its actor, in the
 * transaction of the change, whose live events go out as it commits.
 */
export function moderationActions(
  moderation: Moderation,
  { comments, reactions }: Pick<Engagement, "comments" | "reactions">,
) {
  /** The owner's own comment: nobody to ban, and no junk to teach the filter. */
  const owners = async (id: number) => (await comments.writerOf(id))?.visitorId === ownerVisitorId;
  return {
    approve: (by: OwnerActor, id: number) =>
      moderation.approveComment(id, line(by, "comment approve", String(id))),

    reject: (by: OwnerActor, id: number) =>
      moderation.rejectComment(id, line(by, "comment reject", String(id))),

    spam: async (by: OwnerActor, id: number) =>
      (await owners(id))
        ? ("owners_comment" as const)
        : moderation.markSpam(id, line(by, "comment spam", String(id))),

    /** Deletes any comment, whoever wrote it. */
    remove: async (by: OwnerActor, id: number): Promise<"deleted" | "not_found"> =>
      (await comments.removeAsOwner(id, line(by, "comment delete", String(id))))
        ? "deleted"
        : "not_found",

    /** Bans the writer of comment `id`: their browser, or with it everyone at its address. */
    async ban(by: OwnerActor, id: number, how: { days?: number | undefined; scope: BanScope }) {
      if (await owners(id)) return "owners_comment" as const;
      const days = how.days ? `, ${plural(how.days, "day")}` : "";
      const object = `comment ${id}, ${how.scope}${days}`;
      return moderation.banVisitorOfComment(id, how, line(by, "visitor ban", object));
    },

    /** How many bans were lifted: one by its id, or all on the writer of a comment. */
    async unban(by: OwnerActor, target: { banId: number } | { commentId: number }) {
      const object = "banId" in target ? `ban ${target.banId}` : `comment ${target.commentId}`;
      const lifted = await moderation.unban(target, line(by, "visitor unban", object));
      return lifted === 0 ? "not_found" : lifted;
    },

    /**
     * Removes every comment and reaction of the visitor who wrote comment
     * `id`, with the line, in one transaction: all of it, or nothing. The
     * live events go out once it commits.
     */
    async purge(by: OwnerActor, id: number) {
      const visitorId = await comments.authorOf(id);
      if (visitorId === null) return "not_found" as const;
      return by.act(
        async (trx) => ({
          comments: await comments.removeAllBy(visitorId, trx),
          reactions: await reactions.removeAllBy(visitorId, trx),
        }),
        () => ["visitor purge", `comment ${id}`],
      );
    },
  };
}

/** The line an action writes in the transaction of its change (an `Alongside`). */
const line =
  (by: OwnerActor, action: string, object: string): Alongside =>
  (trx) =>
    by.audit(action, object, trx);

export type ModerationActions = ReturnType<typeof moderationActions>;

/** Why a ban of a comment's address was refused: the comment names none. */
export const noAddress = (id: number) =>
  `Comment ${id} was written before bans could name an address, so only its browser can be banned.`;

/** Why Mark as spam or Ban was refused: the comment is the owner's own. */
export const ownersComment = (id: number) =>
  `Comment ${id} is your own: it cannot be marked as spam, nor its writer banned. Delete it if it should go.`;
