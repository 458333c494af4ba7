import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * A mail whose token is a link for its recipient alone (a confirmation, an
 * enquiry's acknowledgement, a reply mail's confirmation, a booking's
 * invitation) keeps it only while it may still go: rows that failed for good
 * or were cancelled before the outbox cleared it then lose it now.
 */
export function finishedMailTokens(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`update outbox set token = null
        where kind in ('confirmation', 'enquiry_ack', 'reply_confirmation', 'booking_invitation')
        and status in ('sent', 'failed', 'cancelled')`.execute(db);
    },
  };
}
