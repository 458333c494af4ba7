import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * A series of outbox rows that go in the order they were queued (a booked call's
 * mails to one side: its invitation before its reminders, moves and cancellation):
 * a row is not claimed while an earlier one of its series is queued or being sent.
 * Rows before have none. The index holds only the rows of a series, by id, which is
 * how a claim asks for an earlier one. This text is frozen once shipped.
 */
export function outboxSeries(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("outbox").addColumn("series", "text").execute();
      await sql`create index outbox_series on outbox (series, id) where series is not null`.execute(
        db,
      );
    },
  };
}
