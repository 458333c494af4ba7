import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * A conversion keeps its day, no longer its time: to the millisecond, it could
 * be matched to the enquiry or comment it counts, and so tell whose visit, with
 * its entry page, source, country and device, it was. The screen shows days;
 * the times already kept go with the column. This text is frozen once shipped.
 */
export function conversionDays(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("reader_conversions").dropColumn("at").execute();
    },
  };
}
