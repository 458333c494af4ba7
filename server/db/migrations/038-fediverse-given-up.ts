import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * A Fediverse queue message given up after failing for days leaves a record
 * the console's Health screen shows: its kind, the site's own activity's id
 * when it has one, why it last failed and when it was given up; nothing of
 * whom it was for. Records are deleted after 30 days. This text is frozen
 * once shipped.
 */
export function fediverseGivenUp(kind: DatabaseKind): Migration {
  const { identity, timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("fediverse_given_up")
        .addColumn("id", "integer", identity)
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("activity", "text")
        .addColumn("why", "text", (c) => c.notNull())
        .addColumn("given_up_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("fediverse_given_up_by_time")
        .on("fediverse_given_up")
        .column("given_up_at")
        .execute();
    },
  };
}
