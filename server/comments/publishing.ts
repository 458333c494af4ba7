import type { Kysely, Transaction } from "kysely";
import type { Comment } from "../../contract/api.ts";
import { topicOf } from "../../contract/live-events.ts";
import { withLine } from "../db/owner-actor.ts";
import type { CommentStatus, Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { EventBus, LiveEvent } from "../events/bus.ts";
import type { EventJournal } from "../events/journal.ts";
import { type AddressKey, heldAddress } from "../lib/mailbox.ts";
import { toIso } from "../lib/time.ts";
import { newSeed, newToken, type StandingLinks, tokenDigest } from "../lib/tokens.ts";
import { enqueue } from "../outbox/queue.ts";
import {
  type AdmitOutcome,
  addressOf,
  admit,
  dayShareSent,
  needsConfirmation,
  type Sender,
} from "./confirmation-limits.ts";
import { confirmationPayload } from "./forget-watches.ts";
import { renderComment } from "./markdown.ts";
import type { CommentNotifier } from "./notifier.ts";
import { isStopped, type ReplyMailPayload, replyMailbox, replyMailRules } from "./reply-watches.ts";
import {
  columns,
  commentEvents,
  type commentShapes,
  ownerModerationTopic,
  type RemoteReply,
  type Row,
} from "./rows.ts";
import { type ReplyRefusal, threadOf } from "./threads.ts";

/*
 * A comment made public: stored (add) or approved (approve), with its live
 * event, the owner's notification and the readers' reply mails it queues
 * (docs/product.md, "Reply mails"), all in one transaction. The watches'
 * rules and other side (confirming, unsubscribing, "Your data") are reply-watches.ts's.
 */

/**
 * The readers' reply mails: their own clock (tests move it), the limit per
 * network, and the key a stopped mailbox is kept under (reply-watches.ts).
 */
export type ReplySettings = {
  clock: () => Date;
  maxPerIpPerHour: number;
  mailboxKey: (email: string) => string;
  /** The key an address is held under beside itself (`heldAddress`, lib/mailbox.ts). */
  addressKey: AddressKey;
  /** The standing links (unsubscribe, stop) made from the seeds the database keeps (lib/tokens.ts). */
  links: StandingLinks;
};

/** A write the caller adds to an action's own transaction (the owner's audit line). */
export type Alongside = (trx: Kysely<Database>) => Promise<void>;

/** Forgets that the owner approved a writer (a Fediverse account that was deleted). */
export const forgetApproval = (trx: Kysely<Database>, visitorId: string) =>
  trx.deleteFrom("approved_visitors").where("visitor_id", "=", visitorId).execute();

export function createCommentPublishing(
  store: Store,
  events: EventJournal,
  bus: Pick<EventBus, "committed">,
  shapes: ReturnType<typeof commentShapes>,
  notifier: CommentNotifier | undefined,
  replies: ReplySettings,
  clock: () => Date,
) {
  const { db } = store;
  const nowIso = () => clock().toISOString();
  const { toLiveComment, toComment } = shapes;
  /** Wakes the mail workers once reply mails are committed. */
  const listeners = new Set<() => void>();
  const { shown, held } = commentEvents(events, shapes);

  /**
   * Queues the confirmation mail of a pending address, unless its mailbox
   * had its day's share already. `admit` refuses a request past the limit,
   * but requests admitted together, on several instances, each count before
   * any of them is stored: the limit is kept here, in the comment's own
   * transaction, where comments are written one at a time (SQLite's writes
   * are; on PostgreSQL, the comment's event was recorded under the journal's
   * lock, held to the commit, events/journal.ts), so each sees the mails of
   * those before it.
   * A mailbox whose reader stopped all reply mails is sent nothing, yet counted
   * as if it were, so that the form tells nobody it was stopped.
   */
  async function queueConfirmation(
    trx: Transaction<Database>,
    settings: ReplySettings,
    addressId: number,
    email: string,
    now: Date,
  ) {
    if (await dayShareSent(trx, store.kind, email, now)) return;
    const token = newToken();
    const at = now.toISOString();
    await trx
      .updateTable("reply_addresses")
      .set({
        confirm_token_hash: tokenDigest(token),
        confirm_expires_at: new Date(now.getTime() + replyMailRules.tokenLifetimeMs).toISOString(),
        confirmation_sent_at: at,
      })
      .where("id", "=", addressId)
      .execute();
    if (await isStopped(trx, settings.mailboxKey(email))) return;
    await enqueue(trx, at, [
      { kind: "reply_confirmation", email, token, payload: confirmationPayload(addressId) },
    ]);
  }

  /** The writer of `row` asks to be mailed replies in its thread at `email`. */
  async function watch(
    trx: Transaction<Database>,
    settings: ReplySettings,
    row: Row,
    email: string,
  ) {
    const now = settings.clock();
    const existing = await addressOf(trx, row.visitor_id, email);
    let addressId = existing?.id;
    if (!existing) {
      const inserted = await trx
        .insertInto("reply_addresses")
        .values({
          visitor_id: row.visitor_id,
          ...heldAddress(settings.addressKey, email),
          status: "pending",
          unsubscribe_token: newSeed(),
          created_at: now.toISOString(),
        })
        .onConflict((oc) => oc.doNothing())
        .returning("id")
        .executeTakeFirst();
      if (inserted) await queueConfirmation(trx, settings, inserted.id, email, now);
      // Or another request stored it meanwhile, and queued its confirmation.
      addressId = inserted?.id ?? (await addressOf(trx, row.visitor_id, email))?.id;
    } else if (needsConfirmation(existing, now)) {
      await queueConfirmation(trx, settings, existing.id, email, now);
    }
    await trx
      .insertInto("reply_watches")
      .values({
        address_id: addressId as number,
        thread_id: row.parent_id ?? row.id,
        comment_id: row.id,
        unsubscribe_token: newSeed(),
        created_at: now.toISOString(),
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  /**
   * `row` is now published: one mail to each confirmed mailbox that follows
   * its thread, at once, or in the digest when the watch's window is open.
   */
  async function mailThread(trx: Transaction<Database>, now: Date, row: Row) {
    // Only a reply is news to a thread's followers.
    if (row.parent_id === null) return;
    const watches = await trx
      .selectFrom("reply_watches")
      .innerJoin("reply_addresses", "reply_addresses.id", "reply_watches.address_id")
      .select([
        "reply_watches.id as id",
        "reply_watches.unsubscribe_token as token",
        "reply_addresses.email as email",
        "reply_addresses.status as status",
        "reply_addresses.visitor_id as visitorId",
      ])
      .where("reply_watches.thread_id", "=", row.parent_id)
      .orderBy("reply_watches.id")
      .execute();
    const at = now.toISOString();
    // A reader is not told of their own replies: not at the addresses the
    // writer's browser follows the thread with (the reply's own, when it asks
    // to), nor at another spelling of their mailboxes left in another browser.
    // Only a confirmed address counts as the writer's: one merely typed in
    // could be anyone's, and would keep its owner from hearing of the reply.
    const mailed = new Set(
      watches
        .filter((w) => w.visitorId === row.visitor_id && w.status === "confirmed")
        .map((w) => replyMailbox(w.email)),
    );
    for (const { id, token, email, status } of watches) {
      // One mail per mailbox, however many of its spellings follow the thread.
      const mailbox = replyMailbox(email);
      if (status !== "confirmed" || mailed.has(mailbox)) continue;
      mailed.add(mailbox);
      const opened = await trx
        .updateTable("reply_watches")
        .set({
          window_ends_at: new Date(now.getTime() + replyMailRules.digestWindowMs).toISOString(),
        })
        .where("id", "=", id)
        .where((eb) => eb.or([eb("window_ends_at", "is", null), eb("window_ends_at", "<=", at)]))
        .executeTakeFirst();
      let due = at;
      if (Number(opened.numUpdatedRows) === 0) {
        const current = await trx
          .selectFrom("reply_watches")
          .select("window_ends_at")
          .where("id", "=", id)
          .executeTakeFirstOrThrow();
        due = current.window_ends_at ? toIso(current.window_ends_at) : at;
      }
      const payload: ReplyMailPayload = { replyId: row.id };
      const kind = Number(opened.numUpdatedRows) === 0 ? "reply_digest" : "reply_notice";
      await enqueue(trx, at, [{ kind, email, token, payload: JSON.stringify(payload), due }]);
    }
  }

  /** After a commit that may have queued reply mails: the workers look now. */
  const queued = () => {
    for (const listener of listeners) listener();
  };

  return {
    /** Calls `listener` after each commit that may have queued reply mails. */
    onRepliesQueued(listener: () => void) {
      listeners.add(listener);
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
      /** Where replies in its thread are to be mailed, asked by `sender`: refused past the limits. */
      notifyEmail?: string;
      sender?: Sender;
      /**
       * A reply from the Fediverse (server/fediverse/inbox.ts): its Note and writer, kept with
       * it, so neither is ever kept without the other (removal.ts forgets them together).
       */
      remote?: RemoteReply;
      /** The owner's audit line for it, written in its transaction: both are kept, or neither. */
      alongside?: (trx: Kysely<Database>, id: number) => Promise<void>;
    }): Promise<Comment | ReplyRefusal | Exclude<AdmitOutcome, "ok">> {
      const now = nowIso();
      const status = input.status ?? "published";
      const byOwner = input.byOwner === true;
      const { notifyEmail } = input;
      if (notifyEmail !== undefined && input.sender !== undefined) {
        const admitted = await admit(store, replies, {
          ...input,
          email: notifyEmail,
          sender: input.sender,
        });
        if (admitted !== "ok") return admitted;
      }
      const { alongside } = input;
      const result = await withLine(db, alongside, async (trx) => {
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
        if (status !== "spam" && notifyEmail !== undefined) {
          await watch(trx, replies, row, notifyEmail);
        }
        if (status === "published") await mailThread(trx, replies.clock(), row);
        await alongside?.(trx, row.id);
        return { row, recorded };
      });
      if (typeof result === "string") return result;
      const { row, recorded } = result;
      for (const event of recorded) bus.committed(event);
      notifier?.committed();
      queued();
      // The owner's comments are the session's, never a browser's own (`mine`).
      return toComment(row, byOwner ? null : input.visitorId);
    },

    /**
     * Publishes a held comment (or one the honeypot caught, which the owner
     * judged a person's), announcing it to every open page, and approves its
     * writer, so that under MODERATION=first their later comments are not
     * held. False when there is none left to publish. `alongside` writes in
     * the same transaction (the owner's audit line): both are kept, or neither.
     */
    async approve(id: number, alongside?: Alongside): Promise<boolean> {
      const event = await withLine(db, alongside, async (trx) => {
        const row = await trx
          .updateTable("science_comments")
          .set({ status: "published" })
          .where("id", "=", id)
          .where("status", "!=", "published")
          .returning(columns)
          .executeTakeFirst();
        if (!row) return null;
        await alongside?.(trx);
        await trx
          .insertInto("approved_visitors")
          .values({ visitor_id: row.visitor_id, approved_at: nowIso() })
          .onConflict((oc) => oc.column("visitor_id").doNothing())
          .execute();
        // An approved reply is mailed to its thread now (docs/product.md, "Reply mails").
        await mailThread(trx, replies.clock(), row);
        return shown(trx, row, "added");
      });
      if (!event) return false;
      bus.committed(event);
      queued();
      return true;
    },
  };
}
