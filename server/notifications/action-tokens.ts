import type { Kysely } from "kysely";
import type { CommentAction, Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { dayMs } from "../lib/time.ts";
import { isToken, newToken, tokenDigest } from "../lib/tokens.ts";

/** How long an action link in a notification mail works. */
export const actionLinkLifetimeMs = 7 * dayMs;

/** Used and expired links are kept this long past their expiry, so a late click still hears why. */
const keepAfterExpiryMs = 7 * dayMs;

export type TokenState = "valid" | "used" | "expired" | "unknown";

/**
 * The one-time links of the owner's notification mails
 * (docs/decisions/011-owner-notifications.md). A token is 32 random bytes;
 * only its SHA-256 is stored, looked up by digest, so a copy of the database
 * acts on nothing. Each is bound to one action on one comment, works once and
 * expires. A link that does not match the comment and action of its address
 * is as unknown as a made-up one.
 */
export function createActionTokens(store: Store, clock: () => Date = () => new Date()) {
  const { db } = store;

  async function stateOf(
    token: string,
    commentId: number,
    action: CommentAction,
  ): Promise<TokenState> {
    if (!isToken(token)) return "unknown";
    const row = await db
      .selectFrom("comment_action_tokens")
      .select(["expires_at", "used_at"])
      .where("token_hash", "=", tokenDigest(token))
      .where("comment_id", "=", commentId)
      .where("action", "=", action)
      .executeTakeFirst();
    if (!row) return "unknown";
    if (row.used_at !== null) return "used";
    return new Date(row.expires_at).getTime() <= clock().getTime() ? "expired" : "valid";
  }

  return {
    /**
     * A new link's token for `action` on `commentId`, stored (hashed) and
     * committed at once, outside any transaction of the outbox: the link
     * must work the moment the mail arrives. A mail that then fails leaves
     * links nobody holds, which expire.
     */
    async mint(commentId: number, action: CommentAction): Promise<string> {
      const token = newToken();
      const now = clock();
      await db
        .insertInto("comment_action_tokens")
        .values({
          token_hash: tokenDigest(token),
          comment_id: commentId,
          action,
          expires_at: new Date(now.getTime() + actionLinkLifetimeMs).toISOString(),
          created_at: now.toISOString(),
        })
        .execute();
      return token;
    },

    /** What following the link would do now; changes nothing. */
    inspect: stateOf,

    /**
     * Uses the link, in `within` (the action's transaction): "valid" when this
     * call took it (nobody else can any more), otherwise why it cannot be used.
     */
    async claim(
      token: string,
      commentId: number,
      action: CommentAction,
      within: Kysely<Database>,
    ): Promise<TokenState> {
      if (!isToken(token)) return "unknown";
      const now = clock().toISOString();
      const taken = await within
        .updateTable("comment_action_tokens")
        .set({ used_at: now })
        .where("token_hash", "=", tokenDigest(token))
        .where("comment_id", "=", commentId)
        .where("action", "=", action)
        .where("used_at", "is", null)
        .where("expires_at", ">", now)
        .returning("token_hash")
        .executeTakeFirst();
      return taken ? "valid" : stateOf(token, commentId, action);
    },

    async prune(): Promise<void> {
      await db
        .deleteFrom("comment_action_tokens")
        .where("expires_at", "<=", new Date(clock().getTime() - keepAfterExpiryMs).toISOString())
        .execute();
    },
  };
}

export type ActionTokens = ReturnType<typeof createActionTokens>;
