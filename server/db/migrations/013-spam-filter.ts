import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * The spam filter's memory (docs/decisions/025-spam-that-learns.md): the
 * owner's decisions as training examples, and what the filter did with each
 * comment and why. Neither refers to the comment by a foreign key: a
 * rejected comment is deleted, and what the owner taught with it stays.
 */
export function spamFilter(kind: DatabaseKind): Migration {
  const { identity, timestamp, bigId } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("spam_examples")
        .addColumn("id", bigId, identity)
        .addColumn("comment_id", "integer")
        .addColumn("label", "text", (c) => c.notNull().check(sql`label in ('spam', 'ham')`))
        .addColumn("source", "text", (c) =>
          c.notNull().check(sql`source in ('approve', 'publish', 'reject', 'spam', 'ban')`),
        )
        .addColumn("content", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("spam_examples_by_comment")
        .on("spam_examples")
        .column("comment_id")
        .execute();
      await db.schema
        .createTable("spam_screening")
        .addColumn("comment_id", "integer", (c) => c.primaryKey())
        .addColumn("outcome", "text", (c) =>
          c.notNull().check(sql`outcome in ('published', 'pending', 'spam')`),
        )
        .addColumn("reason", "text")
        .addColumn("score", "real")
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
    },
  };
}
