import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";

/**
 * Comments as conversations: each comment keeps the HTML its Markdown renders
 * to (null on comments written before, which are rendered when read), the
 * comment it answers (null: it starts a thread), and when it was deleted
 * while replies still hung under it (it then keeps neither name nor text, only
 * its place).
 */
export function commentThreads(kind: DatabaseKind): Migration {
  const timestamp = kind === "sqlite" ? "text" : "timestamptz";
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("science_comments").addColumn("content_html", "text").execute();
      await db.schema.alterTable("science_comments").addColumn("parent_id", "integer").execute();
      await db.schema
        .alterTable("science_comments")
        .addColumn("deleted_at", sql.raw(timestamp))
        .execute();
      await db.schema
        .createIndex("science_comments_by_parent")
        .on("science_comments")
        .columns(["parent_id", "created_at", "id"])
        .execute();
    },
  };
}
