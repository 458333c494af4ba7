import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The news that a booking was not made is found by its mailbox's digest in the outbox's
 * `email_hash` (server/bookings/not-made.ts), no longer by its payload, which began with
 * it: the rows of the last day get it there, so that a mailbox told within the hour before
 * the upgrade is not told again. Read by position (`{"mailbox":"` and a 43-character
 * digest), not as JSON: a row whose payload is not so is left as it is.
 * This text is frozen once shipped.
 */
export function notMadeByDigest(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`update outbox set email_hash = substr(payload, 13, 43)
        where kind = 'booking_not_made' and email_hash is null
        and payload like '{"mailbox":"%' and substr(payload, 56, 1) = '"'`.execute(db);
    },
  };
}
