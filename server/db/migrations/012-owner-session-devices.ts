import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The browser and device each console session signed in from ("Firefox on
 * Linux"), so the owner tells sessions apart; only that label, not the
 * User-Agent header. Sessions opened before it have none.
 */
export function ownerSessionDevices(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("owner_sessions").addColumn("device", "text").execute();
    },
  };
}
