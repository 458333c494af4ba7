import type { ExpressionBuilder } from "kysely";
import type { Comment, CommentPosition } from "../../contract/api.ts";
import { threadOrder } from "../../contract/threads.ts";
import type { CommentStatus, Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { toIso } from "../lib/time.ts";
import type { OpeningCandidates } from "./opening.ts";
import { type CommentShapes, columns, type Row, remoteWritersOf } from "./rows.ts";
import { seenBy, threadStartsSeenBy, visibleReplies } from "./threads.ts";

type Where = ExpressionBuilder<Database, "science_comments">;

/** Threads after (`>`) or before (`<`) a place in the list's order (time written, then id). */
const beyond = (place: CommentPosition, side: ">" | "<") => (eb: Where) =>
  eb.or([
    eb("created_at", side, place.createdAt),
    eb.and([eb("created_at", "=", place.createdAt), eb("id", side, place.id)]),
  ]);

/**
 * What the read cache asks of a post's comments (server/engagement/read-cache.ts):
 * what a discussion opens with, the threads between two places, and a
 * visitor's own comments. Each is served by the indexes on post, time and id
 * and on thread, time and id.
 */
export function createCommentReads({ db }: Store, { seenComment, toComment }: CommentShapes) {
  const threadsOf = (postId: string, visitorId: string | null) =>
    db
      .selectFrom("science_comments")
      .where("post_id", "=", postId)
      .where("parent_id", "is", null)
      .where(threadStartsSeenBy(visitorId));

  return {
    /**
     * What a post's discussion may open with, as `visitorId` sees it (the
     * published comments and their own held ones): its first `max + 1`
     * threads, the `max` most active ones (by the time of their latest
     * comment, a reply's included), where the latest `max` start, the
     * replies under all of those, and how many comments it has in all (the
     * place of a deleted one is not one)
     * (docs/decisions/032-long-discussions-open-at-both-ends.md).
     */
    async openingCandidates(
      postId: string,
      visitorId: string | null,
      max: number,
    ): Promise<OpeningCandidates<Comment>> {
      const threads = threadsOf(postId, visitorId);
      const [first, active, latest, count] = await Promise.all([
        threads
          .select(columns)
          .orderBy("created_at")
          .orderBy("id")
          .limit(max + 1)
          .execute(),
        threads
          .select(columns)
          .select((eb) =>
            eb.fn
              .coalesce(
                // A reply is always written after the comment it answers.
                eb
                  .selectFrom("science_comments as reply")
                  .select((inner) => inner.fn.max("reply.created_at").as("latest"))
                  .whereRef("reply.parent_id", "=", "science_comments.id")
                  .where((inner) =>
                    visitorId
                      ? inner.or([
                          inner("reply.status", "=", "published"),
                          inner("reply.visitor_id", "=", visitorId),
                        ])
                      : inner("reply.status", "=", "published"),
                  ),
                eb.ref("science_comments.created_at"),
              )
              .as("active_at"),
          )
          .orderBy("active_at", "desc")
          .orderBy("id", "desc")
          .limit(max)
          .execute(),
        threads
          .select(["id", "created_at"])
          .orderBy("created_at", "desc")
          .orderBy("id", "desc")
          .limit(max)
          .execute(),
        db
          .selectFrom("science_comments")
          .select((eb) => eb.fn.countAll().as("count"))
          .where("post_id", "=", postId)
          .where(seenBy(visitorId))
          .where("deleted_at", "is", null)
          .executeTakeFirstOrThrow(),
      ]);
      const threadIds = [...new Set([...first, ...active].map((row) => row.id))];
      const replies = await db
        .selectFrom("science_comments")
        .select(columns)
        .$call((query) => visibleReplies(query, threadIds, visitorId))
        .execute();
      const remote = await remoteWritersOf(db, [...first, ...active, ...replies]);
      const shape = (row: Row) => seenComment(row, visitorId, remote);
      return {
        first: first.map(shape),
        active: active.map(({ active_at: _, ...row }) => shape(row)),
        latest: latest.map((row) => ({ id: row.id, createdAt: toIso(row.created_at) })),
        replies: replies.map(shape),
        total: Number(count.count),
      };
    },

    /**
     * Up to `limit` threads of a post after `after` and before `before` in
     * the list's order (either end open when not given), with their replies,
     * as `visitorId` sees them: the published ones and their own held ones.
     * `more` says whether any follow before `before`. Keyed on positions
     * rather than an offset, so comments written or deleted between two reads
     * neither repeat nor skip one (docs/decisions/015-comment-pages.md).
     */
    async threadsBetween(input: {
      postId: string;
      visitorId: string | null;
      after?: CommentPosition;
      before?: CommentPosition;
      limit: number;
    }): Promise<{ comments: Comment[]; more: boolean }> {
      const { visitorId } = input;
      let query = threadsOf(input.postId, visitorId).select(columns);
      if (input.after) query = query.where(beyond(input.after, ">"));
      if (input.before) query = query.where(beyond(input.before, "<"));
      const rows = await query
        .orderBy("created_at")
        .orderBy("id")
        .limit(input.limit + 1)
        .execute();
      const starts = rows.slice(0, input.limit);
      const replies = await db
        .selectFrom("science_comments")
        .select(columns)
        .$call((query) =>
          visibleReplies(
            query,
            starts.map((row) => row.id),
            visitorId,
          ),
        )
        .execute();
      const remote = await remoteWritersOf(db, [...starts, ...replies]);
      return {
        comments: threadOrder(
          [...starts, ...replies].map((row) => seenComment(row, visitorId, remote)),
        ),
        more: rows.length > input.limit,
      };
    },

    /**
     * Every comment `visitorId` wrote on a post, held ones included: the
     * cached reads mark these `mine`, and a held one sends its writer's read
     * to the database.
     */
    async ownBy(
      postId: string,
      visitorId: string,
    ): Promise<(Comment & { status: CommentStatus })[]> {
      const rows = await db
        .selectFrom("science_comments")
        .select(columns)
        .where("post_id", "=", postId)
        .where("visitor_id", "=", visitorId)
        .execute();
      const remote = await remoteWritersOf(db, rows);
      return rows.map((row) => ({ ...toComment(row, visitorId, remote), status: row.status }));
    },
  };
}
