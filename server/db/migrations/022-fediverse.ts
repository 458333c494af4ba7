import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * The site on the open social web (docs/fediverse.md): Fedify's key-value
 * store and message queue, the site actor's keys, its followers and the
 * servers or accounts the owner blocked, what has been published and in
 * which version, replies that became comments, likes and boosts, and
 * webmentions received and sent.
 */
export function fediverse(kind: DatabaseKind): Migration {
  const { identity, timestamp, bigId } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("fediverse_kv")
        .addColumn("key", "text", (c) => c.primaryKey())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("expires_at", timestamp)
        .execute();
      await db.schema
        .createTable("fediverse_queue")
        .addColumn("id", bigId, (c) => identity(c))
        .addColumn("message", "text", (c) => c.notNull())
        .addColumn("ordering_key", "text")
        .addColumn("due_at", timestamp, (c) => c.notNull())
        .addColumn("taken_until", timestamp)
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("fediverse_queue_due")
        .on("fediverse_queue")
        .columns(["due_at", "id"])
        .execute();
      await db.schema
        .createTable("fediverse_keys")
        .addColumn("algorithm", "text", (c) => c.primaryKey())
        .addColumn("private_jwk", "text", (c) => c.notNull())
        .addColumn("public_jwk", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("fediverse_followers")
        .addColumn("actor_id", "text", (c) => c.primaryKey())
        .addColumn("handle", "text", (c) => c.notNull())
        .addColumn("name", "text")
        .addColumn("inbox", "text", (c) => c.notNull())
        .addColumn("shared_inbox", "text")
        .addColumn("follow_id", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("fediverse_blocks")
        .addColumn("target", "text", (c) => c.primaryKey())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("fediverse_published")
        .addColumn("path", "text", (c) => c.primaryKey())
        .addColumn("digest", "text", (c) => c.notNull())
        .addColumn("published_at", timestamp, (c) => c.notNull())
        .addColumn("updated_at", timestamp, (c) => c.notNull())
        .addColumn("deleted_at", timestamp)
        .execute();
      await db.schema
        .createTable("fediverse_replies")
        .addColumn("comment_id", "integer", (c) => c.primaryKey())
        .addColumn("note_id", "text", (c) => c.notNull().unique())
        .addColumn("actor_id", "text", (c) => c.notNull())
        .addColumn("handle", "text", (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("avatar", "text")
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("fediverse_reactions")
        .addColumn("activity_id", "text", (c) => c.primaryKey())
        .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('like', 'announce')`))
        .addColumn("path", "text", (c) => c.notNull())
        .addColumn("actor_id", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("fediverse_reactions_by_path")
        .on("fediverse_reactions")
        .column("path")
        .execute();
      await db.schema
        .createTable("webmentions")
        .addColumn("id", "integer", (c) => identity(c))
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("target", "text", (c) => c.notNull())
        .addColumn("path", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) =>
          c.notNull().check(sql`status in ('unverified', 'pending', 'published')`),
        )
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("author_name", "text")
        .addColumn("author_url", "text")
        .addColumn("content", "text")
        .addColumn("received_at", timestamp, (c) => c.notNull())
        .addColumn("verified_at", timestamp)
        .addUniqueConstraint("webmentions_source_target", ["source", "target"])
        .execute();
      await db.schema
        .createIndex("webmentions_by_path")
        .on("webmentions")
        .columns(["path", "status"])
        .execute();
      await db.schema
        .createTable("webmentions_sent")
        .addColumn("path", "text", (c) => c.notNull())
        .addColumn("target", "text", (c) => c.notNull())
        .addColumn("outcome", "text", (c) => c.notNull())
        .addColumn("sent_at", timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint("webmentions_sent_key", ["path", "target"])
        .execute();
    },
  };
}
