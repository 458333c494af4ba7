import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * Indexes for the lookups a visitor, a webhook, the Fediverse or the owner
 * sets off that read a whole table without them:
 * - the outbox by address, in lower case as queried (a provider's report,
 *   an address's removal), and by token (a reply mail's stop link);
 * - comments by address and time (the spam defences' texts sent since), and
 *   by post, thread and visitor each with their status: without the status
 *   SQLite, which keeps no statistics, read them by status alone, every
 *   published comment (a post's count, its threads' replies, whether a
 *   visitor was approved); and by time, for the console's newest first;
 * - reactions by visitor ("Your data"), remote replies and reactions by
 *   actor (a Delete of that actor).
 * This text is frozen once shipped.
 */
export function lookupsByIndex(): Migration {
  const indexes: [name: string, table: string, columns: string[]][] = [
    ["outbox_by_token", "outbox", ["token"]],
    ["science_comments_by_ip", "science_comments", ["ip_hash", "created_at"]],
    ["science_comments_by_post_status", "science_comments", ["post_id", "status"]],
    ["science_comments_by_parent_status", "science_comments", ["parent_id", "status"]],
    ["science_comments_by_visitor_status", "science_comments", ["visitor_id", "status"]],
    ["science_comments_by_time", "science_comments", ["created_at", "id"]],
    ["science_reactions_by_visitor", "science_reactions", ["visitor_id"]],
    ["mythology_reactions_by_visitor", "mythology_reactions", ["visitor_id"]],
    ["fediverse_replies_by_actor", "fediverse_replies", ["actor_id"]],
    ["fediverse_reactions_by_actor", "fediverse_reactions", ["actor_id"]],
  ];
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex("outbox_by_email")
        .on("outbox")
        .expression(sql`lower(email)`)
        .execute();
      for (const [name, table, columns] of indexes) {
        await db.schema.createIndex(name).on(table).columns(columns).execute();
      }
    },
  };
}
