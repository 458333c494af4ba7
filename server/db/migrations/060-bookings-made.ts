import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * What the bookings' hourly limits count, in a table of their own
 * (docs/decisions/081-booking-limits-outlast-erasure.md): each
 * booking made leaves the keyed digests of its mailbox, connection and
 * network, and when it was made, which its reader's erasure does not take, so
 * that erasing a booking does not make room for another. The bookings made in
 * the hour before are counted here from the start, as they were counted before.
 * This text is frozen once shipped.
 */
export function bookingsMade(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("bookings_made")
        .addColumn("address_hash", "text", (c) => c.notNull())
        .addColumn("ip_hash", "text", (c) => c.notNull())
        .addColumn("network_hash", "text")
        .addColumn("made_at", timestamp, (c) => c.notNull())
        .execute();
      for (const column of ["address_hash", "ip_hash", "network_hash"]) {
        await db.schema
          .createIndex(`bookings_made_by_${column.replace("_hash", "")}`)
          .on("bookings_made")
          .columns([column, "made_at"])
          .execute();
      }
      const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
      await sql`insert into bookings_made (address_hash, ip_hash, network_hash, made_at)
        select address_hash, ip_hash, network_hash, created_at from bookings
        where created_at >= ${hourAgo}`.execute(db);
    },
  };
}
