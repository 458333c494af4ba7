import type { Kysely, Transaction } from "kysely";
import type { Database } from "../db/schema.ts";
import type { LiveEvent } from "../events/bus.ts";
import { statementParts } from "../lib/parts.ts";
import { nowIso } from "../lib/time.ts";
import { forget } from "../outbox/forget.ts";
import { forgetWatches, watchMailKinds } from "./forget-watches.ts";
import type { ReplyMailPayload } from "./reply-watches.ts";
import { type CommentEvents, columns, emptiedPlace, type Removal, type Row } from "./rows.ts";

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
  { removed: record }: Pick<CommentEvents, "removed">,
  match: RemovalMatch,
  forgetExamples: ForgetExamples,
  byWriter: boolean,
): Promise<{ removed: number; events: LiveEvent[] }> {
  let query = trx
    .selectFrom("science_comments")
    .select(["id", "post_id", "parent_id", "status"])
    .where("deleted_at", "is", null)
    .orderBy("id");
  if (match.id !== undefined) query = query.where("id", "=", match.id);
  if (match.visitorId !== undefined) query = query.where("visitor_id", "=", match.visitorId);
  const rows = await query.execute();
  const going = new Set(rows.map((row) => row.id));
  // The threads' first comments among them with a reply that stays keep their place.
  const kept = new Set<number>();
  for (const part of statementParts(
    rows.filter((row) => row.parent_id === null).map((row) => row.id),
  )) {
    const replies = await trx
      .selectFrom("science_comments")
      .select(["id", "parent_id"])
      .where("parent_id", "in", part)
      .execute();
    for (const reply of replies) {
      if (reply.parent_id !== null && !going.has(reply.id)) kept.add(reply.parent_id);
    }
  }
  const gone = rows.filter((row) => !kept.has(row.id));
  // Replies before the comments they answer: nothing may point at a missing comment.
  const replyFirst = [...gone].sort(
    (a, b) => Number(a.parent_id === null) - Number(b.parent_id === null),
  );
  for (const part of statementParts([...going])) {
    await forgetExamples(trx, part);
    // An address left for reply mails goes with the comment it was left on,
    // and so does its writer's Fediverse account.
    await forgetWatches(trx, { commentIds: part });
    await forgetRemoteWriters(trx, part);
    await forgetNotices(trx, part);
  }
  const places = new Map<number, Row>();
  for (const part of statementParts([...kept])) {
    const emptied = await trx
      .updateTable("science_comments")
      .set({
        ...emptiedPlace,
        deleted_at: nowIso(),
        // A place holds nothing to approve: held again by an edit, its
        // published replies show under it like any other's.
        status: "published",
      })
      .where("id", "in", part)
      .returning(columns)
      .execute();
    for (const place of emptied) places.set(place.id, place);
  }
  for (const part of statementParts(replyFirst.map((row) => row.id))) {
    await trx.deleteFrom("science_comments").where("id", "in", part).execute();
  }
  const changes = rows.map((row): Removal => {
    const place = places.get(row.id);
    return place ? { place } : { row, unseen: byWriter && row.status !== "published" };
  });

  // A deleted place with no reply left under it goes too.
  const parents = [
    ...new Set(
      gone.flatMap((row) =>
        row.parent_id !== null && !going.has(row.parent_id) ? [row.parent_id] : [],
      ),
    ),
  ];
  for (const part of statementParts(parents)) {
    const emptiedPlaces = await trx
      .deleteFrom("science_comments")
      .where("id", "in", part)
      .where("deleted_at", "is not", null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("science_comments as reply")
              .select("reply.id")
              .whereRef("reply.parent_id", "=", "science_comments.id"),
          ),
        ),
      )
      .returning(["id", "post_id"])
      .execute();
    const byId = new Map(emptiedPlaces.map((place) => [place.id, place]));
    for (const id of part) {
      const place = byId.get(id);
      if (place) changes.push({ row: place, unseen: false });
    }
  }
  return { removed: changes.length, events: await record(trx, changes) };
}
