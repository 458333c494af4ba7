import type { ConsoleMention, ShownMention } from "../../contract/fediverse.ts";
import { startsWith } from "../db/columns.ts";
import type { Store } from "../db/store.ts";

/** A stored mention's columns as an item shows it. */
const shown = [
  "id",
  "kind",
  "author_name as authorName",
  "author_url as authorUrl",
  "content",
  "source",
] as const;

/**
 * The mentions as stored: what an item shows, the owner's list, approving
 * and removing (all the command line needs). `changed`: an item shows
 * something else now, after an account's mentions went (approving and
 * removing one leave that to the owner's action, after its commit).
 */
export function mentionRecords(store: Store, changed: (itemPath: string) => void = () => {}) {
  const { db } = store;
  return {
    /** The published mentions of an item, oldest first. */
    async publishedFor(path: string): Promise<ShownMention[]> {
      return db
        .selectFrom("webmentions")
        .select(shown)
        .where("path", "=", path)
        .where("status", "=", "published")
        .orderBy("id")
        .limit(200)
        .execute();
    },

    /** Every mention, newest first, for the owner. */
    async list(): Promise<ConsoleMention[]> {
      const rows = await db
        .selectFrom("webmentions")
        .select([...shown, "target", "path", "status", "received_at"])
        .orderBy("id", "desc")
        .limit(500)
        .execute();
      return rows.map(({ received_at, ...row }) => ({
        ...row,
        receivedAt: new Date(received_at).toISOString(),
      }));
    },

    /**
     * Publishes a verified mention waiting for the owner, in `within`: the
     * item it shows under now, or undefined when none waits by that id.
     */
    async approve(id: number, within = db): Promise<string | undefined> {
      const row = await within
        .updateTable("webmentions")
        .set({ status: "published" })
        .where("id", "=", id)
        .where("status", "=", "pending")
        .returning("path")
        .executeTakeFirst();
      return row?.path;
    },

    /**
     * Deletes every mention an account sent: written by one of `authors`
     * (addresses) or from a page under one of `sources` (prefixes ending in
     * "/"); returns how many.
     */
    async removeFrom(authors: string[], sources: string[]): Promise<number> {
      if (authors.length === 0 && sources.length === 0) return 0;
      const rows = await db
        .deleteFrom("webmentions")
        .where((eb) =>
          eb.or([
            ...(authors.length > 0 ? [eb("author_url", "in", authors)] : []),
            ...sources.map((prefix) => startsWith("source", prefix)),
          ]),
        )
        .returning(["path", "status"])
        .execute();
      for (const path of new Set(
        rows.filter((row) => row.status === "published").map((row) => row.path),
      )) {
        changed(path);
      }
      return rows.length;
    },

    /**
     * Deletes a mention, whatever its state, in `within`: its item and whether
     * it showed there, or undefined when there is none by that id.
     */
    async remove(id: number, within = db) {
      return within
        .deleteFrom("webmentions")
        .where("id", "=", id)
        .returning(["path", "status"])
        .executeTakeFirst();
    },
  };
}
