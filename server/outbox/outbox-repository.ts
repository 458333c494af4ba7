import { sql, type Transaction } from "kysely";
import type { Database, OutboxKind } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { Deliver, Delivery, OutboxRow } from "./outbox-types.ts";
import { createSqlitePages } from "./sqlite-pages.ts";

export type { Deliver, Delivery, OutboxRow } from "./outbox-types.ts";

/** Rows of these kinds due for the same recipient go out as one message. */
const batchedKinds: ReadonlySet<OutboxKind> = new Set(["comment_digest", "reply_digest"]);

/** Rows whose token is a link for the recipient alone, needed only until the mail is sent. */
const tokenUntilSent: ReadonlySet<OutboxKind> = new Set([
  "confirmation",
  "enquiry_ack",
  "reply_confirmation",
  "booking_invitation",
]);

/**
 * Rows whose payload is needed only until they are done with, sent or not:
 * the owner's notifications, whose payload names a visitor's comment, and
 * webhook calls, which may hold what a visitor wrote.
 */
const payloadUntilDone: ReadonlySet<OutboxKind> = new Set([
  "comment_notice",
  "comment_digest",
  "webhook",
  "booking_cancellation",
]);

/**
 * PostgreSQL: a row of a batched kind is claimed only by the instance that
 * holds its recipient's batch, a transaction-level advisory lock on (kind,
 * address) taken with the claim. Row locks alone let two instances each claim
 * one of a recipient's due rows at once, and each then sent a "digest" of one.
 * Other kinds are claimed as before. (CASE keeps the lock off other kinds' rows;
 * the two-key space is apart from the event journal's one-key lock.)
 */
const recipientFree = sql<boolean>`case when kind in (${sql.join(
  [...batchedKinds].map((kind) => sql.lit(kind)),
)}) then pg_try_advisory_xact_lock(hashtext('outbox batch'), hashtext(kind || ' ' || coalesce(email, ''))) else true end`;

/**
 * PostgreSQL: a claim lasts as long as the instance that holds it, never a
 * fixed time. The server's `idle_in_transaction_session_timeout` (its
 * statement timeout, 10 s) would end a claim's transaction while its mail
 * is with the SMTP server, or while a starved process waits for the CPU: the
 * lock went with it, another instance claimed the row and sent it, and then
 * so did the first (docs/decisions/056-an-outbox-claim-lasts-as-long-as-its-instance.md).
 * For this transaction only, there is no idle limit; TCP keepalives (30 s,
 * then every 10 s, 3 unanswered) end a claim whose host is gone, while a
 * paused or starved process, whose kernel still answers them, keeps it.
 */
const holdWhileAlive = sql`select set_config('idle_in_transaction_session_timeout', '0', true), set_config('tcp_keepalives_idle', '30', true), set_config('tcp_keepalives_interval', '10', true), set_config('tcp_keepalives_count', '3', true)`;

/** Temporary failures wait 30 s, then twice as long each time, at most an hour. */
export const retryPolicy = { baseMs: 30_000, maxMs: 60 * 60 * 1000, maxAttempts: 10 } as const;

export function retryDelay(attempts: number, baseMs: number = retryPolicy.baseMs): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), retryPolicy.maxMs);
}

/**
 * The outbox: one row per mail or webhook call (docs/decisions/008-newsletter.md,
 * docs/decisions/036-sending-in-flat-memory.md). On PostgreSQL a claim is a row lock
 * (`FOR UPDATE SKIP LOCKED`) held while the message is handed to the SMTP
 * server and released by the commit that records it: another instance skips
 * the row, and an instance that dies lets go of it with its connection, so
 * the row is sent again by whoever claims it next. On SQLite (one instance)
 * the claim is the status `sending`, which the server resets on start; rows
 * are claimed a page at a time there, and their outcomes recorded together.
 */
