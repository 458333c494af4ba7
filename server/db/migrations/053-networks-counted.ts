import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * An HMAC of the network (an IPv6 address's /48; an IPv4 address is its own)
 * beside the address's that the hourly limits count from the database, under
 * the same key, so they count by network too: on enquiries, bookings and the
 * confirmation mails' requests. Rows from before have none and count for
 * nothing by network. Each is indexed with the time, as its count reads it.
 * The requests, kept an hour, held their address itself: they are forgotten
 * here, and are kept from now on as HMACs alone.
 * This text is frozen once shipped.
 */
export function networksCounted(): Migration {
  const columns: [table: string, column: string][] = [
    ["enquiries", "network_hash"],
    ["bookings", "network_hash"],
    ["confirmation_requests", "network"],
  ];
  return {
    async up(db: Kysely<unknown>) {
      for (const [table, column] of columns) {
        await db.schema.alterTable(table).addColumn(column, "text").execute();
        await db.schema
          .createIndex(`${table}_by_network`)
          .on(table)
          .columns([column, "created_at"])
          .execute();
      }
      await sql`delete from confirmation_requests`.execute(db);
    },
  };
}
