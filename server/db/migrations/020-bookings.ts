import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/*
 * Booked calls (docs/product.md, "Book a call"): each booking with the
 * reader's details, and one row of the owner's settings (availability as
 * JSON, the calendar feed's token digest). A time is taken once: the partial
 * unique index over the start of the calls still booked is what refuses a
 * second reader who pressed at the same moment, on any instance. This text is
 * frozen once shipped.
 */

export function bookings(kind: DatabaseKind): Migration {
  const { identity, timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("bookings")
        .addColumn("id", "integer", identity)
        .addColumn("starts_at", timestamp, (c) => c.notNull())
        .addColumn("ends_at", timestamp, (c) => c.notNull())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("email", "text", (c) => c.notNull())
        .addColumn("service", "text", (c) => c.notNull())
        .addColumn("note", "text", (c) => c.notNull())
        .addColumn("reader_zone", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) =>
          c.notNull().defaultTo("booked").check(sql`status in ('booked', 'cancelled')`),
        )
        // The invitation's UID stays; SEQUENCE rises with each change.
        .addColumn("uid", "text", (c) => c.notNull().unique())
        .addColumn("sequence", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("meeting_url", "text")
        // SHA-256 of the reader's cancel and reschedule links' token; null once used up.
        .addColumn("token_hash", "text", (c) => c.unique())
        .addColumn("visitor_id", "text")
        .addColumn("ip_hash", "text", (c) => c.notNull())
        // HMAC of the reader's mailbox, for the per-address limits.
        .addColumn("address_hash", "text", (c) => c.notNull())
        .addColumn("cancelled_by", "text", (c) => c.check(sql`cancelled_by in ('reader', 'owner')`))
        .addColumn("cancel_message", "text")
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addColumn("updated_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("bookings_one_per_time")
        .on("bookings")
        .unique()
        .column("starts_at")
        .where(sql.ref("status"), "=", "booked")
        .execute();
      await db.schema
        .createIndex("bookings_by_address")
        .on("bookings")
        .columns(["address_hash", "created_at"])
        .execute();
      await db.schema
        .createIndex("bookings_by_ip")
        .on("bookings")
        .columns(["ip_hash", "created_at"])
        .execute();
      await db.schema
        .createIndex("bookings_by_visitor")
        .on("bookings")
        .column("visitor_id")
        .execute();

      await db.schema
        .createTable("booking_settings")
        .addColumn("id", "integer", (c) => c.primaryKey().check(sql`id = 1`))
        .addColumn("availability", "text", (c) => c.notNull())
        .addColumn("feed_token_hash", "text")
        .addColumn("updated_at", timestamp, (c) => c.notNull())
        .execute();
    },
  };
}
