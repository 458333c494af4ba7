import type { ExpressionBuilder, SelectQueryBuilder, Transaction } from "kysely";
import type { Database } from "../db/schema.ts";

/*
 * Replies, one level deep (docs/product.md, "Replies"): a reply hangs under
 * the comment that starts its thread; answering a reply joins that thread.
 */

/** Why a reply cannot be stored. */
export type ReplyRefusal = "parent_missing" | "parent_elsewhere";

/** A comment's place: its post, and the comment it answers (a row as stored or as a file holds it). */
type Place = { post_id: unknown; parent_id: unknown };

/**
 * What is wrong with the place of a reply (`parent_id` set) that answers `parent`, named
 * `parentName`: a reply answers a comment that starts a thread on the same post. Null
 * when nothing is. The one check of a reply that an import or a restore brings.
 */
export function misplacedReply(
  reply: Place,
  parent: Place | undefined,
  parentName: string,
): string | null {
  if (!parent) return `answers ${parentName}, which it does not hold`;
  if (parent.post_id !== reply.post_id) return `answers ${parentName}, a comment on another post`;
  if (parent.parent_id !== null)
    return `answers ${parentName}, itself a reply: replies are one level deep`;
  return null;
}

/**
 * The thread a reply to `parentId` joins: the comment itself when it starts a
 * thread, else the one its thread starts with. Only a published comment that
 * is still there, on the same post, can be answered; a held one is as good as
 * missing to everyone but its writer.
 */
export async function threadOf(
  trx: Transaction<Database>,
  postId: string,
  parentId: number,
): Promise<number | ReplyRefusal> {
  const parent = await trx
    .selectFrom("science_comments")
    .select(["id", "post_id", "parent_id"])
    .where("id", "=", parentId)
    .where("status", "=", "published")
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  if (!parent) return "parent_missing";
  if (parent.post_id !== postId) return "parent_elsewhere";
  return parent.parent_id ?? parent.id;
}

/**
 * Narrows a select of comments to the replies under these threads that
 * `visitorId` may see: the published ones and their own held ones (none held
 * without a visitor), oldest first.
 */
export function visibleReplies<O>(
  query: SelectQueryBuilder<Database, "science_comments", O>,
  threadIds: number[],
  visitorId: string | null,
): SelectQueryBuilder<Database, "science_comments", O> {
  return query
    .where("parent_id", "in", threadIds.length > 0 ? threadIds : [0])
    .where(seenBy(visitorId))
    .orderBy("created_at")
    .orderBy("id");
}

/**
 * The comments `visitorId` may see: the published ones and their own held
 * ones, or only the published ones without a visitor
 * (docs/decisions/010-moderation-and-spam.md).
 */
export const seenBy =
  (visitorId: string | null) => (eb: ExpressionBuilder<Database, "science_comments">) =>
    visitorId
      ? eb.or([eb("status", "=", "published"), eb("visitor_id", "=", visitorId)])
      : eb("status", "=", "published");

/**
 * The comments that start a thread `visitorId` may see: those of `seenBy`,
 * and one held again (or kept as spam) with a published reply, whose place
 * keeps the reply in sight (docs/product.md, "Replies").
 */
export const threadStartsSeenBy =
  (visitorId: string | null) => (eb: ExpressionBuilder<Database, "science_comments">) =>
    eb.or([
      seenBy(visitorId)(eb),
      eb.exists(
        eb
          .selectFrom("science_comments as reply")
          .select("reply.id")
          .whereRef("reply.parent_id", "=", "science_comments.id")
          .where("reply.status", "=", "published"),
      ),
    ]);
