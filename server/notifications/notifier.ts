import type { CommentNotifier, CommentState, NotifiedComment } from "../comments/notifier.ts";
import { enqueue, type QueuedMessage } from "../outbox/queue.ts";

/** What an owner's mail row (`comment_notice`, `comment_digest`) carries. */
export type MailPayload = { commentId: number; state: CommentState };

/**
 * What a webhook row carries until it is sent: which comment, never its text
 * (docs/decisions/011-owner-notifications.md).
 */
export type WebhookPayload = MailPayload & { occurredAt: string };

/** The JSON body of a webhook call (docs/mail.md, "Notifications of new comments"). */
type WebhookBody = {
  type: `comment.${CommentState}`;
  occurredAt: string;
  comment: {
    id: number;
    postId: string;
    content: string;
    userName: string;
    createdAt: string;
    status: "visible" | "held";
  };
  item: { kind: "science"; id: string; title: string; url: string };
};

type NotifyMode = "each" | "hourly" | "off";

type NotifierSettings = {
  /** Where the mails go; no mail without it. */
  ownerEmail: string | undefined;
  mode: NotifyMode;
  /** Whether a webhook is configured. */
  webhook: boolean;
  siteUrl: string;
  titles: ReadonlyMap<string, string>;
  clock: () => Date;
};

const hourMs = 60 * 60 * 1000;

/** The hourly digest goes out on the hour (UTC) after the comment. */
function nextDigestAt(now: Date): Date {
  return new Date(Math.floor(now.getTime() / hourMs) * hourMs + hourMs);
}

/** A science post's own page, where its comments are read (reply-mails.ts links a reply there too). */
export function postUrl(siteUrl: string, postId: string): string {
  return `${siteUrl}/science/${encodeURIComponent(postId)}`;
}

/** The body of the call a webhook row stands for, written from the comment as it is now. */
export function webhookBody(
  comment: NotifiedComment,
  { state, occurredAt }: WebhookPayload,
  { siteUrl, titles }: Pick<NotifierSettings, "siteUrl" | "titles">,
): WebhookBody {
  return {
    type: `comment.${state}`,
    occurredAt,
    comment: {
      id: comment.id,
      postId: comment.postId,
      content: comment.content,
      userName: comment.userName,
      createdAt: comment.createdAt,
      status: state === "held" ? "held" : "visible",
    },
    item: {
      kind: "science",
      id: comment.postId,
      title: titles.get(comment.postId) ?? comment.postId,
      url: postUrl(siteUrl, comment.postId),
    },
  };
}

export function createCommentNotifier(settings: NotifierSettings) {
  const listeners = new Set<() => void>();
  const mail = settings.ownerEmail && settings.mode !== "off" ? settings.ownerEmail : undefined;

  const notifier: CommentNotifier = {
    async queue(trx, comment, state = "created") {
      if (!mail && !settings.webhook) return;
      const now = settings.clock();
      const at = now.toISOString();
      const rows: QueuedMessage[] = [];
      if (mail) {
        const payload: MailPayload = { commentId: comment.id, state };
        rows.push(
          settings.mode === "hourly"
            ? {
                kind: "comment_digest",
                email: mail,
                payload: JSON.stringify(payload),
                due: nextDigestAt(now).toISOString(),
              }
            : { kind: "comment_notice", email: mail, payload: JSON.stringify(payload) },
        );
      }
      if (settings.webhook) {
        // Only which comment: the body is written from the comment as it is
        // when the call goes out, so a deleted comment is never sent.
        const payload: WebhookPayload = { commentId: comment.id, state, occurredAt: at };
        rows.push({ kind: "webhook", payload: JSON.stringify(payload) });
      }
      await enqueue(trx, at, rows);
    },
    committed() {
      for (const listener of listeners) listener();
    },
  };

  return {
    notifier,
    /** Runs `listener` after every commit that queued a notification (the workers' wake-up). */
    onQueued(listener: () => void) {
      listeners.add(listener);
    },
  };
}