export function createOutboxRepository(
  store: Store,
  {
    retryBaseMs = retryPolicy.baseMs as number,
    clock = () => new Date(),
  }: {
    retryBaseMs?: number;
    /** The time rows are due against (the hourly digest's tests move it). */
    clock?: () => Date;
  } = {},
) {
  const { db } = store;
  const nowIso = () => clock().toISOString();

  async function record(
    trx: Transaction<Database> | Store["db"],
    row: OutboxRow,
    delivery: Delivery,
  ) {
    const now = nowIso();
    const attempts = row.attempts + 1;
    if (delivery.outcome === "sent") {
      await trx
        .updateTable("outbox")
        // A confirmation's token, and an enquiry's deletion link's, are needed only in the mail itself.
        .set({
          status: "sent",
          attempts,
          sent_at: now,
          last_error: null,
          token: tokenUntilSent.has(row.kind) ? null : row.token,
          payload: payloadUntilDone.has(row.kind) ? null : row.payload,
        })
        .where("id", "=", row.id as number)
        .execute();
    } else if (delivery.outcome === "retry" && attempts < retryPolicy.maxAttempts) {
      await trx
        .updateTable("outbox")
        .set({
          status: "queued",
          attempts,
          last_error: delivery.reason,
          next_attempt_at: new Date(
            clock().getTime() + retryDelay(attempts, retryBaseMs),
          ).toISOString(),
        })
        .where("id", "=", row.id as number)
        .execute();
    } else {
      await trx
        .updateTable("outbox")
        .set({
          status: delivery.outcome === "cancelled" ? "cancelled" : "failed",
          attempts,
          last_error: delivery.reason,
          payload: payloadUntilDone.has(row.kind) ? null : row.payload,
        })
        .where("id", "=", row.id as number)
        .execute();
    }
  }

  /** A bug or a lost database connection in delivery is a temporary failure, never a lost row. */
  async function safely(
    deliver: Deliver,
    row: OutboxRow,
    trx: Transaction<Database> | Store["db"],
    batch: OutboxRow[],
  ) {
    try {
      return await deliver(row, trx, batch);
    } catch (error) {
      return { outcome: "retry", reason: (error as Error).message } satisfies Delivery;
    }
  }

  /** The claimed row with, for a batched kind, the other due rows to the same recipient. */
  async function batchOf(
    trx: Transaction<Database> | Store["db"],
    row: OutboxRow,
    now: string,
  ): Promise<OutboxRow[]> {
    if (!batchedKinds.has(row.kind) || row.email === null) return [row];
    const companions = trx
      .selectFrom("outbox")
      .where("status", "=", "queued")
      .where("next_attempt_at", "<=", now)
      .where("kind", "=", row.kind)
      .where("email", "=", row.email)
      .where("id", "!=", row.id);
    if (store.kind === "postgres") {
      const others = await companions.selectAll().orderBy("id").forUpdate().skipLocked().execute();
      return [row, ...others];
    }
    const others = await trx
      .updateTable("outbox")
      .set({ status: "sending" })
      .where("id", "in", companions.select("id"))
      .where("status", "=", "queued")
      .returningAll()
      .execute();
    return [row, ...others.sort((a, b) => Number(a.id) - Number(b.id))];
  }

  async function recordAll(
    trx: Transaction<Database> | Store["db"],
    batch: OutboxRow[],
    delivery: Delivery,
  ) {
    for (const row of batch) await record(trx, row, delivery);
  }

  const { claimPage, processPages } = createSqlitePages({ db, nowIso, record, safely });

  /** Whether a row of `kinds` is due: one read on the `outbox_due` index, no claim. */
  async function anyDue(kinds: readonly OutboxKind[]): Promise<boolean> {
    const row = await db
      .selectFrom("outbox")
      .select("id")
      .where("status", "=", "queued")
      .where("next_attempt_at", "<=", nowIso())
      .where("kind", "in", kinds)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Claims a row of `kinds` on its own, delivers it and records the outcome;
   * false when none is due.
   */
  async function processNext(
    deliver: Deliver,
    { kinds }: { kinds?: readonly OutboxKind[] } = {},
  ): Promise<boolean> {
    const now = nowIso();
    if (store.kind === "postgres") {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom("outbox")
          .selectAll()
          .where("status", "=", "queued")
          .where("next_attempt_at", "<=", now)
          .$if(kinds !== undefined, (query) => query.where("kind", "in", kinds ?? []))
          .where(recipientFree)
          .orderBy("kind")
          .orderBy("id")
          .limit(1)
          .forUpdate()
          .skipLocked()
          .executeTakeFirst();
        if (!row) return false;
        await holdWhileAlive.execute(trx);
        const batch = await batchOf(trx, row, now);
        await recordAll(trx, batch, await safely(deliver, row, trx, batch));
        return true;
      });
    }
    const [row] = await claimPage(kinds, 1);
    if (!row) return false;
    const batch = await batchOf(db, row, now);
    await recordAll(db, batch, await safely(deliver, row, db, batch));
    return true;
  }

  return {
    /** SQLite only: rows (of these kinds) a stopped server had claimed go back to the queue. */
    async releaseClaims({ kinds }: { kinds?: readonly OutboxKind[] } = {}): Promise<number> {
      if (store.kind !== "sqlite") return 0;
      const result = await db
        .updateTable("outbox")
        .set({ status: "queued" })
        .where("status", "=", "sending")
        .$if(kinds !== undefined, (query) => query.where("kind", "in", kinds ?? []))
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /**
     * Claims the next due row (of `kinds`, when given; by kind, so the
     * owner's notifications and confirmations go before editions, then oldest
     * first), delivers it and records the outcome. False when nothing is due.
     */
    processNext,

    /**
     * Delivers due rows of `kinds` with at most `inFlight` at once, each
     * until none is due or `going` says the worker stops; the
     * number handled. On PostgreSQL that is `inFlight` claims side by side,
     * each a row lock in its own transaction; on SQLite, pages of rows. Rows
     * sent in batches (the digests) go first, one at a time.
     */
    async processSome(
      deliver: Deliver,
      {
        kinds,
        inFlight,
        going,
      }: { kinds: readonly OutboxKind[]; inFlight: number; going: () => boolean },
    ): Promise<number> {
      // Every instance looks every poll interval, mostly finding nothing: a
      // look is this one read, not a claim's transaction per lane and per
      // group of kinds (on PostgreSQL, five transactions by default).
      if (kinds.length === 0 || !(await anyDue(kinds))) return 0;
      let handled = 0;
      const batched = kinds.filter((kind) => batchedKinds.has(kind));
      const single = kinds.filter((kind) => !batchedKinds.has(kind));
      // Rows sent in batches (the digests) are claimed one at a time: two
      // claims side by side would split one recipient's digest in two.
      while (batched.length > 0 && going() && (await processNext(deliver, { kinds: batched }))) {
        handled += 1;
      }
      if (single.length === 0) return handled;
      if (store.kind === "sqlite") {
        return handled + (await processPages(deliver, { kinds: single, inFlight, going }));
      }
      let due = true;
      const lane = async () => {
        while (due && going()) {
          if (!(await processNext(deliver, { kinds: single }))) due = false;
          else handled += 1;
        }
      };
      await Promise.all(Array.from({ length: inFlight }, lane));
      return handled;
    },
  };
}

export type OutboxRepository = ReturnType<typeof createOutboxRepository>;
