import { sql } from "kysely";
import { TurnsFull } from "./errors.ts";
import type { DatabaseKind } from "./schema.ts";
import { type Db, poolSize } from "./store.ts";

/**
 * The transactions of this process that may wait for a turn at once. Each
 * waits on one of the pool's connections: unbounded, a burst of limited
 * writes from one client (all counting its address) took every connection,
 * and every other request needing the database waited behind them.
 */
export const turnWaitersMax = poolSize / 2;
let waiting = 0;

/**
 * Waits in `trx` for the other transactions counting the same thing (`what`
 * of `key`) to end, so a limit counted next cannot be passed by requests at
 * the same instant: on PostgreSQL an advisory lock held to the commit, across
 * instances; SQLite's transactions take turns already, on the store's one
 * connection. A transaction taking several turns takes them in one order
 * wherever it is written (docs/architecture.md, "Limits under requests at
 * once"). A turn that is free is taken at once; one that is not is waited
 * for only while fewer than `turnWaitersMax` wait, else the transaction is
 * refused (`TurnsFull`, a 503 that changed nothing).
 */
export async function takeTurn(kind: DatabaseKind, trx: Db, what: string, key: string) {
  if (kind !== "postgres") return;
  const { rows } = await sql<{
    taken: boolean;
  }>`select pg_try_advisory_xact_lock(hashtext(${what}), hashtext(${key})) as taken`.execute(trx);
  if (rows[0]?.taken) return;
  if (waiting >= turnWaitersMax) throw new TurnsFull();
  waiting += 1;
  try {
    await sql`select pg_advisory_xact_lock(hashtext(${what}), hashtext(${key}))`.execute(trx);
  } finally {
    waiting -= 1;
  }
}
