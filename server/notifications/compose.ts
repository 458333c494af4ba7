import type { Kysely } from "kysely";
import { z } from "zod";
import type { CommentState, NotifiedComment } from "../comments/notifier.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import type { CommentAction, Database, OutboxKind } from "../db/schema.ts";
import { jsonOf } from "../lib/json.ts";
import { toIso } from "../lib/time.ts";
import type { ComposeMail } from "../outbox/outbox-worker.ts";
import type { ActionTokens } from "./action-tokens.ts";
import { actionUrl, digestMail, type NoticeEntry, noticeMail } from "./messages.ts";
import { type MailPayload, postUrl, type WebhookPayload } from "./notifier.ts";

/**
 * What an action link does (docs/decisions/011-owner-notifications.md): true
 * when it changed the comment (a held one now shows, or it is gone), false
 * when there was nothing to do. The owner's own actions, given where the app
 * is assembled, which audit them as the command line's are; `claim` takes
 * the link in the action's own transaction, so both commit or neither does.
 */
export type CommentActions = Record<
  CommentAction,
  (actor: OwnerActor, commentId: number) => Promise<boolean>
>;

/** A burst of comments still makes a mail one can read; the rest are counted, for `comments list`. */
const digestEntriesMax = 100;

const mailPayload = z.object({ commentId: z.number(), state: z.enum(["created", "held"]) });
const mailPayloadOf = (raw: string | null): MailPayload | null => jsonOf(raw, mailPayload);

/** A webhook row's payload, or null when it is not one. */
export const webhookPayloadOf = (raw: string | null): WebhookPayload | null =>
  jsonOf(raw, mailPayload.extend({ occurredAt: z.string() }));

export async function commentsById(
  db: Kysely<Database>,
  ids: number[],
): Promise<Map<number, NotifiedComment>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("science_comments")
    .select(["id", "post_id", "content", "user_name", "created_at"])
    .where("id", "in", ids)
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        postId: row.post_id,
        content: row.content,
        userName: row.user_name,
        createdAt: toIso(row.created_at),
      },
    ]),
  );
}

/**
 * The owner's mails for the outbox worker: `comment_notice` (one comment) and
 * `comment_digest` (every comment of the hour, claimed as one batch). The
 * comment is read when the mail is written, so an edit shows and a comment
 * deleted meanwhile is left out; the action links are minted then too, so
 * their tokens never rest in the outbox.
 */
export function notificationComposers({
  tokens,
  titles,
  siteUrl,
}: {
  tokens: ActionTokens;
  titles: ReadonlyMap<string, string>;
  siteUrl: string;
}): Partial<Record<OutboxKind, ComposeMail>> {
  async function entryFor(comment: NotifiedComment, state: CommentState): Promise<NoticeEntry> {
    const link = async (action: CommentAction) =>
      actionUrl(siteUrl, comment.id, action, await tokens.mint(comment.id, action));
    const links: NoticeEntry["links"] = {};
    if (state === "held") links.approve = await link("approve");
    links.delete = await link("delete");
    return {
      comment,
      state,
      postTitle: titles.get(comment.postId) ?? comment.postId,
      postUrl: postUrl(siteUrl, comment.postId),
      links,
    };
  }

  return {
    async comment_notice(row, db) {
      const payload = mailPayloadOf(row.payload);
      if (!payload || !row.email) return { outcome: "failed", reason: "a malformed notification" };
      const comment = (await commentsById(db, [payload.commentId])).get(payload.commentId);
      if (!comment) {
        return { outcome: "cancelled", reason: "the comment was deleted before the mail went out" };
      }
      return noticeMail(row.email, await entryFor(comment, payload.state));
    },

    async comment_digest(row, db, batch) {
      if (!row.email) return { outcome: "failed", reason: "a malformed notification" };
      const payloads = batch
        .map((member) => mailPayloadOf(member.payload))
        .filter((payload) => payload !== null);
      const comments = await commentsById(
        db,
        payloads.map((payload) => payload.commentId),
      );
      const present = payloads
        .toSorted((a, b) => a.commentId - b.commentId)
        .filter((payload) => comments.has(payload.commentId));
      if (present.length === 0) {
        return { outcome: "cancelled", reason: "the comments were deleted before the digest" };
      }
      const entries: NoticeEntry[] = [];
      for (const payload of present.slice(0, digestEntriesMax)) {
        entries.push(
          await entryFor(comments.get(payload.commentId) as NotifiedComment, payload.state),
        );
      }
      return digestMail(row.email, entries, {
        deleted: batch.length - present.length,
        more: present.length - entries.length,
      });
    },
  };
}
