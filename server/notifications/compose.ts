import type { Kysely } from "kysely";
import { z } from "zod";
import type { NotifiedComment } from "../comments/notifier.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import type { CommentAction, CommentStatus, Database } from "../db/schema.ts";
import { jsonOf } from "../lib/json.ts";
import { toIso } from "../lib/time.ts";
import type { MailPayload, WebhookPayload } from "./notifier.ts";

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

const mailPayload = z.object({ commentId: z.number(), state: z.enum(["created", "held"]) });
/** A notice's or a digest line's payload, or null when it is not one. */
export const mailPayloadOf = (raw: string | null): MailPayload | null => jsonOf(raw, mailPayload);

/** A webhook row's payload, or null when it is not one. */
export const webhookPayloadOf = (raw: string | null): WebhookPayload | null =>
  jsonOf(raw, mailPayload.extend({ occurredAt: z.string() }));

export async function commentsById(
  db: Kysely<Database>,
  ids: number[],
): Promise<Map<number, NotifiedComment & { status: CommentStatus }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("science_comments")
    .select(["id", "post_id", "content", "user_name", "created_at", "status"])
    .where("id", "in", ids)
    // A deleted comment whose replies stand keeps its place without name or text: gone here too.
    .where("deleted_at", "is", null)
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
        status: row.status,
      },
    ]),
  );
}
