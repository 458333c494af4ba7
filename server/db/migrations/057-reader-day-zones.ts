import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The zone each rolled-up day of readers was counted in
 * (docs/decisions/063-readers-days-in-the-owners-zone.md): the days rolled
 * up before were UTC's. The screen says which days of a period were counted
 * in another zone than the owner's present one.
 * This text is frozen once shipped.
 */
export function readerDayZones(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("reader_rollups")
        .addColumn("zone", "text", (column) => column.notNull().defaultTo("UTC"))
        .execute();
    },
  };
}
