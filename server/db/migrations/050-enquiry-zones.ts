import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * An enquiry keeps the time zone its sender's browser gave (a name from the
 * form's list, or null), so every mail to the sender tells its times there,
 * not only the acknowledgement. Until now the zone rode in the
 * acknowledgement's outbox payload: an enquiry whose acknowledgement row is
 * still there takes its zone from it. This text is frozen once shipped.
 */
export function enquiryZones(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("enquiries").addColumn("zone", "text").execute();
      const { rows } = await sql<{ payload: string }>`
        select payload from outbox where kind = 'enquiry_ack' and payload is not null`.execute(db);
      for (const { payload } of rows) {
        const given = (() => {
          try {
            return Object(JSON.parse(payload)) as { enquiryId?: unknown; zone?: unknown };
          } catch {
            return {};
          }
        })();
        if (typeof given.zone !== "string" || typeof given.enquiryId !== "number") continue;
        await sql`update enquiries set zone = ${given.zone.slice(0, 64)}
          where id = ${given.enquiryId}`.execute(db);
      }
    },
  };
}
