import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { rebuildSqliteOutbox } from "./dialect.ts";

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
      await rebuildSqliteOutbox(db, { kinds: null, indent: 6, copyPayload: true });
    },
  };
}
