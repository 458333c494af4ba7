import { sql } from "kysely";
import type { DatabaseKind } from "./schema.ts";
import type { Db } from "./store.ts";

/**
 * Waits in `trx` for the other transactions counting the same thing (`what`
 * of `key`) to end, so a limit counted next cannot be passed by requests at
 * the same instant: on PostgreSQL an advisory lock held to the commit, across
 * instances; SQLite's transactions take turns already, on the store's one
 * connection. A transaction taking several turns takes them in one order
 * wherever it is written (docs/architecture.md, "Limits under requests at
 * once").
 */
export async function takeTurn(kind: DatabaseKind, trx: Db, what: string, key: string) {
  if (kind === "postgres") {
    await sql`select pg_advisory_xact_lock(hashtext(${what}), hashtext(${key}))`.execute(trx);
  }
}
