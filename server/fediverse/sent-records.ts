import { createHash } from "node:crypto";
import type { Store } from "../db/store.ts";
import { statementParts } from "../lib/parts.ts";
import { nowIso } from "../lib/time.ts";

/* What the site last sent its followers' servers (`fediverse_published`), and its keys' digest. */

/**
 * Where `fediverse_published` records the account as its followers' servers
 * were last sent it (its profile and public keys), beside the items' paths.
 */
export const accountPath = "/fediverse/account";

/**
 * Where `fediverse_published` records an owner's reply sent to a Fediverse
 * writer; its digest is the Note it answered and, since replies could be taken
 * back, the writer's account after a space, and the time of its last edit
 * sent. Deleted, or its writer erased, the digest is emptied: the record of a
 * tombstone keeps nothing of whom the reply answered.
 */
export const notePath = (commentId: number) => `/notes/${commentId}`;

/** Whether a path of `fediverse_published` is an item's (`/section/slug`), not an owner's reply's or the account's. */
export const isItemPath = (path: string) =>
  /^\/[^/]+\/[^/]/.test(path) && !path.startsWith("/notes/") && path !== accountPath;

export function createSentRecords({ db }: Store) {
  return {
    /** Every item as last sent, by path. */
    async published(): Promise<Map<string, { digest: string; deleted: boolean }>> {
      const rows = await db.selectFrom("fediverse_published").selectAll().execute();
      return new Map(
        rows.map((row) => [row.path, { digest: row.digest, deleted: row.deleted_at !== null }]),
      );
    },

    /** What `path` was last sent as, when it was sent, and when it was deleted (or null). */
    async sent(path: string) {
      const row = await db
        .selectFrom("fediverse_published")
        .select(["digest", "deleted_at"])
        .where("path", "=", path)
        .executeTakeFirst();
      const deletedAt = row?.deleted_at ? new Date(row.deleted_at).toISOString() : null;
      return row && { digest: row.digest, deleted: deletedAt !== null, deletedAt };
    },

    /** Which of these comments are the owner's replies sent to the Fediverse and not taken back. */
    async notesStillSent(commentIds: readonly number[]): Promise<number[]> {
      const found: number[] = [];
      for (const part of statementParts(commentIds)) {
        const paths = part.map(notePath);
        const rows = await db
          .selectFrom("fediverse_published")
          .select("path")
          .where("path", "in", paths)
          .where("deleted_at", "is", null)
          .execute();
        found.push(...rows.map((row) => Number(row.path.slice("/notes/".length))));
      }
      return found;
    },

    /**
     * The owner's comments under these items (by path): their answers sent as
     * Notes leave the Fediverse with the item. Readers comment under science
     * posts alone, so no other item has any.
     */
    async ownerCommentsUnder(itemPaths: readonly string[]): Promise<number[]> {
      const science = "/science/";
      const slugs = itemPaths.filter((path) => path.startsWith(science));
      const ids: number[] = [];
      for (const part of statementParts(slugs.map((path) => path.slice(science.length)))) {
        const rows = await db
          .selectFrom("science_comments")
          .select("id")
          .where("post_id", "in", part)
          .where("by_owner", "=", 1)
          .execute();
        ids.push(...rows.map((row) => row.id));
      }
      return ids;
    },

    /**
     * Records that `path` was sent as `digest` (or deleted); false when
     * another instance recorded exactly this first, so only one sends it.
     */
    async recordPublished(path: string, digest: string, deleted = false): Promise<boolean> {
      const now = nowIso();
      return db.transaction().execute(async (trx) => {
        const before = await trx
          .selectFrom("fediverse_published")
          .select(["digest", "deleted_at"])
          .where("path", "=", path)
          .executeTakeFirst();
        if (!before) {
          const inserted = await trx
            .insertInto("fediverse_published")
            .values({ path, digest, published_at: now, updated_at: now })
            .onConflict((conflict) => conflict.column("path").doNothing())
            .returning("path")
            .executeTakeFirst();
          return inserted !== undefined;
        }
        // Recorded so already (by another instance, or before a move): sent once is enough.
        if (before.digest === digest && (before.deleted_at !== null) === deleted) return false;
        const changed = await trx
          .updateTable("fediverse_published")
          .set({ digest, updated_at: now, deleted_at: deleted ? now : null })
          .where("path", "=", path)
          .where("digest", "=", before.digest)
          .where("deleted_at", before.deleted_at === null ? "is" : "=", before.deleted_at)
          .executeTakeFirst();
        return Number(changed.numUpdatedRows) > 0;
      });
    },

    /**
     * A digest of the account as other servers keep it: `facts` (its address,
     * handle and profile) and its public keys; null while it has no keys yet.
     */
    async accountDigest(facts: unknown): Promise<string | null> {
      const keys = await db
        .selectFrom("fediverse_keys")
        .select(["algorithm", "public_jwk"])
        .orderBy("algorithm")
        .execute();
      if (keys.length === 0) return null;
      return createHash("sha256")
        .update(JSON.stringify({ facts, keys: keys.map((key) => [key.algorithm, key.public_jwk]) }))
        .digest("hex");
    },

    /** Deletes the account's key pairs (new ones are made on first use); how many went. */
    async forgetKeys(within = db): Promise<number> {
      const result = await within.deleteFrom("fediverse_keys").executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
