import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The passkey each console session signed in with, so that removing a passkey
 * ends the sessions it opened (a lost phone's among them). Sessions opened by
 * a link, or before this, have none.
 */
export function ownerSessionPasskeys(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("owner_sessions").addColumn("passkey_id", "text").execute();
    },
  };
}
