import { z } from "zod";
import { timestampSchema } from "./api.ts";
import { listPageFields, nextPageSchema } from "./list-pages.ts";

/*
 * The console's Followers screen (docs/fediverse.md): who follows the site on
 * the Fediverse, what is blocked, and the webmentions other sites sent.
 */

const consoleFollowerSchema = z.object({
  /** The account's address, which a block of the account takes. */
  actorId: z.string(),
  handle: z.string(),
  name: z.string().nullable(),
  followedAt: timestampSchema,
});
export type ConsoleFollower = z.infer<typeof consoleFollowerSchema>;

/** `GET /admin/followers?after=&limit=`: a page of the followers, newest first. */
export const followersQuerySchema = z.strictObject(listPageFields);

export const followersResponseSchema = z.object({
  followers: z.array(consoleFollowerSchema),
  next: nextPageSchema,
  /** Every account that follows the site, not only this page's. */
  total: z.number().int().nonnegative(),
  /** Accounts (their address) and servers (their host name) blocked, newest first. */
  blocks: z.array(z.object({ target: z.string(), blockedAt: timestampSchema })),
});

/** An account's address (https://…) or a server's host name (mastodon.social). */
export const blockRequestSchema = z.strictObject({
  target: z.string().trim().min(1, "Name an account or a server.").max(2000),
});

/** Erase a Fediverse account: by its address, or by a comment it wrote. */
export const eraseRequestSchema = z.union([
  z.strictObject({
    actor: z.string().trim().min(1, "Name an account by its address.").max(2000),
  }),
  z.strictObject({ commentId: z.number().int().positive().max(2_147_483_647) }),
]);

/** What erasing an account took away; it stays blocked. */
export const eraseResponseSchema = z.object({
  actorId: z.string(),
  comments: z.number().int(),
  followed: z.boolean(),
  reactions: z.number().int(),
  mentions: z.number().int(),
});

const consoleMentionSchema = z.object({
  id: z.number(),
  kind: z.enum(["mention", "reply", "like", "repost"]),
  authorName: z.string().nullable(),
  authorUrl: z.string().nullable(),
  content: z.string().nullable(),
  source: z.string(),
  target: z.string(),
  path: z.string(),
  /** unverified: not checked yet; pending: verified, waiting for the owner; published: shown. */
  status: z.enum(["unverified", "pending", "published"]),
  receivedAt: timestampSchema,
});
export type ConsoleMention = z.infer<typeof consoleMentionSchema>;
/** A mention as an item's page shows it. */
export type ShownMention = Omit<ConsoleMention, "target" | "path" | "status" | "receivedAt">;
export const mentionsResponseSchema = z.object({ mentions: z.array(consoleMentionSchema) });

export type FediverseEndpoints = {
  "GET /admin/followers": {
    query?: z.input<typeof followersQuerySchema>;
    response: z.infer<typeof followersResponseSchema>;
  };
  "POST /admin/fediverse/block": { body: z.input<typeof blockRequestSchema>; response: undefined };
  "POST /admin/fediverse/erase": {
    body: z.input<typeof eraseRequestSchema>;
    response: z.infer<typeof eraseResponseSchema>;
  };
  "POST /admin/fediverse/unblock": {
    body: z.input<typeof blockRequestSchema>;
    response: undefined;
  };
  "GET /admin/webmentions": { response: z.infer<typeof mentionsResponseSchema> };
  "POST /admin/webmentions/:id/approve": { params: { id: number }; response: undefined };
  "DELETE /admin/webmentions/:id": { params: { id: number }; response: undefined };
};
