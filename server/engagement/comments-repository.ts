import type { Selectable } from "kysely";
import type { Comment, CommentPosition } from "../../contract/api.ts";
import { type LiveComment, topicOf } from "../../contract/live-events.ts";
import { threadOrder } from "../../contract/threads.ts";
import type { CommentStatus, ScienceCommentsTable } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { EventBus, LiveEvent } from "../events/bus.ts";
import type { EventJournal } from "../events/journal.ts";
import { nowIso, toIso } from "../lib/time.ts";
import { renderComment } from "./comment-markdown.ts";
import type { CommentNotifier, ReplyNotifier, ThreadComment } from "./comment-notifier.ts";
import { forgetSpamExamples, type RemovalMatch, removeComments } from "./comment-removal.ts";
import { type ReplyRefusal, threadOf, visibleReplies } from "./comment-threads.ts";

/** The live-event topic of comments waiting for the owner (docs/decisions/010-moderation-and-spam.md). */
export const ownerModerationTopic = "owner:moderation";

type CommentRow = Selectable<ScienceCommentsTable>;

const columns = [
  "id",
  "post_id",
  "content",
  "user_name",
  "visitor_id",
  "created_at",
  "updated_at",
  "status",
  "by_owner",
  "content_html",
  "parent_id",
  "deleted_at",
] as const;

type Row = Pick<CommentRow, (typeof columns)[number]>;

/** A comment the owner lists: as everyone would see it, and its status. */
export type OwnerComment = LiveComment & { status: CommentStatus };

export type { ReplyRefusal } from "./comment-threads.ts";

/** Why a change to a comment was refused. */
export type CommentRefusal = "not_found" | "forbidden";

export type CommentsRepository = ReturnType<typeof createCommentsRepository>;

/**
 * `avatarOf` turns a visitor credential into the seed of its avatar
 * (server/engagement/writer-keys.ts); the credential itself never leaves the server.
 */
