import type { Kysely, Transaction } from "kysely";
import type { Database } from "../db/schema.ts";
import type { LiveEvent } from "../events/bus.ts";
import { nowIso } from "../lib/time.ts";
import { forget } from "../outbox/queue.ts";
import { forgetWatches, watchMailKinds } from "./forget-watches.ts";
import type { ReplyMailPayload } from "./reply-watches.ts";
import { type CommentEvents, columns, emptiedPlace } from "./rows.ts";

/**
 * Takes comments' words out of what the spam filter learnt from them
 * (moderation's `forgetExamples`, server/moderation/spam/store.ts), handed in
 * from above: a deleted or edited comment leaves no copy of its old text behind.
 */
export type ForgetExamples = (
  trx: Transaction<Database>,
  commentIds: readonly number[],
) => Promise<void>;

/**
 * Forgets who wrote these comments on the Fediverse (their handle, picture
 * and the note's address, server/fediverse/): a deleted comment, or one that
 * keeps only its place, leaves nothing of its writer.
 */
export async function forgetRemoteWriters(trx: Kysely<Database>, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await trx.deleteFrom("fediverse_replies").where("comment_id", "in", ids).execute();
}

/**
 * Forgets the mails about these comments that went out: the owner's notices,
 * and the reply mails that quoted them to the readers following a thread.
 * Each row is the record of its file in DATA_DIR/outbox/ without SMTP_URL,
 * which quotes the comment (server/outbox/mail-files.ts). One still queued
 * stays, to be cancelled (or counted in its digest as deleted) when it is due.
 */
export async function forgetNotices(trx: Kysely<Database>, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  const statuses = ["sent", "failed", "cancelled"] as const;
  await forget(trx, {
    kinds: ["comment_notice", "comment_digest"],
    payloadsLike: ids.map((id) => `{"commentId":${id},%`),
    statuses,
  });
  await forget(trx, {
    kinds: watchMailKinds,
    payloads: ids.map((replyId) => JSON.stringify({ replyId } satisfies ReplyMailPayload)),
    statuses,
  });
}

/** Which comments to remove: by id, by writer, or both. */
export type RemovalMatch = { id: number; visitorId?: string } | { id?: number; visitorId: string };

/**
 * Removes the matching comments in `trx`, recording their live events, and
 * returns how many it removed and the events (docs/product.md, "Replies"):
 * - a comment with replies left keeps its place as "Comment deleted": its name,
 *   text, HTML, writer and address are wiped, and open pages get it as such;
 * - any other comment is deleted;
 * - a deleted place whose last reply goes is deleted with it.
 *
 * `byWriter`: their writer removes them, whose page has dropped them already,
 * so a held one's deletion (it was never shown) reaches the console and no
 * reader's stream. The owner's deletion of a held comment reaches its writer's
 * open page through the post's stream, the only one that page has
 * (docs/decisions/010-moderation-and-spam.md).
 */
export async function removeComments(
  trx: Transaction<Database>,
  { shown, deleted, unseenDeleted }: Pick<CommentEvents, "shown" | "deleted" | "unseenDeleted">,
  match: RemovalMatch,
  forgetExamples: ForgetExamples,
  byWriter: boolean,
): Promise<{ removed: number; events: LiveEvent[] }> {
  let query = trx
    .selectFrom("science_comments")
    .select(["id", "post_id", "parent_id", "status"])
    .where("deleted_at", "is", null);
  if (match.id !== undefined) query = query.where("id", "=", match.id);
  if (match.visitorId !== undefined) query = query.where("visitor_id", "=", match.visitorId);
  const rows = await query.execute();
  const ids = rows.map((row) => row.id);
  const going = new Set(ids);
  // In parts: a writer of years may have more comments than a statement takes parameters.
  for (let start = 0; start < ids.length; start += 500) {
    const part = ids.slice(start, start + 500);
    await forgetExamples(trx, part);
    // An address left for reply mails goes with the comment it was left on,
    // and so does its writer's Fediverse account.
    await forgetWatches(trx, { commentIds: part });
    await forgetRemoteWriters(trx, part);
    await forgetNotices(trx, part);
  }
  const recorded: LiveEvent[] = [];
  let removed = 0;

  const parents = new Set<number>();
  for (const row of rows) {
    const replies =
      row.parent_id === null
        ? await trx
            .selectFrom("science_comments")
            .select("id")
            .where("parent_id", "=", row.id)
            .execute()
        : [];
    if (replies.some((reply) => !going.has(reply.id))) {
      const place = await trx
        .updateTable("science_comments")
        .set({
          ...emptiedPlace,
          deleted_at: nowIso(),
          // A place holds nothing to approve: held again by an edit, its
          // published replies show under it like any other's.
          status: "published",
        })
        .where("id", "=", row.id)
        .returning(columns)
        .executeTakeFirstOrThrow();
      recorded.push(await shown(trx, place, "updated"));
      removed += 1;
      continue;
    }
    // Its replies (all going too, their writers forgotten above) first:
    // nothing may point at a missing comment.
    await trx.deleteFrom("science_comments").where("parent_id", "=", row.id).execute();
    await trx.deleteFrom("science_comments").where("id", "=", row.id).execute();
    if (byWriter && row.status !== "published") recorded.push(...(await unseenDeleted(trx, row)));
    else recorded.push(await deleted(trx, row));
    removed += 1;
    if (row.parent_id !== null && !going.has(row.parent_id)) parents.add(row.parent_id);
  }

  // A deleted place with no reply left under it goes too.
  for (const parentId of parents) {
    const place = await trx
      .selectFrom("science_comments")
      .select(["id", "post_id"])
      .where("id", "=", parentId)
      .where("deleted_at", "is not", null)
      .executeTakeFirst();
    if (!place) continue;
    const left = await trx
      .selectFrom("science_comments")
      .select("id")
      .where("parent_id", "=", parentId)
      .limit(1)
      .executeTakeFirst();
    if (left) continue;
    await trx.deleteFrom("science_comments").where("id", "=", parentId).execute();
    recorded.push(await deleted(trx, place));
    removed += 1;
  }
  return { removed, events: recorded };
}
