import type { Selectable } from "kysely";
import type { Comment } from "../../contract/api.ts";
import { type LiveComment, topicOf } from "../../contract/live-events.ts";
import type { ScienceCommentsTable } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { EventBus } from "../events/bus.ts";
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
        return { row, event };
      });
      bus.committed(event);
      return toComment(row, input.visitorId);
    },

    /**
     * Changes the text of a comment written by this visitor under this name
     * (SPEC §6's name match, plus the visitor credential that makes it real).
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
      const event = await db.transaction().execute(async (trx) => {
        const row = await trx
          .deleteFrom("science_comments")
          .where("id", "=", input.id)
          .where("visitor_id", "=", input.visitorId)
          .returning(["id", "post_id"])
          .executeTakeFirst();
        if (!row) return null;
        return events.record(trx, topicOf("science", row.post_id), "comment", async () => ({
          action: "deleted",
          item: itemOf(row.post_id),
          commentId: row.id,
        }));
      });
      if (!event) return refusal(input.id);
      bus.committed(event);
      return true;
    },
  };
}
