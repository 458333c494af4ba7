import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";

/**
 * Visits and engaged reads are rebuilt in their key's order. On SQLite their
 * tables had a rowid, which numbered the day's visits as they began: beside an
 * enquiry's time (kept), a visit's place could name its sender's hash, and
 * with it the visit's country, device, entry page and source. The new tables
 * have no rowid. On PostgreSQL, `drop column` (migration 032) only hid the
 * visits' start times, whose bytes stayed in every row on disk: the rows are
 * copied into a table written afresh, in the key's order, and the old one is
 * dropped with its files. This text is frozen once shipped.
 */
export function readerRowsByKey(kind: DatabaseKind): Migration {
  const withoutRowid = kind === "sqlite" ? sql` without rowid` : sql``;
  return {
    async up(db: Kysely<unknown>) {
      // PostgreSQL runs a migration in a transaction; SQLite's is opened here.
      const inOne = (work: (trx: Kysely<unknown>) => Promise<void>) =>
        kind === "sqlite" ? db.transaction().execute(work) : work(db);
      await inOne(async (trx) => {
        for (const table of ["reader_visits", "reader_reads"]) {
          await sql`alter table ${sql.table(table)} rename to ${sql.table(`${table}_old`)}`.execute(
            trx,
          );
          // PostgreSQL names a key's index after its constraint, once per schema.
          if (kind === "postgres")
            await sql`alter index ${sql.table(`${table}_pk`)} rename to ${sql.table(`${table}_old_pk`)}`.execute(
              trx,
            );
        }
        await sql`create table reader_visits (
            day text not null,
            reader text not null,
            entry_path text not null,
            source text not null,
            medium text not null,
            campaign text not null,
            country text not null,
            device text not null,
            views integer default 0 not null,
            constraint reader_visits_pk primary key (day, reader)
          )${withoutRowid}`.execute(trx);
        await sql`insert into reader_visits
            (day, reader, entry_path, source, medium, campaign, country, device, views)
          select day, reader, entry_path, source, medium, campaign, country, device, views
          from reader_visits_old order by day, reader`.execute(trx);
        await sql`create table reader_reads (
            day text not null,
            reader text not null,
            path text not null,
            constraint reader_reads_pk primary key (day, path, reader)
          )${withoutRowid}`.execute(trx);
        await sql`insert into reader_reads (day, reader, path)
          select day, reader, path from reader_reads_old order by day, path, reader`.execute(trx);
        await sql`drop table reader_visits_old`.execute(trx);
        await sql`drop table reader_reads_old`.execute(trx);
      });
    },
  };
}
