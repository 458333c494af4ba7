import { z } from "zod";
import { commentSchema, itemKindSchema, reactionCountsSchema } from "./api.ts";
import type { ItemEventName } from "./event-names.ts";
import type { ItemKind } from "./limits.ts";

/*
 * Server-Sent Events of `GET /api/events?topic=<kind>:<id>`. Every event but
 * `resync` carries an `id:`; EventSource sends the last one back as
 * Last-Event-ID when it reconnects and the server replays what was missed.
 */

type Topic = `${ItemKind}:${string}`;

export function topicOf(kind: ItemKind, id: string): Topic {
  return `${kind}:${id}`;
}

const itemRefSchema = z.object({ kind: itemKindSchema, id: z.string() });

/** `reaction`: the item's counts after someone added or removed a reaction. */
const reactionEventSchema = z.object({
  item: itemRefSchema,
  counts: reactionCountsSchema,
});
export type ReactionEvent = z.infer<typeof reactionEventSchema>;

/** A comment as seen by everyone: who wrote it is not the receiver's business. */
const liveCommentSchema = commentSchema.omit({ mine: true, awaitingApproval: true });
export type LiveComment = z.infer<typeof liveCommentSchema>;

/**
 * `comment`: a comment was added (or approved), edited or deleted; `held`: an
 * edited comment went back to waiting for the owner (MODERATION=all), so it
 * leaves every page but its writer's, where it shows as awaiting approval.
 */
export const commentEventSchema = z.discriminatedUnion("action", [
  z.object({
    action: z.enum(["added", "updated"]),
    item: itemRefSchema,
    commentId: z.number().int().positive(),
    comment: liveCommentSchema,
  }),
  z.object({
    action: z.enum(["deleted", "held"]),
    item: itemRefSchema,
    commentId: z.number().int().positive(),
  }),
]);
export type CommentEvent = z.infer<typeof commentEventSchema>;

/**
 * What each event about an item carries, by its name (event-names.ts); a name
 * added there without a schema here is a type error.
 */
export const itemEventSchemas = {
  reaction: reactionEventSchema,
  comment: commentEventSchema,
} satisfies { [name in ItemEventName]: z.ZodType };
export type ItemEventPayloads = {
  [name in ItemEventName]: z.infer<(typeof itemEventSchemas)[name]>;
};
