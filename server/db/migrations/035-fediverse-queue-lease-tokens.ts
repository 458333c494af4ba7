import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * A message taken from the Fediverse queue bears its take's token: its worker
 * settles it (deletes it, or sets it due again) only while the row still
 * bears that token, so a worker whose lease ended, the message taken since by
 * another, leaves it to that one. This text is frozen once shipped.
 */
export function fediverseQueueLeaseTokens(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("fediverse_queue").addColumn("taken_by", "text").execute();
    },
  };
}
