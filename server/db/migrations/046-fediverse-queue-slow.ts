import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * A message of the Fediverse queue that ran past a deadline (or a delivery
 * to a server that did) keeps when it was found so: it waits for the one
 * worker of such messages, while a message that failed quickly is tried
 * again on any worker. This text is frozen once shipped.
 */
export function fediverseQueueSlow(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("fediverse_queue").addColumn("slow_at", timestamp).execute();
    },
  };
}
