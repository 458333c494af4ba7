import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * Indexes for the owner's lists that sorted every row of a kind to show a
 * page without them:
 * - the comments not published by status and time (the console's held queue
 *   and spam tabs). Partial: as a whole index SQLite, which keeps no
 *   statistics, would read a post's published comments and their replies
 *   by it, every published comment, rather than by post or thread;
 * - subscribers by time (the console's newest addresses, and those matching
 *   a search).
 * This text is frozen once shipped.
 */
export function ownerListsByIndex(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex("science_comments_unpublished_by_time")
        .on("science_comments")
        .columns(["status", "created_at", "id"])
        .where("status", "!=", "published")
        .execute();
      await db.schema
        .createIndex("subscribers_by_time")
        .on("subscribers")
        .columns(["created_at", "id"])
        .execute();
    },
  };
}
