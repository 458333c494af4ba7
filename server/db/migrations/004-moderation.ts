import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * Moderation and spam defences (docs/decisions/010-moderation-and-spam.md):
 * a comment's status (published, held for the owner, or caught by the
 * honeypot), an HMAC of the address it was written from (for bans), the
 * visitors the owner has approved, and the owner's bans. Comments written
 * before it are published.
 */
export function moderation(kind: DatabaseKind): Migration {
  const { identity, timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("science_comments")
        .addColumn("status", "text", (c) =>
          c.notNull().defaultTo("published").check(sql`status in ('published', 'pending', 'spam')`),
        )
        .execute();
      await db.schema.alterTable("science_comments").addColumn("ip_hash", "text").execute();
      await db.schema
        .createIndex("science_comments_by_visitor")
        .on("science_comments")
        .columns(["visitor_id", "created_at"])
        .execute();
      await db.schema
        .createIndex("science_comments_by_status")
        .on("science_comments")
        .columns(["status", "id"])
        .execute();

      await db.schema
        .createTable("approved_visitors")
        .addColumn("visitor_id", "text", (c) => c.primaryKey())
        .addColumn("approved_at", timestamp, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("bans")
        .addColumn("id", "integer", identity)
        .addColumn("visitor_id", "text")
        .addColumn("ip_hash", "text")
        .addColumn("comment_id", "integer")
        .addColumn("created_at", timestamp, (c) => c.notNull())
        // Null: until lifted.
        .addColumn("expires_at", timestamp)
        .addColumn("lifted_at", timestamp)
        .execute();
      await db.schema.createIndex("bans_by_visitor").on("bans").column("visitor_id").execute();
      await db.schema.createIndex("bans_by_ip").on("bans").column("ip_hash").execute();
    },
  };
}
