import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * A message of the Fediverse queue whose handler fails keeps when it first
 * failed: it is tried again after as long as it has been failing, and given
 * up once it has failed for days, so the messages queued after it for the
 * same server go on. This text is frozen once shipped.
 */
export function fediverseQueueFailures(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("fediverse_queue").addColumn("failed_at", timestamp).execute();
    },
  };
}
