import type { Transaction } from "kysely";
import type { LiveComment } from "../../contract/live-events.ts";
import type { Database } from "../db/schema.ts";

/**
 * What the comments repository tells whoever wants to know of a new comment.
 * The comments module owns this interface; the owner's notifications
 * (server/notifications/notifier.ts) implement it, and the composition root
 * (server/app.ts) plugs one in.
 */

/** What the owner is told of a comment. */
export type NotifiedComment = Pick<
  LiveComment,
  "id" | "postId" | "content" | "userName" | "createdAt"
>;

/** A comment that others can read at once, or one held until the owner approves it. */
export type CommentState = "created" | "held";

/**
 * Called by the comments repository in the transaction that stores a comment
 * (docs/decisions/011-owner-notifications.md): the notifications are outbox
 * rows committed with the comment, so a comment the API acknowledged is never
 * a lost notification. `committed` runs after the commit and wakes the
 * workers.
 */
export type CommentNotifier = {
  queue(trx: Transaction<Database>, comment: NotifiedComment, state?: CommentState): Promise<void>;
  committed(): void;
};

/** Whether a confirmation mail may be asked for: yes, or which limit refuses it. */
export type AdmitOutcome = "ok" | "ip_limited" | "address_limited";

/** What the reply mails need to know of a comment: where it sits and who wrote it. */
export type ThreadComment = {
  id: number;
  postId: string;
  parentId: number | null;
  visitorId: string;
};

/**
 * The readers' reply mails (docs/product.md, "Reply mails"), called by the
 * comments repository in the transaction that stores or publishes a comment,
 * so a watch or a reply mail is committed with it, never lost. The
 * reply watches (reply-watches.ts) implement it; the composition root plugs it in.
 */
export type ReplyNotifier = {
  /**
   * Before a comment that asks for reply mails is stored: whether its
   * confirmation mail may go, within the limits per network and per address.
   */
  admit(input: { visitorId: string; email: string; ip: string }): Promise<AdmitOutcome>;
  /** The writer of `comment` asks to be mailed replies in its thread at `email`. */
  watch(trx: Transaction<Database>, comment: ThreadComment, email: string): Promise<void>;
  /** `comment` is now published: mail those who follow its thread. */
  published(trx: Transaction<Database>, comment: ThreadComment): Promise<void>;
  committed(): void;
};
