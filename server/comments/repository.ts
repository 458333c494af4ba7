import type { Transaction } from "kysely";
import type { Comment } from "../../contract/api.ts";
import { topicOf } from "../../contract/live-events.ts";
import type { CommentStatus, Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { EventBus, LiveEvent } from "../events/bus.ts";
import type { EventJournal } from "../events/journal.ts";
import { renderComment } from "./markdown.ts";
import type { AdmitOutcome, CommentNotifier, ReplyNotifier } from "./notifier.ts";
import { createCommentOwnerQueries } from "./owner-queries.ts";
import { createCommentReads } from "./reads.ts";
import { forgetSpamExamples, type RemovalMatch, removeComments } from "./removal.ts";
import { columns, commentShapes, type RemoteReply, type Row, remoteWritersOf } from "./rows.ts";
import { type ReplyRefusal, threadOf } from "./threads.ts";

/** The live-event topic of comments waiting for the owner (docs/decisions/010-moderation-and-spam.md). */
export const ownerModerationTopic = "owner:moderation";

export type { OwnerComment } from "./rows.ts";
export type { ReplyRefusal } from "./threads.ts";

/** Why a change to a comment was refused. */
export type CommentRefusal = "not_found" | "forbidden";

export type CommentsRepository = ReturnType<typeof createCommentsRepository>;

/**
 * A post's comments: the writes here (each in one transaction with its live
 * event, docs/architecture.md "Writes"), the reads of the pages
 * (reads.ts) and the owner's queries (owner-queries.ts).
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
  clock: () => Date = () => new Date(),
) {
  const { db } = store;
  const nowIso = () => clock().toISOString();
  /** A comment's new text, as stored: its Markdown rendered once, and the time of the edit. */
  const edited = (content: string) => ({
    content,
    content_html: renderComment(content),
    updated_at: nowIso(),
  });
  const itemOf = (postId: string) => ({ kind: "science" as const, id: postId });
  const shapes = commentShapes(avatarOf);
  const { toLiveComment, toComment, threadComment } = shapes;
  /** A comment as open pages get it, with its Fediverse writer when it has one. */
  const live = async (trx: Parameters<typeof remoteWritersOf>[0], row: Row) =>
    toLiveComment(row, await remoteWritersOf(trx, [row]));
  /** Records that `row` is now shown as it is (`added`, `updated`) on its post's open pages. */
  const shown = (trx: Transaction<Database>, row: Row, action: "added" | "updated") =>
    events.record(trx, topicOf("science", row.post_id), "comment", async () => ({
      action,
      item: itemOf(row.post_id),
      commentId: row.id,
      comment: await live(trx, row),
    }));
  /** Records that a comment is held, on its post's topic or the owner's. */
  const held = (trx: Transaction<Database>, topic: string, postId: string, commentId: number) =>
    events.record(trx, topic, "comment", async () => ({
      action: "held" as const,
      item: itemOf(postId),
      commentId,
    }));

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
          live(
            trx,
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
    ...createCommentReads(store, shapes),
    ...createCommentOwnerQueries(store, shapes),

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
      /**
       * Where its writer wants replies in its thread mailed (docs/product.md,
       * "Reply mails"), asked from `ip`: refused past the confirmation mails'
       * limits, before anything is stored.
       */
      notifyEmail?: string;
      ip?: string;
      /**
       * A reply that came from the Fediverse (server/fediverse/inbox.ts): the
       * Note it was and its writer as their server shows them, kept in the
       * same transaction, so open pages get the comment with its writer and
       * neither is ever kept without the other (removal.ts forgets them together).
       */
      remote?: RemoteReply;
    }): Promise<Comment | ReplyRefusal | Exclude<AdmitOutcome, "ok">> {
      const now = nowIso();
      const status = input.status ?? "published";
      const byOwner = input.byOwner === true;
      if (input.notifyEmail !== undefined && replies && input.ip !== undefined) {
        const email = input.notifyEmail;
        const admitted = await replies.admit({ visitorId: input.visitorId, email, ip: input.ip });
        if (admitted !== "ok") return admitted;
      }
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
        if (input.remote) {
          const { remote } = input;
          await trx
            .insertInto("fediverse_replies")
            .values({
              comment_id: row.id,
              note_id: remote.noteId,
              actor_id: remote.actorId,
              handle: remote.handle,
              name: remote.name,
              url: remote.url,
              avatar: remote.avatar,
              created_at: now,
            })
            .execute();
        }
        const recorded: LiveEvent[] = [
          status === "published"
            ? await shown(trx, row, "added")
            : // Only its writer sees it: every instance forgets what they own of the post.
              await events.recordOwn(trx, topicOf("science", input.postId)),
        ];
        if (status === "pending") {
          // Only the owner's console hears of a held comment: readers
          // cannot open a stream on this topic, which names no item.
          recorded.push(await held(trx, ownerModerationTopic, row.post_id, row.id));
        }
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
        return { row, recorded };
      });
      if (typeof result === "string") return result;
      const { row, recorded } = result;
      for (const event of recorded) bus.committed(event);
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
          .set({ ...edited(input.content), status })
          .where("id", "=", input.id)
          .returning(columns)
          .executeTakeFirstOrThrow();
        const recorded: LiveEvent[] = [];
        if (status === "published") {
          recorded.push(await shown(trx, row, "updated"));
        } else if (before.status === "published") {
          // Gone for everyone but its writer, who sees it waiting for approval.
          recorded.push(await held(trx, topicOf("science", row.post_id), row.post_id, row.id));
          if (status === "pending") {
            // The owner hears of it as of any held comment: the console live, the notifications.
            recorded.push(await held(trx, ownerModerationTopic, row.post_id, row.id));
            await notifier?.queue(trx, toLiveComment(row), "held");
          }
        } else {
          // Held before and still: only its writer sees the edit.
          recorded.push(await events.recordOwn(trx, topicOf("science", row.post_id)));
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
          .set(edited(input.content))
          .where("id", "=", input.id)
          .where("deleted_at", "is", null)
          .returning(columns)
          .executeTakeFirst();
        if (!row) return null;
        await forgetSpamExamples(trx, [row.id]);
        const event = row.status === "published" ? await shown(trx, row, "updated") : null;
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
        return shown(trx, row, "added");
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
        return held(trx, topicOf("science", before.post_id), before.post_id, id);
      });
      if (result === "not_found" || result === "already_spam") return result;
      if (result) bus.committed(result);
      return "marked";
    },
  };
}
