import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";

/**
 * The database stops checking which kinds of row the outbox takes
 * (docs/decisions/040-outbox-kinds-in-typescript.md): the type of `kind`, where
 * rows are written, is the one list, and a new kind of mail needs no
 * migration. Everything else about the table stays as it was: its columns,
 * rows, ids and id sequence, the check on `status`, the reference to
 * `editions`, and both indexes.
 *
 * PostgreSQL drops the constraint in place. SQLite cannot, so the table is
 * rebuilt one last time in one transaction (SQLite's documented procedure),
 * as migrations 005, 009 and 014 did to widen the list. This text is frozen
 * once shipped.
 */
export function outboxKindsUnchecked(kind: DatabaseKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (kind === "postgres") {
        await sql`alter table outbox drop constraint outbox_kind_check`.execute(db);
        return;
      }
      await db.transaction().execute(async (trx) => {
        const sequence = await sql<{
          seq: number;
        }>`select seq from sqlite_sequence where name = 'outbox'`.execute(trx);
        // Indented as 014's, so the definition SQLite keeps differs from the old one by the check alone.
        await sql`create table outbox_rebuilt (
      id integer primary key autoincrement,
      kind text not null,
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
        await sql`insert into outbox_rebuilt (id, kind, edition_id, email, token, status, attempts, next_attempt_at, last_error, created_at, sent_at, payload)
          select id, kind, edition_id, email, token, status, attempts, next_attempt_at, last_error, created_at, sent_at, payload from outbox`.execute(
          trx,
        );
        await sql`drop table outbox`.execute(trx);
        await sql`alter table outbox_rebuilt rename to outbox`.execute(trx);
        // The sequence goes on from the highest id ever given, even one whose row was deleted.
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
    },
  };
}
