import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";

/**
 * Raw views are counts: one row per (day, path, reader) with its `views`, to
 * which each write adds. A row per view, with an id (and SQLite's rowid),
 * kept the order the day's views came in, which beside an enquiry's time (kept)
 * could name its sender's hash, and through it the visit's country, device,
 * entry page and source. The views kept so far are counted here into a table
 * written afresh in the key's order, and the old one is dropped: on SQLite
 * the new table has no rowid; on PostgreSQL, where `drop column` only hid the
 * views' times (migration 032) and their bytes stayed in every row on disk,
 * the old table's files go with it, and those times with them. This text is
 * frozen once shipped.
 */
export function readerViewCounts(kind: DatabaseKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // PostgreSQL runs a migration in a transaction; SQLite's is opened here.
      const inOne = (work: (trx: Kysely<unknown>) => Promise<void>) =>
        kind === "sqlite" ? db.transaction().execute(work) : work(db);
      await inOne(async (trx) => {
        await sql`create table reader_view_counts (
            day text not null,
            path text not null,
            reader text not null,
            views integer not null,
            constraint reader_views_pk primary key (day, path, reader)
          )${kind === "sqlite" ? sql` without rowid` : sql``}`.execute(trx);
        await sql`insert into reader_view_counts (day, path, reader, views)
          select day, path, reader, count(*) from reader_views
          group by day, path, reader
          order by day, path, reader`.execute(trx);
        await sql`drop table reader_views`.execute(trx);
        await sql`alter table reader_view_counts rename to reader_views`.execute(trx);
      });
    },
  };
}
