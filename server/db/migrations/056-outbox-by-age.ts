import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The addressed mails by when they went (or were queued, while unsent): the
 * hourly pruning reads only those that turned 30 days old since its last
 * pass, a reader who left being forgotten once no late report can come
 * (server/engagement/subscribers-retention.ts). The expression is the one
 * that read writes, as each database matches an index's expression only to
 * the same one; the rows without an address, which it never reads, are left out.
 * This text is frozen once shipped.
 */
export function outboxByAge(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index outbox_by_age on outbox (coalesce(sent_at, created_at)) where email is not null`.execute(
        db,
      );
    },
  };
}
