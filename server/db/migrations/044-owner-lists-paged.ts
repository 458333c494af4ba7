import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * Indexes for the owner's lists that read every row on each visit:
 * - the suppressed addresses and the Fediverse followers by time and key,
 *   the order their pages come in, newest first, each page from where the
 *   last ended (server/db/list-pages.ts);
 * - the comments not deleted, by status: the Comments screen's counts per
 *   tab, the nav's badge and the overview's, counted from this index alone
 *   (it names `deleted_at` too, or SQLite reads each row to check it). Its
 *   condition names the three statuses, as the counts do: SQLite takes a
 *   partial index only for a statement that states its condition, so no
 *   other statement on the comments, which test one status, moves to it.
 * This text is frozen once shipped.
 */
export function ownerListsPaged(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex("suppressions_by_time")
        .on("suppressions")
        .columns(["created_at", "email"])
        .execute();
      await db.schema
        .createIndex("fediverse_followers_by_time")
        .on("fediverse_followers")
        .columns(["created_at", "actor_id"])
        .execute();
      await db.schema
        .createIndex("science_comments_counted")
        .on("science_comments")
        .columns(["status", "deleted_at"])
        .where(sql<boolean>`deleted_at is null and status in ('pending', 'published', 'spam')`)
        .execute();
    },
  };
}