export function createCommentsRepository(
  store: Store,
  events: EventJournal,
  bus: Pick<EventBus, "committed">,
  avatarOf: (visitorId: string) => string,
  /** Queues the owner's notifications with each new comment (docs/decisions/011-owner-notifications.md). */
  notifier?: CommentNotifier,
  /** Watches and mails for readers who asked to hear of replies (docs/product.md, "Reply mails"). */
  replies?: ReplyNotifier,
) {
  const { db } = store;
  const itemOf = (postId: string) => ({ kind: "science" as const, id: postId });

  const threadComment = (row: Row): ThreadComment => ({
    id: row.id,
    postId: row.post_id,
    parentId: row.parent_id,
    visitorId: row.visitor_id,
  });

  function toLiveComment(row: Row): LiveComment {
    const deleted = row.deleted_at !== null;
    return {
      id: row.id,
      postId: row.post_id,
      content: row.content,
      html: deleted ? "" : (row.content_html ?? renderComment(row.content)),
      userName: row.user_name,
      avatar: avatarOf(row.visitor_id),
      createdAt: toIso(row.created_at),
      updatedAt: toIso(row.updated_at),
      byOwner: row.by_owner === 1,
      parentId: row.parent_id,
      deleted,
    };
  }

  /**
   * As its writer sees it. A comment the honeypot caught looks published to
   * its writer, and to nobody else (docs/decisions/010-moderation-and-spam.md).
   */
  function toComment(row: Row, visitorId: string | null): Comment {
    return {
      ...toLiveComment(row),
      mine: row.visitor_id === visitorId,
      awaitingApproval: row.status === "pending",
    };
  }

  /** After a filtered update or delete touched nothing: was there no comment, or not theirs? */
  async function refusal(id: number): Promise<CommentRefusal> {
    const row = await db
      .selectFrom("science_comments")
      .select("id")
      .where("id", "=", id)
      .where("deleted_at", "is", null)
      .executeTakeFirst();
    return row ? "forbidden" : "not_found";
  }

  /**
   * Deletes the comments matching by id, by visitor or by both, recording a
   * `deleted` event for each in the same transaction; returns how many.
   */
  async function removeMatching(match: RemovalMatch): Promise<number> {
    const recorded = await db
      .transaction()
      .execute((trx) =>
        removeComments(trx, events, match, async ({ id }) =>
          toLiveComment(
            await trx
              .selectFrom("science_comments")
              .select(columns)
              .where("id", "=", id)
              .executeTakeFirstOrThrow(),
          ),
        ),
      );
    for (const event of recorded) bus.committed(event);
    return recorded.length;
  }

  return {
    /**
     * The first `max` published threads of a post, oldest first, with their
     * published replies, and how many comments (replies too) it has in all:
     * the start of what every reader sees, which the read cache keeps
     * (docs/decisions/015-comment-pages.md).
     */
    async firstPublished(
      postId: string,
      max: number,
    ): Promise<{ comments: LiveComment[]; total: number; moreThreads: boolean }> {
      const [starts, count] = await Promise.all([
        db
          .selectFrom("science_comments")
          .select(columns)
          .where("post_id", "=", postId)
          .where("parent_id", "is", null)
          .where("status", "=", "published")
          .orderBy("created_at")
          .orderBy("id")
          .limit(max + 1)
          .execute(),
        db
          .selectFrom("science_comments")
          .select((eb) => eb.fn.countAll().as("count"))
          .where("post_id", "=", postId)
          .where("status", "=", "published")
          .where("deleted_at", "is", null)
          .executeTakeFirstOrThrow(),
      ]);
      const shown = starts.slice(0, max);
      const replies = await db
        .selectFrom("science_comments")
        .select(columns)
        .$call((query) =>
          visibleReplies(
            query,
            shown.map((row) => row.id),
            null,
          ),
        )
        .execute();
      return {
        comments: [...shown, ...replies].map(toLiveComment),
        total: Number(count.count),
        moreThreads: starts.length > max,
      };
    },

    /**
     * Up to `limit` threads of a post after `after` in the list's order (time
     * written, then id), with their replies, as `visitorId` sees them: the
     * published ones and their own held ones. `more` says whether any follow. Keyed on the position
     * rather than an offset, so comments written or deleted between two pages
     * neither repeat nor skip one (served by the index on post, time and id).
     */
    async pageAfter(input: {
      postId: string;
      visitorId: string | null;
      after: CommentPosition;
      limit: number;
    }): Promise<{ comments: Comment[]; more: boolean }> {
      const { visitorId, after } = input;
      const rows = await db
        .selectFrom("science_comments")
        .select(columns)
        .where("post_id", "=", input.postId)
        .where("parent_id", "is", null)
        .where((eb) =>
          visitorId
            ? eb.or([eb("status", "=", "published"), eb("visitor_id", "=", visitorId)])
            : eb("status", "=", "published"),
        )
        .where((eb) =>
          eb.or([
            eb("created_at", ">", after.createdAt),
            eb.and([eb("created_at", "=", after.createdAt), eb("id", ">", after.id)]),
          ]),
        )
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
      return {
        comments: threadOrder([...starts, ...replies].map((row) => toComment(row, visitorId))),
        more: rows.length > input.limit,
      };
    },

    /**
     * Every comment `visitorId` wrote on a post, held ones included: the
     * cached reads mark these `mine` and add the held ones for their writer alone.
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
      return rows.map((row) => ({ ...toComment(row, visitorId), status: row.status }));
    },

    /**
     * Stores a comment. Only a published one is announced: a held comment, or
     * one the honeypot caught, reaches nobody's live stream. `byOwner`: the
     * owner's own (docs/decisions/016-owner-voice.md), of which the owner is
     * not notified.
     */
    async add(input: {
      postId: string;
      content: string;
      userName: string;
      visitorId: string;
      status?: CommentStatus;
      ipHash?: string | null;
      byOwner?: boolean;
      /** A reply: the comment it answers (docs/product.md, "Replies"). */
      parentId?: number;
      /** Where its writer wants replies in its thread mailed (docs/product.md, "Reply mails"). */
      notifyEmail?: string;
    }): Promise<Comment | ReplyRefusal> {
      const now = nowIso();
      const status = input.status ?? "published";
      const byOwner = input.byOwner === true;
      const result = await db.transaction().execute(async (trx) => {
        const parentId =
          input.parentId === undefined ? null : await threadOf(trx, input.postId, input.parentId);
        if (typeof parentId === "string") return parentId;
        const row = await trx
          .insertInto("science_comments")
          .values({
            post_id: input.postId,
            content: input.content,
            content_html: renderComment(input.content),
            user_name: input.userName,
            visitor_id: input.visitorId,
            created_at: now,
            updated_at: now,
            status,
            ip_hash: input.ipHash ?? null,
            by_owner: byOwner ? 1 : 0,
            parent_id: parentId,
          })
          .returning(columns)
          .executeTakeFirstOrThrow();
        const event =
          status === "published"
            ? await events.record(trx, topicOf("science", input.postId), "comment", async () => ({
                action: "added",
                item: itemOf(row.post_id),
                commentId: row.id,
                comment: toLiveComment(row),
              }))
            : status === "pending"
              ? // Only the owner's console hears of a held comment: readers
                // cannot open a stream on this topic, which names no item.
                await events.record(trx, ownerModerationTopic, "comment", async () => ({
                  action: "held",
                  item: itemOf(row.post_id),
                  commentId: row.id,
                }))
              : null;
        // The honeypot's catch is seen by nobody, the owner included; the
        // owner's own words need no notice.
        if (status !== "spam" && !byOwner) {
          await notifier?.queue(trx, toLiveComment(row), status === "pending" ? "held" : "created");
        }
        // What the honeypot caught asks for no mail: a bot cannot make the
        // site write to an inbox.
        if (status !== "spam" && input.notifyEmail !== undefined) {
          await replies?.watch(trx, threadComment(row), input.notifyEmail);
        }
        if (status === "published") await replies?.published(trx, threadComment(row));
        return { row, event };
      });
      if (typeof result === "string") return result;
      const { row, event } = result;
      if (event) bus.committed(event);
      notifier?.committed();
      replies?.committed();
      // The owner's comments are the session's, never a browser's own (`mine`).
      return toComment(row, byOwner ? null : input.visitorId);
    },

    /**
     * Changes the text of a comment written by this visitor under this name
     * (the name must match, and the visitor credential makes that real).
     * `verdict` is what the spam filter and the moderation setting make of
     * the new text, as for a new comment (docs/decisions/025-spam-that-learns.md):
     * a published comment held by it goes back to waiting for the owner, who
     * is notified as of any held comment, and one judged spam is stored as
     * spam; either disappears for the others. A held comment stays held (or
     * becomes spam); one in the spam list stays there. Readers hear of the
     * edit only if the comment stays published. Returns the comment and the
     * status it now has.
     */
    async update(input: {
      id: number;
      content: string;
      userName: string;
      visitorId: string;
      verdict?: CommentStatus;
    }): Promise<{ comment: Comment; status: CommentStatus } | CommentRefusal> {
      const result = await db.transaction().execute(async (trx) => {
        const before = await trx
          .selectFrom("science_comments")
          .select("status")
          .where("id", "=", input.id)
          .where("visitor_id", "=", input.visitorId)
          .where("user_name", "=", input.userName)
          .executeTakeFirst();
        if (!before) return null;
        const verdict = input.verdict ?? "published";
        const status: CommentStatus =
          before.status === "published" || verdict === "spam" ? verdict : before.status;
        await forgetSpamExamples(trx, [input.id]);
        const row = await trx
          .updateTable("science_comments")
          .set({
            content: input.content,
            content_html: renderComment(input.content),
            updated_at: nowIso(),
            status,
          })
          .where("id", "=", input.id)
          .returning(columns)
          .executeTakeFirstOrThrow();
        const recorded: LiveEvent[] = [];
        if (status === "published") {
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
          recorded.push(event);
        } else if (before.status === "published") {
          // Gone for everyone but its writer, who sees it waiting for approval.
          const held = async () => ({
            action: "held" as const,
            item: itemOf(row.post_id),
            commentId: row.id,
          });
          recorded.push(await events.record(trx, topicOf("science", row.post_id), "comment", held));
          if (status === "pending") {
            // The owner hears of it as of any held comment: the console live, the notifications.
            recorded.push(await events.record(trx, ownerModerationTopic, "comment", held));
            await notifier?.queue(trx, toLiveComment(row), "held");
          }
        }
        return { row, recorded, status };
      });
      if (!result) return refusal(input.id);
      for (const event of result.recorded) bus.committed(event);
      if (result.status === "pending") notifier?.committed();
      return { comment: toComment(result.row, input.visitorId), status: result.status };
    },

    /**
     * The owner's edit of any comment (docs/decisions/016-owner-voice.md): the
     * text changes, its writer, name and state stay; open pages hear of it if
     * it is published.
     */
    async updateAsOwner(input: { id: number; content: string }): Promise<Comment | "not_found"> {
      const result = await db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable("science_comments")
          .set({
            content: input.content,
            content_html: renderComment(input.content),
            updated_at: nowIso(),
          })
          .where("id", "=", input.id)
          .where("deleted_at", "is", null)
          .returning(columns)
          .executeTakeFirst();
        if (!row) return null;
        await forgetSpamExamples(trx, [row.id]);
        const event =
          row.status === "published"
            ? await events.record(trx, topicOf("science", row.post_id), "comment", async () => ({
                action: "updated",
                item: itemOf(row.post_id),
                commentId: row.id,
                comment: toLiveComment(row),
              }))
            : null;
        return { row, event };
      });
      if (!result) return "not_found";
      if (result.event) bus.committed(result.event);
      return toComment(result.row, null);
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
      return rows.map((row) => ({ ...toLiveComment(row), status: row.status }));
    },

    /** One comment as the owner sees it, or null. */
    async getForOwner(id: number): Promise<OwnerComment | null> {
      const row = await db
        .selectFrom("science_comments")
        .select(columns)
        .where("id", "=", id)
        .executeTakeFirst();
      return row ? { ...toLiveComment(row), status: row.status } : null;
    },

    /**
     * Publishes a held comment (or one the honeypot caught, which the owner
     * judged a person's), announcing it to every open page, and approves its
     * writer, so that under MODERATION=first their later comments are not held.
     */
    async approve(id: number): Promise<"approved" | "already_published" | "not_found"> {
      const result = await db.transaction().execute(async (trx) => {
        const row = await trx
          .updateTable("science_comments")
          .set({ status: "published" })
          .where("id", "=", id)
          .where("status", "!=", "published")
          .returning(columns)
          .executeTakeFirst();
        if (!row) return null;
        await trx
          .insertInto("approved_visitors")
          .values({ visitor_id: row.visitor_id, approved_at: nowIso() })
          .onConflict((oc) => oc.column("visitor_id").doNothing())
          .execute();
        // An approved reply is mailed to its thread now (docs/product.md, "Reply mails").
        await replies?.published(trx, threadComment(row));
        return events.record(trx, topicOf("science", row.post_id), "comment", async () => ({
          action: "added",
          item: itemOf(row.post_id),
          commentId: row.id,
          comment: toLiveComment(row),
        }));
      });
      if (!result) return (await refusal(id)) === "not_found" ? "not_found" : "already_published";
      bus.committed(result);
      replies?.committed();
      return "approved";
    },

    /**
     * The owner's "Mark as spam": the comment is kept, for its writer's eyes
     * alone, as the honeypot's catch is; if it was published, it disappears
     * from every open page.
     */
    async markSpam(id: number): Promise<"marked" | "already_spam" | "not_found"> {
      const result = await db.transaction().execute(async (trx) => {
        const before = await trx
          .selectFrom("science_comments")
          .select(["status", "post_id"])
          .where("id", "=", id)
          .executeTakeFirst();
        if (!before) return "not_found" as const;
        if (before.status === "spam") return "already_spam" as const;
        await trx
          .updateTable("science_comments")
          .set({ status: "spam" })
          .where("id", "=", id)
          .execute();
        if (before.status !== "published") return null;
        return events.record(trx, topicOf("science", before.post_id), "comment", async () => ({
          action: "held",
          item: itemOf(before.post_id),
          commentId: id,
        }));
      });
      if (result === "not_found" || result === "already_spam") return result;
      if (result) bus.committed(result);
      return "marked";
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

    /** Whether this visitor, or this address, sent the same text since `since`. */
    async sentRecently(input: {
      visitorId: string;
      ipHash: string | null;
      content: string;
      since: Date;
    }): Promise<boolean> {
      const row = await db
        .selectFrom("science_comments")
        .select("id")
        .where("content", "=", input.content)
        .where("created_at", ">=", input.since.toISOString())
        .where((eb) =>
          input.ipHash
            ? eb.or([eb("visitor_id", "=", input.visitorId), eb("ip_hash", "=", input.ipHash)])
            : eb("visitor_id", "=", input.visitorId),
        )
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
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
