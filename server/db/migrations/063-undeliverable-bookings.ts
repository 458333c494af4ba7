import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * Whether a cancelled booking was released because its invitation hard-bounced
 * (docs/decisions/090-a-booking-whose-address-bounces-is-released.md): nobody
 * cancelled it, so `cancelled_by` stays empty, and the owner is shown why. Every
 * booking before was cancelled by its reader or the owner. This text is frozen once shipped.
 */
export function undeliverableBookings(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("bookings")
        .addColumn("undeliverable", "integer", (column) => column.notNull().defaultTo(0))
        .execute();
    },
  };
}
