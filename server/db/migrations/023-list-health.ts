import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * A list that stays healthy (docs/decisions/047-list-health.md):
 * - suppressed addresses, one row each (lower case), with the reason: a hard
 *   bounce, a complaint, or soft bounces that went on; nothing is mailed to them;
 * - soft bounces, kept 30 days, counted towards a suppression;
 * - on an outbox row, the feedback its mail drew (a bounce or a complaint),
 *   from which an edition's figures are counted;
 * - each edition's links with a click count per link, and no record of who.
 */
export function listHealth(kind: DatabaseKind): Migration {
  const { identity, timestamp, bigId } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("suppressions")
        .addColumn("email", "text", (c) => c.primaryKey())
        .addColumn("reason", "text", (c) => c.notNull())
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("detail", "text")
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("soft_bounces")
        .addColumn("id", bigId, identity)
        .addColumn("email", "text", (c) => c.notNull())
        // What reported it (an outbox row, a provider's message): one report counts once.
        .addColumn("ref", "text", (c) => c.notNull().unique())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("soft_bounces_by_email")
        .on("soft_bounces")
        .columns(["email", "created_at"])
        .execute();

      await db.schema.alterTable("outbox").addColumn("feedback", "text").execute();

      await db.schema
        .createTable("edition_links")
        .addColumn("edition_id", "integer", (c) =>
          c.notNull().references("editions.id").onDelete("cascade"),
        )
        .addColumn("position", "integer", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("clicks", "integer", (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint("edition_links_pk", ["edition_id", "position"])
        .execute();
    },
  };
}
