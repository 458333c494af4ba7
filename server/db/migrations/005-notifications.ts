import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

const outboxKinds = sql.raw(
  ["confirmation", "edition", "comment_notice", "comment_digest", "webhook"]
    .map((kind) => `'${kind}'`)
    .join(", "),
);

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
        await sql`alter table outbox drop constraint outbox_kind_check`.execute(db);
        await sql`alter table outbox add constraint outbox_kind_check check (kind in (${outboxKinds}))`.execute(
          db,
        );
        await sql`alter table outbox alter column email drop not null`.execute(db);
        await sql`alter table outbox add column payload text`.execute(db);
      } else {
        await db.transaction().execute(async (trx) => {
          const sequence = await sql<{
            seq: number;
          }>`select seq from sqlite_sequence where name = 'outbox'`.execute(trx);
          await sql`create table outbox_rebuilt (
            id integer primary key autoincrement,
            kind text not null check (kind in (${outboxKinds})),
            edition_id integer references editions (id),
            email text,
            token text,
            status text not null check (status in ('queued', 'sending', 'sent', 'failed', 'cancelled')),
            attempts integer default 0 not null,
            next_attempt_at text not null,
            last_error text,
            created_at text not null,
            sent_at text,
            payload text
          )`.execute(trx);
          await sql`insert into outbox_rebuilt (id, kind, edition_id, email, token, status, attempts, next_attempt_at, last_error, created_at, sent_at)
            select id, kind, edition_id, email, token, status, attempts, next_attempt_at, last_error, created_at, sent_at from outbox`.execute(
            trx,
          );
          await sql`drop table outbox`.execute(trx);
          await sql`alter table outbox_rebuilt rename to outbox`.execute(trx);
          const last = sequence.rows[0]?.seq ?? 0;
          await sql`update sqlite_sequence set seq = max(seq, ${last}) where name = 'outbox'`.execute(
            trx,
          );
          await sql`insert into sqlite_sequence (name, seq) select 'outbox', ${last} where ${last} > 0 and not exists (select 1 from sqlite_sequence where name = 'outbox')`.execute(
            trx,
          );
          await trx.schema
            .createIndex("outbox_one_per_edition")
            .on("outbox")
            .unique()
            .columns(["edition_id", "email"])
            .where(sql.ref("edition_id"), "is not", null)
            .execute();
          await trx.schema
            .createIndex("outbox_due")
            .on("outbox")
            .columns(["status", "kind", "id"])
            .execute();
        });
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
