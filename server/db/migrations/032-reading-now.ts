import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * Raw views and visits keep no time finer than their day: a view's time to
 * the millisecond, or a visit's start, a minute before an enquiry (whose time
 * is kept) named its sender's hash, and through it the visit's country,
 * device, entry page and source. "Reading now" reads `reader_now` instead:
 * the readers seen in the last 30 minutes, a row per reader and write, each
 * deleted once its 30 minutes are over. This text is frozen once shipped.
 */
export function readingNow(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("reader_now")
        .addColumn("reader", "text", (c) => c.notNull())
        .addColumn("at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema.createIndex("reader_now_by_at").on("reader_now").column("at").execute();
      await db.schema.dropIndex("reader_views_by_at").execute();
      await db.schema.alterTable("reader_views").dropColumn("at").execute();
      await db.schema.alterTable("reader_visits").dropColumn("started_at").execute();
    },
  };
}
