import type { Selectable } from "kysely";
import type { Comment } from "../../contract/api.ts";
import { type LiveComment, topicOf } from "../../contract/live-events.ts";
import type { ScienceCommentsTable } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { EventBus, LiveEvent } from "../events/bus.ts";
import type { CommentNotifier } from "../notifications/notifier.ts";
import type { EventsRepository } from "./events-repository.ts";
import { nowIso, toIso } from "./time.ts";

type CommentRow = Selectable<ScienceCommentsTable>;

const columns = [
  "id",
  "post_id",
  "content",
  "user_name",
  "visitor_id",
  "created_at",
  "updated_at",
] as const;

function toLiveComment(row: CommentRow): LiveComment {
  return {
    id: row.id,
    postId: row.post_id,
    content: row.content,
    userName: row.user_name,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

function toComment(row: CommentRow, visitorId: string | null): Comment {
  return { ...toLiveComment(row), mine: row.visitor_id === visitorId };
}

/** Why a change to a comment was refused. */
export type CommentRefusal = "not_found" | "forbidden";

export type CommentsRepository = ReturnType<typeof createCommentsRepository>;

export function createCommentsRepository(
  store: Store,
  events: EventsRepository,
  bus: Pick<EventBus, "committed">,
  /** Queues the owner's notifications with each new comment (docs/decisions/011-owner-notifications.md). */
  notifier?: CommentNotifier,
) {
  const { db } = store;
  const itemOf = (postId: string) => ({ kind: "science" as const, id: postId });

  /** After a filtered update or delete touched nothing: was there no comment, or not theirs? */
  async function refusal(id: number): Promise<CommentRefusal> {
    const row = await db
      .selectFrom("science_comments")
      .select("id")
      .where("id", "=", id)
      .executeTakeFirst();
    return row ? "forbidden" : "not_found";
  }

  /**
   * Deletes the comments matching by id, by visitor or by both, recording a
   * `deleted` event for each in the same transaction; returns how many.
   */
  async function removeMatching(
    match: { id: number; visitorId?: string } | { id?: number; visitorId: string },
  ): Promise<number> {
    const recorded = await db.transaction().execute(async (trx) => {
      let query = trx.deleteFrom("science_comments");
      if (match.id !== undefined) query = query.where("id", "=", match.id);
      if (match.visitorId !== undefined) query = query.where("visitor_id", "=", match.visitorId);
      const rows = await query.returning(["id", "post_id"]).execute();
      const recorded: LiveEvent[] = [];
      for (const row of rows) {
        recorded.push(
          await events.record(trx, topicOf("science", row.post_id), "comment", async () => ({
            action: "deleted",
            item: itemOf(row.post_id),
            commentId: row.id,
          })),
        );
      }
      return recorded;
    });
    for (const event of recorded) bus.committed(event);
    return recorded.length;
  }

  return {
    /** A post's comments, oldest first. */
    async list(postId: string, visitorId: string | null): Promise<Comment[]> {
      const rows = await db
        .selectFrom("science_comments")
        .select(columns)
        .where("post_id", "=", postId)
        .orderBy("created_at")
        .orderBy("id")
        .execute();
      return rows.map((row) => toComment(row, visitorId));
    },

    /** The ids of the comments `visitorId` wrote on a post (the cached reads mark them `mine`). */
    async idsBy(postId: string, visitorId: string): Promise<number[]> {
      const rows = await db
        .selectFrom("science_comments")
        .select("id")
        .where("post_id", "=", postId)
        .where("visitor_id", "=", visitorId)
        .execute();
      return rows.map((row) => row.id);
    },

    async add(input: {
      postId: string;
      content: string;
      userName: string;
      visitorId: string;
    }): Promise<Comment> {
      const now = nowIso();
      const { row, event } = await db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto("science_comments")
          .values({
            post_id: input.postId,
            content: input.content,
            user_name: input.userName,
            visitor_id: input.visitorId,
            created_at: now,
            updated_at: now,
          })
          .returning(columns)
          .executeTakeFirstOrThrow();
        const event = await events.record(
          trx,
          topicOf("science", input.postId),
          "comment",
          async () => ({
            action: "added",
            item: itemOf(row.post_id),
            commentId: row.id,
            comment: toLiveComment(row),
          }),
        );
        await notifier?.queue(trx, toLiveComment(row));
        return { row, event };
      });
      bus.committed(event);
      notifier?.committed();
      return toComment(row, input.visitorId);
    },

    /**
     * Changes the text of a comment written by this visitor under this name
     * (the name must match, and the visitor credential makes that real).
     */
    async update(input: {
      id: number;
      content: string;
      userName: string;
      visitorId: string;
    }): Promise<Comment | CommentRefusal> {
      const result = await db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable("science_comments")
          .set({ content: input.content, updated_at: nowIso() })
          .where("id", "=", input.id)
          .where("visitor_id", "=", input.visitorId)
          .where("user_name", "=", input.userName)
          .returning(columns)
          .executeTakeFirst();
        if (!row) return null;
        const event = await events.record(
          trx,
          topicOf("science", row.post_id),
          "comment",
          async () => ({
            action: "updated",
            item: itemOf(row.post_id),
            commentId: row.id,
            comment: toLiveComment(row),
          }),
        );
        return { row, event };
      });
      if (!result) return refusal(input.id);
      bus.committed(result.event);
      return toComment(result.row, input.visitorId);
    },

    /** Deletes a comment written by this visitor. */
    async remove(input: { id: number; visitorId: string }): Promise<true | CommentRefusal> {
      const removed = await removeMatching(input);
      return removed > 0 ? true : refusal(input.id);
    },

    /** The owner's moderation: deletes any comment; false when there is none with this id. */
    async removeAsOwner(id: number): Promise<boolean> {
      return (await removeMatching({ id })) > 0;
    },

    /** Abuse clean-up: deletes every comment of one visitor; returns how many. */
    removeAllBy(visitorId: string): Promise<number> {
      return removeMatching({ visitorId });
    },

    /** The visitor who wrote a comment (how the owner names a visitor), or null. */
    async authorOf(id: number): Promise<string | null> {
      const row = await db
        .selectFrom("science_comments")
        .select("visitor_id")
        .where("id", "=", id)
        .executeTakeFirst();
      return row?.visitor_id ?? null;
    },

    /** For the owner: comments of one post or all, written since a time, oldest first. */
    async listForOwner(filter: { postId?: string; since?: Date }): Promise<LiveComment[]> {
      let query = db.selectFrom("science_comments").select(columns);
      if (filter.postId !== undefined) query = query.where("post_id", "=", filter.postId);
      if (filter.since !== undefined) {
        query = query.where("created_at", ">=", filter.since.toISOString());
      }
      const rows = await query.orderBy("created_at").orderBy("id").execute();
      return rows.map(toLiveComment);
    },

    /** How many comments each post has, for posts that have any. */
    async countsByPost(): Promise<Map<string, number>> {
      const rows = await db
        .selectFrom("science_comments")
        .select((eb) => ["post_id", eb.fn.countAll().as("count")])
        .groupBy("post_id")
        .execute();
      return new Map(rows.map((row) => [row.post_id, Number(row.count)]));
    },
  };
}
