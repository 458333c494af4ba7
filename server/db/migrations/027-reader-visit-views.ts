import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * A reader's visit of a day carries its number of views
 * (docs/decisions/044-readers-without-cookies.md): the Readers screen then
 * counts the views of each source, campaign, country and device from the
 * day's visits alone, instead of joining every raw view of the day to its
 * visit at each request. Each write of the counters adds its views to their
 * visits in the same transaction; the visits kept so far are counted here
 * from their raw views. This text is frozen once shipped.
 */
export function readerVisitViews(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("reader_visits")
        .addColumn("views", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      // Counted once by (day, reader), then joined: one pass over the views.
      await sql`with counted (day, reader, views) as (
          select day, reader, count(*) from reader_views group by day, reader
        )
        update reader_visits set views = counted.views
        from counted where reader_visits.day = counted.day and reader_visits.reader = counted.reader`.execute(
        db,
      );
    },
  };
}
