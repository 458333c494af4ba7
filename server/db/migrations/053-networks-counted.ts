import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The network (an IPv6 address's /48; an IPv4 address is its own) beside the
 * address that the hourly limits count from the database, so they count by
 * network too: an HMAC of it on enquiries and bookings, under the key of
 * their address's HMAC, and on the confirmation mails' requests, kept an
 * hour, in the form of their address. Rows from before have none and count
 * for nothing by network. Each is indexed with the time, as its count reads it.
 * This text is frozen once shipped.
 */
export function networksCounted(): Migration {
  const columns: [table: string, column: string, index: string][] = [
    ["enquiries", "network_hash", "enquiries_by_network"],
    ["bookings", "network_hash", "bookings_by_network"],
    ["confirmation_requests", "network", "confirmation_requests_by_network"],
  ];
  return {
    async up(db: Kysely<unknown>) {
      for (const [table, column, index] of columns) {
        await db.schema.alterTable(table).addColumn(column, "text").execute();
        await db.schema.createIndex(index).on(table).columns([column, "created_at"]).execute();
      }
    },
  };
}
