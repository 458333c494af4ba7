import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * The questions readers ask the site's assistant (docs/product.md, "Chat with
 * Me"), for the owner's "Questions" screen: the question, whether the site
 * answered it and from which page or service, whether a model wrote the
 * answer, and the reader's thumbs up or down. Nothing that tells who asked:
 * no name, address, visitor or IP. Kept for a retention period, then deleted.
 */
export function assistantQuestions(kind: DatabaseKind): Migration {
  const { identity, timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("assistant_questions")
        .addColumn("id", "integer", identity)
        .addColumn("question", "text", (c) => c.notNull())
        .addColumn("known", "integer", (c) => c.notNull())
        .addColumn("page", "text")
        .addColumn("service", "text")
        .addColumn("written", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("helpful", "integer")
        .addColumn("asked_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("assistant_questions_by_time")
        .on("assistant_questions")
        .column("asked_at")
        .execute();
    },
  };
}
