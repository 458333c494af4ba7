import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * Editions sent later (docs/decisions/047-list-health.md): one row per
 * scheduled edition with the time it goes. `started_at` is set when an
 * instance first claims it (from then it can no longer be cancelled),
 * `claimed_until` is that instance's lease, renewed while it queues, and
 * `queued_at` is set once every copy is in the outbox.
 */
export function editionSchedules(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("edition_schedules")
        .addColumn("edition_id", "integer", (c) =>
          c.primaryKey().references("editions.id").onDelete("cascade"),
        )
        .addColumn("send_at", timestamp, (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addColumn("started_at", timestamp)
        .addColumn("claimed_until", timestamp)
        .addColumn("queued_at", timestamp)
        .execute();
      await db.schema
        .createIndex("edition_schedules_due")
        .on("edition_schedules")
        .columns(["queued_at", "send_at"])
        .execute();
    },
  };
}
