import type { Kysely, Transaction } from "kysely";
import type { Comment } from "../../contract/api.ts";
import { topicOf } from "../../contract/live-events.ts";
import { afterCommit, transact, withLine } from "../db/owner-actor.ts";
import type { CommentStatus, Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { EventBus, LiveEvent } from "../events/bus.ts";
import type { EventJournal } from "../events/journal.ts";
import { renderComment } from "./markdown.ts";
import type { CommentNotifier } from "./notifier.ts";
import { createCommentOwnerQueries } from "./owner-queries.ts";
import {
  type Alongside,
  createCommentPublishing,
  forgetApproval,
  type ReplySettings,
} from "./publishing.ts";
import { createCommentReads } from "./reads.ts";
import {
  type ForgetExamples,
  forgetNotices,
  type RemovalMatch,
  removeComments,
} from "./removal.ts";
import { columns, commentEvents, commentShapes, ownerModerationTopic } from "./rows.ts";

export type { Alongside, ReplySettings } from "./publishing.ts";
export type { OwnerComment } from "./rows.ts";

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
  /** Forgets what the spam filter learnt from comments deleted or edited (moderation's). */
  forgetSpamExamples: ForgetExamples,
  /** Queues the owner's notifications with each new comment (docs/decisions/011-owner-notifications.md). */
  notifier: CommentNotifier | undefined,
  /** Watches and mails for readers who asked to hear of replies (docs/product.md, "Reply mails"). */
  replies: ReplySettings,
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
  const shapes = commentShapes(avatarOf);
  const { toComment, toLiveComment } = shapes;
  const publishing = createCommentPublishing(store, events, bus, shapes, notifier, replies, clock);
  const said = commentEvents(events, shapes);
  const { shown, held } = said;

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
   * Deletes the comments matching by id, by visitor or by both, recording
   * their events in the same transaction (removal.ts); returns how many.
   * `within`: an owner action's transaction (`withLine`), whose commit sends
   * the events.
   */
  async function removeMatching(
    match: RemovalMatch,
    {
      approvalToo = false,
      byWriter = false,
      alongside,
      within,
    }: {
      approvalToo?: boolean;
      byWriter?: boolean;
      alongside?: Alongside;
      within?: Kysely<Database>;
    } = {},
  ): Promise<number> {
    const remove = async (trx: Transaction<Database>) => {
      const done = await removeComments(trx, said, match, forgetSpamExamples, byWriter);
      if (approvalToo && match.visitorId) await forgetApproval(trx, match.visitorId);
      if (done.removed > 0) await alongside?.(trx);
      return done;
    };
    const { removed, events } = await (within
      ? transact(within, remove)
      : withLine(db, alongside, remove));
    for (const event of events) afterCommit(within ?? db, () => bus.committed(event));
    return removed;
  }

  return {
    ...createCommentReads(store, shapes),
    ...createCommentOwnerQueries(store, shapes),
    add: publishing.add,
    onRepliesQueued: publishing.onRepliesQueued,

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
        // The words an edit replaces go from the filter's examples and the mails that quoted them.
        await forgetSpamExamples(trx, [input.id]);
        await forgetNotices(trx, [input.id]);
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
     * it is published. `alongside` as for `removeAsOwner`.
     */
    async updateAsOwner(
      input: { id: number; content: string },
      alongside?: Alongside,
    ): Promise<Comment | "not_found"> {
      const result = await withLine(db, alongside, async (trx) => {
        const row = await trx
          .updateTable("science_comments")
          .set(edited(input.content))
          .where("id", "=", input.id)
          .where("deleted_at", "is", null)
          .returning(columns)
          .executeTakeFirst();
        if (!row) return null;
        await forgetSpamExamples(trx, [row.id]);
        await forgetNotices(trx, [row.id]);
        await alongside?.(trx);
        const event = row.status === "published" ? await shown(trx, row, "updated") : null;
        return { row, event };
      });
      if (!result) return "not_found";
      if (result.event) bus.committed(result.event);
      return toComment(result.row, null);
    },

    /**
     * A Fediverse writer's account as their server now describes it (its Update):
     * their name, handle and picture on each of their replies here; open pages hear
     * of the published ones. The posts whose replies changed.
     */
    async renameRemoteWriter(
      actorId: string,
      writer: { handle: string; name: string; avatar: string | null },
    ): Promise<string[]> {
      const result = await db.transaction().execute(async (trx) => {
        const replies = await trx
          .updateTable("fediverse_replies")
          .set(writer)
          .where("actor_id", "=", actorId)
          .returning("comment_id")
          .execute();
        if (replies.length === 0) return { rows: [], recorded: [] };
        const rows = await trx
          .updateTable("science_comments")
          .set({ user_name: writer.name })
          .where(
            "id",
            "in",
            replies.map((reply) => reply.comment_id),
          )
          .where("deleted_at", "is", null)
          .returning(columns)
          .execute();
        const recorded: LiveEvent[] = [];
        for (const row of rows) {
          if (row.status === "published") recorded.push(await shown(trx, row, "updated"));
        }
        return { rows, recorded };
      });
      for (const event of result.recorded) bus.committed(event);
      return [...new Set(result.rows.map((row) => row.post_id))];
    },

    /** Deletes a comment written by this visitor. */
    async remove(input: { id: number; visitorId: string }): Promise<true | CommentRefusal> {
      const removed = await removeMatching(input, { byWriter: true });
      return removed > 0 ? true : refusal(input.id);
    },

    /**
     * The owner's moderation: deletes any comment; false when there is none
     * with this id. `alongside` writes in the same transaction (the owner's
     * audit line): both are kept, or neither.
     */
    async removeAsOwner(id: number, alongside?: Alongside): Promise<boolean> {
      return (await removeMatching({ id }, { alongside })) > 0;
    },

    /**
     * Abuse clean-up: deletes every comment of one visitor; returns how many.
     * `within` as for `removeMatching`.
     */
    removeAllBy(visitorId: string, within?: Kysely<Database>): Promise<number> {
      return removeMatching({ visitorId }, { within });
    },

    /**
     * "Your data": every comment of one visitor, and the owner's approval of
     * them (MODERATION=first), which named their browser too; returns how many.
     */
    eraseWriter(visitorId: string): Promise<number> {
      return removeMatching({ visitorId }, { approvalToo: true, byWriter: true });
    },

    /** Publishes a held comment (publishing.ts), or says why it cannot. */
    async approve(
      id: number,
      alongside?: Alongside,
    ): Promise<"approved" | "already_published" | "not_found"> {
      if (await publishing.approve(id, alongside)) return "approved";
      return (await refusal(id)) === "not_found" ? "not_found" : "already_published";
    },

    /**
     * The owner's "Mark as spam": the comment is kept, for its writer's eyes
     * alone, as the honeypot's catch is; if it was published, it disappears
     * from every open page. `alongside` as for `removeAsOwner`.
     */
    async markSpam(
      id: number,
      alongside?: Alongside,
    ): Promise<"marked" | "already_spam" | "not_found"> {
      const result = await withLine(db, alongside, async (trx) => {
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
        await alongside?.(trx);
        if (before.status !== "published") return null;
        return held(trx, topicOf("science", before.post_id), before.post_id, id);
      });
      if (result === "not_found" || result === "already_spam") return result;
      if (result) bus.committed(result);
      return "marked";
    },
  };
}
