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
