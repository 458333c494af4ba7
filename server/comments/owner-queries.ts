import type { CommentStatus } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { forgetNotices, forgetRemoteWriters } from "./removal.ts";
import { type CommentShapes, columns, type OwnerComment, remoteWritersOf } from "./rows.ts";

/**
 * What the owner's console, command line and the spam defences ask of the
 * comments: lists by post, time and status, who wrote one, and housekeeping.
 * Read-only but for the pruning of old spam.
 */
export function createCommentOwnerQueries(
  { db }: Store,
  { toOwnerComment }: Pick<CommentShapes, "toOwnerComment">,
) {
  return {
    /** The visitor who wrote a comment (how the owner names a visitor), or null. */
    async authorOf(id: number): Promise<string | null> {
      const row = await db
        .selectFrom("science_comments")
        .select("visitor_id")
        .where("id", "=", id)
        .executeTakeFirst();
      return row?.visitor_id ?? null;
    },

    /**
     * For the owner: comments of one post or all, written since a time,
     * in one status or all, oldest first.
     */
    async listForOwner(filter: {
      postId?: string;
      since?: Date;
      status?: CommentStatus;
    }): Promise<OwnerComment[]> {
      let query = db.selectFrom("science_comments").select(columns).where("deleted_at", "is", null);
      if (filter.postId !== undefined) query = query.where("post_id", "=", filter.postId);
      if (filter.since !== undefined) {
        query = query.where("created_at", ">=", filter.since.toISOString());
      }
      if (filter.status !== undefined) query = query.where("status", "=", filter.status);
      const rows = await query.orderBy("created_at").orderBy("id").execute();
      const remote = await remoteWritersOf(db, rows);
      return rows.map((row) => toOwnerComment(row, remote));
    },

    /** One comment as the owner sees it, or null. */
    async getForOwner(id: number): Promise<OwnerComment | null> {
      const row = await db
        .selectFrom("science_comments")
        .select(columns)
        .where("id", "=", id)
        .executeTakeFirst();
      return row ? toOwnerComment(row, await remoteWritersOf(db, [row])) : null;
    },

    /** Whether the owner approved this visitor, or published a comment of theirs. */
    async isApproved(visitorId: string): Promise<boolean> {
      const approved = await db
        .selectFrom("approved_visitors")
        .select("visitor_id")
        .where("visitor_id", "=", visitorId)
        .executeTakeFirst();
      if (approved) return true;
      const published = await db
        .selectFrom("science_comments")
        .select("id")
        .where("visitor_id", "=", visitorId)
        .where("status", "=", "published")
        .limit(1)
        .executeTakeFirst();
      return published !== undefined;
    },

    /** The texts this visitor, or this address, sent since `since`, as typed. */
    async textsSentSince(input: {
      visitorId: string;
      ipHash: string | null;
      since: Date;
    }): Promise<string[]> {
      const rows = await db
        .selectFrom("science_comments")
        .select("content")
        .where("created_at", ">=", input.since.toISOString())
        .where((eb) =>
          input.ipHash
            ? eb.or([eb("visitor_id", "=", input.visitorId), eb("ip_hash", "=", input.ipHash)])
            : eb("visitor_id", "=", input.visitorId),
        )
        .execute();
      return rows.map((row) => row.content);
    },

    /** Who wrote a comment, as a ban names them: the credential and the address's HMAC. */
    async writerOf(id: number): Promise<{ visitorId: string; ipHash: string | null } | null> {
      const row = await db
        .selectFrom("science_comments")
        .select(["visitor_id", "ip_hash"])
        .where("id", "=", id)
        .executeTakeFirst();
      return row ? { visitorId: row.visitor_id, ipHash: row.ip_hash } : null;
    },

    /**
     * Forgets what the honeypot and the classifier caught once it is older than
     * `cutoff`. What the owner marked as spam stays in the spam list, where the
     * filter goes on learning from it (docs/decisions/025-spam-that-learns.md).
     */
    async pruneSpam(cutoff: Date): Promise<number> {
      const rows = await db
        .deleteFrom("science_comments")
        .where("status", "=", "spam")
        .where("created_at", "<", cutoff.toISOString())
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("spam_examples")
                .select("spam_examples.id")
                .whereRef("spam_examples.comment_id", "=", "science_comments.id"),
            ),
          ),
        )
        .returning("id")
        .execute();
      // A Fediverse reply kept as spam takes its writer's record with it, and
      // any mail about it.
      const ids = rows.map(({ id }) => id);
      await forgetRemoteWriters(db, ids);
      await forgetNotices(db, ids);
      return rows.length;
    },

    /** How many published comments each post has, for posts that have any. */
    async countsByPost(): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom("science_comments")
        .select((eb) => ["post_id", eb.fn.countAll().as("count")])
        .where("status", "=", "published")
        .where("deleted_at", "is", null)
        .groupBy("post_id")
        .execute();
      return new Map(rows.map((row) => [row.post_id, Number(row.count)]));
    },
  };
}
