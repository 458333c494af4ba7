import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * Indexes for the bookings read by time, which read the whole table without
 * them: by the call's end (the calls still ahead or past, the times taken
 * after a moment, the owner's lists and calendar feed, retention), and by
 * status and start (booked calls ahead, whose reminders a restored file
 * queues again, and the calls booked per week).
 * This text is frozen once shipped.
 */
export function bookingsByTime(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.createIndex("bookings_by_end").on("bookings").column("ends_at").execute();
      await db.schema
        .createIndex("bookings_by_status_start")
        .on("bookings")
        .columns(["status", "starts_at"])
        .execute();
    },
  };
}
