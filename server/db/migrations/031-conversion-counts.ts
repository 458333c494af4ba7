import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";

/**
 * A conversion is stored as a count: one more in `reader_conversion_days`
 * under its day, kind, and the entry page and source of the reader's visit,
 * found when it is written. Its own row, with the reader's hash and an id that
 * ordered the day's conversions, could be matched by rank to the enquiries or
 * comments it counted, and through the hash to the visit's country, device and
 * start. The rows kept so far of days not rolled up are counted here and
 * dropped with their table. On SQLite the counts' table is rebuilt without a
 * rowid, which would order its rows as they were first written. This text is
 * frozen once shipped.
 */
export function conversionCounts(kind: DatabaseKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // PostgreSQL runs a migration in a transaction; SQLite's is opened here.
      const inOne = (work: (trx: Kysely<unknown>) => Promise<void>) =>
        kind === "sqlite" ? db.transaction().execute(work) : work(db);
      await inOne(async (trx) => {
        await sql`insert into reader_conversion_days (day, kind, entry_path, source, count)
          select c.day, c.kind, coalesce(v.entry_path, ''), coalesce(v.source, ''), count(*)
          from reader_conversions c
          left join reader_visits v on v.day = c.day and v.reader = c.reader
          where not exists (select 1 from reader_rollups r where r.day = c.day)
          group by c.day, c.kind, coalesce(v.entry_path, ''), coalesce(v.source, '')
          on conflict (day, kind, entry_path, source)
          do update set count = reader_conversion_days.count + excluded.count`.execute(trx);
        await trx.schema.dropTable("reader_conversions").execute();
        if (kind === "sqlite") {
          await sql`create table reader_conversion_counts (
              day text not null,
              kind text not null,
              entry_path text not null,
              source text not null,
              count integer not null,
              constraint reader_conversion_days_pk primary key (day, kind, entry_path, source)
            ) without rowid`.execute(trx);
          await sql`insert into reader_conversion_counts select day, kind, entry_path, source, count
            from reader_conversion_days`.execute(trx);
          await sql`drop table reader_conversion_days`.execute(trx);
          await sql`alter table reader_conversion_counts rename to reader_conversion_days`.execute(
            trx,
          );
        }
      });
    },
  };
}
