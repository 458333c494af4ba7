import { type Kysely, sql, type Transaction } from "kysely";
import type { Database, OutboxKind } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { Deliver, Delivery, OutboxRow } from "./outbox-types.ts";

/** Rows a SQLite worker claims at once, per send it keeps in flight. */
const pagePerSend = 8;

type Db = Transaction<Database> | Store["db"];

/**
 * How one SQLite instance sends (docs/decisions/036-sending-in-flat-memory.md):
 * a page of due rows claimed in one statement (status `sending`, reset when
 * the server starts), delivered with a bounded number in flight, and their
 * outcomes recorded together. The outbox repository supplies how a row's
 * outcome is recorded and how a delivery is guarded.
 */
export function createSqlitePages({
  db,
  nowIso,
  record,
  safely,
}: {
  db: Store["db"];
  nowIso: () => string;
  record: (trx: Db, row: OutboxRow, delivery: Delivery) => Promise<void>;
  safely: (deliver: Deliver, row: OutboxRow, trx: Db, batch: OutboxRow[]) => Promise<Delivery>;
}) {
  /** SQLite: claimed rows that were not sent go back to the queue. */
  async function release(ids: number[]) {
    await db
      .updateTable("outbox")
      .set({ status: "queued" })
      .where("id", "in", ids)
      .where("status", "=", "sending")
      .execute();
  }

  /**
   * SQLite: up to `limit` due rows (of `kinds`, or of every kind), marked
   * `sending`, by kind then oldest first.
   */
  async function claimPage(
    kinds: readonly OutboxKind[] | undefined,
    limit: number,
  ): Promise<OutboxRow[]> {
    const rows = await db
      .updateTable("outbox")
      .set({ status: "sending" })
      .where("id", "in", (eb) =>
        eb
          .selectFrom("outbox")
          .select("id")
          .where("status", "=", "queued")
          .where("next_attempt_at", "<=", nowIso())
          .$if(kinds !== undefined, (query) => query.where("kind", "in", kinds ?? []))
          .orderBy("kind")
          .orderBy("id")
          .limit(limit),
      )
      .where("status", "=", "queued")
      .returningAll()
      .execute();
    return rows.sort((a, b) =>
      a.kind === b.kind ? Number(a.id) - Number(b.id) : a.kind < b.kind ? -1 : 1,
    );
  }

  /**
   * SQLite: `work` on the connection with its commits written to the
   * database's log but not flushed to the disk (`synchronous = normal`), then
   * the connection's setting as it was. A killed process loses none of them;
   * a power cut may lose those since the last flush (the next commit that
   * asks for one, or a checkpoint), and then those mails go out again
   * (docs/decisions/036-sending-in-flat-memory.md). Waiting for the disk on
   * every mail's record would make it, not the SMTP server, set the pace.
   */
  async function withoutFlush(work: (conn: Kysely<Database>) => Promise<void>) {
    await db.connection().execute(async (conn) => {
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(conn);
      const before = Number(rows[0]?.synchronous ?? 2);
      await sql`pragma synchronous = normal`.execute(conn);
      try {
        await work(conn);
      } finally {
        await sql.raw(`pragma synchronous = ${before}`).execute(conn);
      }
    });
  }

  /**
   * SQLite: outcomes written in one transaction each time the one before is
   * done, so a burst of finished sends costs one commit, not one each. Each
   * `add` resolves once its outcome is committed.
   */
  function groupRecorder() {
    type Pending = { row: OutboxRow; delivery: Delivery; settle: (error?: unknown) => void };
    let pending: Pending[] = [];
    let writing = false;
    async function write() {
      writing = true;
      while (pending.length > 0) {
        const group = pending;
        pending = [];
        try {
          await withoutFlush(async (conn) => {
            await conn.transaction().execute(async (trx) => {
              for (const { row, delivery } of group) await record(trx, row, delivery);
            });
          });
          for (const { settle } of group) settle();
        } catch (error) {
          for (const { settle } of group) settle(error);
        }
      }
      writing = false;
    }
    return {
      add(row: OutboxRow, delivery: Delivery): Promise<void> {
        return new Promise((resolve, reject) => {
          pending.push({ row, delivery, settle: (error) => (error ? reject(error) : resolve()) });
          if (!writing) void write();
        });
      },
    };
  }

  /**
   * SQLite: claims pages of due rows of `kinds` (none sent in batches) and
   * delivers them with at most `inFlight` at once, until none is due or the
   * worker stops. Never more than a page and the sends in flight in memory.
   */
  async function processPages(
    deliver: Deliver,
    {
      kinds,
      inFlight,
      going,
    }: { kinds: readonly OutboxKind[]; inFlight: number; going: () => boolean },
  ): Promise<number> {
    const recorder = groupRecorder();
    const running = new Set<Promise<void>>();
    let failure: unknown;
    let handled = 0;
    for (;;) {
      const page = await claimPage(kinds, inFlight * pagePerSend);
      if (page.length === 0) break;
      for (const [index, row] of page.entries()) {
        while (running.size >= inFlight) await Promise.race(running);
        if (failure !== undefined || !going()) {
          await release(page.slice(index).map((r) => r.id as number));
          await Promise.all(running);
          if (failure !== undefined) throw failure;
          return handled;
        }
        const task: Promise<void> = safely(deliver, row, db, [row])
          .then((delivery) => recorder.add(row, delivery))
          // A lost write stops this round once the sends in flight are done;
          // the row stays `sending` until the server starts again.
          .catch((error: unknown) => {
            failure ??= error;
          })
          .finally(() => running.delete(task));
        running.add(task);
        handled += 1;
      }
    }
    await Promise.all(running);
    if (failure !== undefined) throw failure;
    return handled;
  }

  return { claimPage, processPages };
}
