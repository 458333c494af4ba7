import { type ColumnDefinitionBuilder, type Kysely, sql } from "kysely";
import type { DatabaseKind } from "../schema.ts";

/**
 * One migration list for both databases. The few dialect differences are
 * confined to the helpers below: identity columns (`autoincrement` is a syntax
 * error on PostgreSQL, identity one on SQLite), the timestamp type, and the
 * outbox's rebuilds on SQLite. Never change what a shipped migration does;
 * add the next one.
 */
export function dialectHelpers(kind: DatabaseKind) {
  return {
    // AUTOINCREMENT so SQLite never reuses the id of a deleted comment or event.
    identity: (column: ColumnDefinitionBuilder) =>
      kind === "sqlite"
        ? column.primaryKey().autoIncrement()
        : column.primaryKey().generatedByDefaultAsIdentity(),
    timestamp: kind === "sqlite" ? ("text" as const) : ("timestamptz" as const),
    bigId: kind === "sqlite" ? ("integer" as const) : ("bigint" as const),
  };
}

/** Values as an SQL list, `'a', 'b'`: the lists a migration froze when it shipped. */
const sqlList = (values: readonly string[]) => values.map((value) => `'${value}'`).join(", ");

/**
 * Rebuilds SQLite's outbox in one transaction, SQLite's documented procedure
 * for what it cannot change in place (a CHECK, a NOT NULL), keeping its rows,
 * ids, id sequence and both indexes (migrations 005, 009, 014 and 017).
 * `kinds`: what the check on `kind` allows, or null for no check; `indent`
 * keeps the table's definition as each migration wrote it; `copyPayload` is
 * false when the table has no payload yet.
 */
export async function rebuildSqliteOutbox(
  db: Kysely<unknown>,
  {
    kinds,
    indent,
    copyPayload,
  }: { kinds: readonly string[] | null; indent: number; copyPayload: boolean },
) {
  const columns = [
    "id integer primary key autoincrement",
    kinds ? `kind text not null check (kind in (${sqlList(kinds)}))` : "kind text not null",
    "edition_id integer references editions (id)",
    "email text",
    "token text",
    "status text not null check (status in ('queued', 'sending', 'sent', 'failed', 'cancelled'))",
    "attempts integer default 0 not null",
    "next_attempt_at text not null",
    "last_error text",
    "created_at text not null",
    "sent_at text",
    "payload text",
  ];
  const pad = " ".repeat(indent);
  const copied = `id, kind, edition_id, email, token, status, attempts, next_attempt_at, last_error, created_at, sent_at${copyPayload ? ", payload" : ""}`;
  await db.transaction().execute(async (trx) => {
    const sequence = await sql<{
      seq: number;
    }>`select seq from sqlite_sequence where name = 'outbox'`.execute(trx);
    await sql
      .raw(
        `create table outbox_rebuilt (\n${columns.map((c) => pad + c).join(",\n")}\n${pad.slice(2)})`,
      )
      .execute(trx);
    await sql
      .raw(`insert into outbox_rebuilt (${copied}) select ${copied} from outbox`)
      .execute(trx);
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
    await createOutboxIndexes(trx);
  });
}

/** The outbox's two indexes, as migration 003 made them. */
export async function createOutboxIndexes(db: Kysely<unknown>) {
  await db.schema
    .createIndex("outbox_one_per_edition")
    .on("outbox")
    .unique()
    .columns(["edition_id", "email"])
    .where(sql.ref("edition_id"), "is not", null)
    .execute();
  await db.schema
    .createIndex("outbox_due")
    .on("outbox")
    .columns(["status", "kind", "id"])
    .execute();
}

/** Widens the outbox's kinds: PostgreSQL changes the check in place, SQLite rebuilds the table. */
export async function widenOutboxKinds(
  db: Kysely<unknown>,
  kind: DatabaseKind,
  kinds: readonly string[],
) {
  if (kind === "sqlite") return rebuildSqliteOutbox(db, { kinds, indent: 6, copyPayload: true });
  await sql`alter table outbox drop constraint outbox_kind_check`.execute(db);
  await sql`alter table outbox add constraint outbox_kind_check check (kind in (${sql.raw(sqlList(kinds))}))`.execute(
    db,
  );
}
