import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers, rebuildSqliteOutbox, widenOutboxKinds } from "./dialect.ts";

export const kinds = ["confirmation", "edition", "comment_notice", "comment_digest", "webhook"];

/**
 * The owner's notifications (docs/decisions/011-owner-notifications.md): the
 * outbox takes three more kinds of row, a webhook call has no recipient
 * address, and a row may carry a JSON payload; the one-time links of the
 * notification mails get their table. SQLite cannot change a CHECK
 * constraint or a NOT NULL in place, so there the outbox is rebuilt in one
 * transaction (SQLite's documented procedure for other schema changes),
 * keeping its rows, ids and id sequence.
 */
export function notifications(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      if (kind === "postgres") {
        await widenOutboxKinds(db, kind, kinds);
        await sql`alter table outbox alter column email drop not null`.execute(db);
        await sql`alter table outbox add column payload text`.execute(db);
      } else {
        await rebuildSqliteOutbox(db, { kinds, indent: 12, copyPayload: false });
      }

      // Only a SHA-256 of each token is kept: a copy of the database acts on nothing.
      await db.schema
        .createTable("comment_action_tokens")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("comment_id", "integer", (c) => c.notNull())
        .addColumn("action", "text", (c) => c.notNull().check(sql`action in ('approve', 'delete')`))
        .addColumn("expires_at", timestamp, (c) => c.notNull())
        .addColumn("used_at", timestamp)
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("comment_action_tokens_by_expiry")
        .on("comment_action_tokens")
        .column("expires_at")
        .execute();
    },
  };
}
