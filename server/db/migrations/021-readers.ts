import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * Readership counted without cookies (docs/decisions/044-readers-without-cookies.md).
 * Nothing here holds an IP address, a user agent or a cookie: a reader is a
 * hash made with the day's salt, which is deleted when the day is over.
 *
 * - reader_salts: the salt of each day still counting; one row, today's.
 * - reader_visits: a reader's first counted view of a day (their entry page
 *   and source, country and device), one per (day, reader).
 * - reader_views: every counted view, kept ANALYTICS_RAW_DAYS.
 * - reader_reads: an engaged read of an article, one per (day, reader, path).
 * - reader_conversions: a subscription, enquiry, booking, comment or question,
 *   joined to the reader's visit of that day for its entry page and source.
 * - reader_days and reader_conversion_days: each finished day rolled up, kept
 *   for good; reader_rollups marks a day rolled up, once.
 */
export function readers(kind: DatabaseKind): Migration {
  const { identity, timestamp, bigId } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("reader_salts")
        .addColumn("day", "text", (c) => c.primaryKey())
        .addColumn("salt", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("reader_visits")
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("reader", "text", (c) => c.notNull())
        .addColumn("started_at", timestamp, (c) => c.notNull())
        .addColumn("entry_path", "text", (c) => c.notNull())
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("medium", "text", (c) => c.notNull())
        .addColumn("campaign", "text", (c) => c.notNull())
        .addColumn("country", "text", (c) => c.notNull())
        .addColumn("device", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("reader_visits_pk", ["day", "reader"])
        .execute();
      await db.schema
        .createTable("reader_views")
        .addColumn("id", bigId, identity)
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("at", timestamp, (c) => c.notNull())
        .addColumn("reader", "text", (c) => c.notNull())
        .addColumn("path", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("reader_views_by_day_path")
        .on("reader_views")
        .columns(["day", "path", "reader"])
        .execute();
      await db.schema.createIndex("reader_views_by_at").on("reader_views").column("at").execute();
      await db.schema
        .createTable("reader_reads")
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("reader", "text", (c) => c.notNull())
        .addColumn("path", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("reader_reads_pk", ["day", "path", "reader"])
        .execute();
      await db.schema
        .createTable("reader_conversions")
        .addColumn("id", bigId, identity)
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("at", timestamp, (c) => c.notNull())
        .addColumn("reader", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("reader_conversions_by_day")
        .on("reader_conversions")
        .columns(["day", "reader"])
        .execute();
      await db.schema
        .createTable("reader_days")
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("dimension", "text", (c) => c.notNull())
        .addColumn("value", "text", (c) => c.notNull())
        .addColumn("views", "integer", (c) => c.notNull())
        .addColumn("visitors", "integer", (c) => c.notNull())
        .addColumn("engaged", "integer", (c) => c.notNull())
        .addPrimaryKeyConstraint("reader_days_pk", ["dimension", "day", "value"])
        .execute();
      await db.schema
        .createTable("reader_conversion_days")
        .addColumn("day", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("entry_path", "text", (c) => c.notNull())
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("count", "integer", (c) => c.notNull())
        .addPrimaryKeyConstraint("reader_conversion_days_pk", [
          "day",
          "kind",
          "entry_path",
          "source",
        ])
        .execute();
      await db.schema
        .createTable("reader_rollups")
        .addColumn("day", "text", (c) => c.primaryKey())
        .addColumn("rolled_at", timestamp, (c) => c.notNull())
        .execute();
    },
  };
}
