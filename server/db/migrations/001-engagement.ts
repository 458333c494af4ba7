import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

// The reaction types as they were when this migration shipped: frozen text, never
// today's list. A new type is a new migration.
const reactionTypeList = sql.raw("'like', 'love', 'dislike', 'idea'");

export function engagementTables(kind: DatabaseKind): Migration {
  const { identity, timestamp, bigId } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("subscribers")
        .addColumn("id", "integer", identity)
        .addColumn("email", "text", (c) => c.notNull())
        .addColumn("unsubscribe_token", "text", (c) => c.notNull().unique())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("subscribers_email_key")
        .on("subscribers")
        .unique()
        .expression(sql`lower(email)`)
        .execute();

      for (const [table, itemColumn] of [
        ["mythology_reactions", "story_id"],
        ["science_reactions", "post_id"],
      ] as const) {
        await db.schema
          .createTable(table)
          .addColumn("id", "integer", identity)
          .addColumn(itemColumn, "text", (c) => c.notNull())
          .addColumn("type", "text", (c) => c.notNull().check(sql`type in (${reactionTypeList})`))
          .addColumn("user_name", "text", (c) => c.notNull())
          .addColumn("visitor_id", "text", (c) => c.notNull())
          .addColumn("created_at", timestamp, (c) => c.notNull())
          // One reaction of a type per visitor and item: double clicks and races
          // end here. The index also serves the per-item counts.
          .addUniqueConstraint(`${table}_one_per_visitor`, [itemColumn, "type", "visitor_id"])
          .execute();
      }

      await db.schema
        .createTable("science_comments")
        .addColumn("id", "integer", identity)
        .addColumn("post_id", "text", (c) => c.notNull())
        .addColumn("content", "text", (c) => c.notNull())
        .addColumn("user_name", "text", (c) => c.notNull())
        .addColumn("visitor_id", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addColumn("updated_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("science_comments_by_post")
        .on("science_comments")
        .columns(["post_id", "created_at", "id"])
        .execute();

      await db.schema
        .createTable("events")
        .addColumn("id", bigId, identity)
        .addColumn("topic", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("data", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("events_by_topic")
        .on("events")
        .columns(["topic", "id"])
        .execute();
      await db.schema.createIndex("events_by_age").on("events").column("created_at").execute();
    },
  };
}
