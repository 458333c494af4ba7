import { type ExpressionBuilder, type Insertable, type SelectQueryBuilder, sql } from "kysely";
import type { Database, OutboxKind, OutboxTable } from "../db/schema.ts";
import type { Db, Store } from "../db/store.ts";
import { withoutAddresses } from "../lib/log.ts";
import { statementParts } from "../lib/parts.ts";
import * as rules from "./delivery-rules.ts";
import type { OnOutboxDeleted } from "./mail-files.ts";
import { takeMarks } from "./marks.ts";

/*
 * The outbox table's writer: the modules above queue mail here and forget it (forget.ts) in
 * their own transaction; the worker (outbox-worker.ts) claims rows and records what became of them.
 */

/** A message to queue: what it is, to whom, and what its composer needs. */
export type QueuedMessage = {
  kind: OutboxKind;
  /** The recipient; none for a webhook call. */
  email?: string | null;
  /** A link's token for the recipient (an unsubscribe or confirmation token). */
  token?: string | null;
  /** The mailbox's keyed digest, by which its kind finds what it queued for it. */
  emailHash?: string | null;
  /** JSON for the composer: which row the mail is about, never what a visitor wrote. */
  payload?: string | null;
  /** When it is due, if not at once (a digest's window). */
  due?: string;
  /**
   * Its series, if it goes in order with others (a booked call's mails to one side): it is
   * not claimed while an earlier row of its series is queued or being sent; one sent,
   * failed, cancelled or deleted lets it go. Its own kind decides what a late mail says.
   */
  series?: string | null;
};

/** Hands the ids of the rows `writer` deleted to its store's `onOutboxDeleted`; how many. */
export async function deleted(writer: Db, rows: readonly { id: number | string | bigint }[]) {
  const ids = rows.map((row) => Number(row.id));
  for (const plugin of ids.length > 0 ? writer.getExecutor().plugins : [])
    await (plugin as Partial<OnOutboxDeleted>).outboxDeleted?.(ids);
  return ids.length;
}

/** Puts back an edition's sending records as an export holds them (an import, server/portability/). */
export async function restore(writer: Db, rows: readonly Insertable<OutboxTable>[]) {
  await writer.insertInto("outbox").values(rows).execute();
}

/** Queues messages, due at `at` unless they say otherwise. */
export async function enqueue(writer: Db, at: string, messages: readonly QueuedMessage[]) {
  if (messages.length === 0) return;
  await writer
    .insertInto("outbox")
    .values(
      messages.map((message) => ({
        kind: message.kind,
        email: message.email ?? null,
        token: message.token ?? null,
        email_hash: message.emailHash ?? null,
        payload: message.payload ?? null,
        series: message.series ?? null,
        status: "queued" as const,
        next_attempt_at: message.due ?? at,
        created_at: at,
      })),
    )
    .execute();
}

/**
 * Queues one message of `kind` to each recipient `recipients` selects (its
 * `email`, then its `token`), in one statement however many they are: an
 * edition to a page of its subscribers. A recipient who has it already is
 * skipped (the table's unique index on edition and address). How many were queued.
 */
export async function enqueueEach(
  writer: Db,
  at: string,
  { kind, editionId }: { kind: OutboxKind; editionId: number },
  // biome-ignore lint/suspicious/noExplicitAny: any table the recipients come from.
  recipients: SelectQueryBuilder<Database, any, { email: string; token: string | null }>,
): Promise<number> {
  const result = await writer
    .insertInto("outbox")
    .columns([
      "email",
      "token",
      "kind",
      "edition_id",
      "status",
      "attempts",
      "next_attempt_at",
      "created_at",
    ])
    .expression(
      // Typed: an INSERT … SELECT's columns are not checked against the table's.
      recipients.select((eb) => [
        eb.val<OutboxKind>(kind).as("kind"),
        eb.val(editionId).as("edition_id"),
        eb.val("queued").as("status"),
        eb.val(0).as("attempts"),
        eb.val(at).as("next_attempt_at"),
        eb.val(at).as("created_at"),
      ]),
    )
    .onConflict((conflict) => conflict.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/**
 * Claiming and recording (docs/decisions/008-newsletter.md, 036-sending-in-flat-memory.md).
 * On PostgreSQL a claim is a row lock (`FOR UPDATE SKIP LOCKED`) held while the
 * message is handed over and released by the commit that records it; an
 * instance that dies lets go of it with its connection. On SQLite (one
 * instance) the claim is the status `sending`, reset on start; rows are
 * claimed a page at a time there, and their outcomes recorded together.
 */
export function createOutboxRepository(
  store: Store,
  {
    retryBaseMs = rules.retryPolicy.baseMs as number,
    clock = () => new Date(),
  }: {
    retryBaseMs?: number;
    /** The time rows are due against (the hourly digest's tests move it). */
    clock?: () => Date;
  } = {},
) {
  const { db } = store;
  const nowIso = () => clock().toISOString();

  async function record(trx: Db, row: rules.OutboxRow, delivery: rules.Delivery) {
    const attempts = row.attempts + 1;
    const retry = delivery.outcome === "retry" && attempts < rules.retryPolicy.maxAttempts;
    const status = retry ? "queued" : delivery.outcome === "retry" ? "failed" : delivery.outcome;
    const forgotten = !retry && rules.rowUntilDone.has(row.kind);
    const reason = delivery.outcome === "sent" ? null : delivery.reason;
    if (forgotten && status !== "failed") {
      const gone = trx.deleteFrom("outbox").where("id", "=", row.id as number);
      await deleted(trx, await gone.returning("id").execute());
      return;
    }
    const result = await trx
      .updateTable("outbox")
      .set({
        status,
        attempts,
        // A row that outlives what it is about keeps no address, not even in the answer.
        last_error: reason && forgotten ? withoutAddresses(reason) : reason,
        ...(status === "sent" ? { sent_at: nowIso() } : {}),
        ...(retry
          ? {
              next_attempt_at: new Date(
                clock().getTime() + rules.retryDelay(attempts, retryBaseMs),
              ).toISOString(),
            }
          : {
              payload: rules.payloadUntilDone.has(row.kind) || forgotten ? null : row.payload,
              token: rules.tokenUntilDone.has(row.kind) ? null : row.token,
            }),
        ...(forgotten ? { email: null } : {}),
      })
      .where("id", "=", row.id as number)
      .executeTakeFirst();
    // SQLite: a row deleted while its mail went out, its file written since.
    if (Number(result.numUpdatedRows) === 0) await deleted(trx, [row]);
  }

  /** The claimed row with, for a batched kind, the other due rows to the same recipient. */
  async function batchOf(trx: Db, row: rules.OutboxRow, now: string): Promise<rules.OutboxRow[]> {
    if (!rules.batchedKinds.has(row.kind) || row.email === null) return [row];
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
      .returningAll()
      .execute();
    return [row, ...others.sort((a, b) => Number(a.id) - Number(b.id))];
  }

  /**
   * Each kind due takes its turn (a row on PostgreSQL, a page on SQLite) after the kind last
   * claimed from these `kinds`, by name, oldest first within it: no mail waits behind another
   * kind's backlog (an edition, a flood of sign-ups). Kept per list of kinds (the webhooks').
   */
  const turns = new Map<string, OutboxKind>();
  const turnOf = (kinds: readonly OutboxKind[] | undefined) => kinds?.join(" ") ?? "";
  /** The kind claimed last from `kinds`, while one of them comes after it. */
  const lastTurn = (kinds: readonly OutboxKind[] | undefined, last = turns.get(turnOf(kinds))) =>
    last === undefined || kinds?.every((kind) => kind <= last) ? undefined : last;
  /** An earlier row of the row's series still queued or being sent (`QueuedMessage`). */
  const earlier = (eb: ExpressionBuilder<Database, "outbox">) =>
    eb
      .selectFrom("outbox as before")
      .select("before.id")
      .whereRef("before.series", "=", "outbox.series")
      .whereRef("before.id", "<", "outbox.id")
      .where("before.status", "in", ["queued", "sending"]);
  // The kinds after `after` are compared and named too: PostgreSQL reads on from `after`; SQLite
  // seeks each named, and, were the earlier named, read `kind > ?` off each of their rows.
  const due = (from: Db, now: string, kinds?: readonly OutboxKind[], after?: OutboxKind) => {
    const named = after === undefined ? kinds : kinds?.filter((kind) => kind > after);
    return from
      .selectFrom("outbox")
      .where("status", "=", "queued")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("series", "is", null), eb.not(eb.exists(earlier(eb)))]))
      .$if(named !== undefined, (query) => query.where("kind", "in", named ?? []))
      .$if(after !== undefined, (query) => query.where("kind", ">", after as OutboxKind));
  };

  /** SQLite: up to `limit` due rows of the kind whose turn it is (of `kinds`, or any), marked `sending`, oldest first. */
  async function claimPage(kinds: readonly OutboxKind[] | undefined, limit: number) {
    const now = nowIso();
    const after = lastTurn(kinds);
    // By id alone: beside it, the status had SQLite read every queued row's index entry.
    const rows = await db
      .updateTable("outbox")
      .set({ status: "sending" })
      .where("id", "in", (eb) => {
        const next = (than?: OutboxKind) =>
          due(db, now, kinds, than).select("kind").orderBy("kind").limit(1);
        return due(db, now, kinds, undefined)
          .select("id")
          .where("kind", "=", eb.fn.coalesce(next(after), next()))
          .orderBy("id")
          .limit(limit);
      })
      .returningAll()
      .execute();
    if (rows[0]) turns.set(turnOf(kinds), rows[0].kind);
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** SQLite: claimed rows (of `kinds`, or these `ids`: a stopped server's, a page's unsent) requeued. */
  async function release({ kinds, ids }: { kinds?: readonly OutboxKind[]; ids?: number[] }) {
    if (store.kind !== "sqlite") return 0;
    const result = await db
      .updateTable("outbox")
      .set({ status: "queued" })
      .where("status", "=", "sending")
      .$if(kinds !== undefined, (query) => query.where("kind", "in", kinds ?? []))
      .$if(ids !== undefined, (query) => query.where("id", "in", ids ?? []))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  return {
    release,
    claimPage,
    store,

    /** Which of these rows are no more. */
    async gone(ids: readonly number[]) {
      const missing = new Set(ids);
      for (const part of statementParts(ids)) {
        const rows = await db.selectFrom("outbox").select("id").where("id", "in", part).execute();
        for (const row of rows) missing.delete(Number(row.id));
      }
      return missing;
    },

    /** Whether a row of `kinds` is due: one read on the `outbox_due` index, no claim. */
    async anyDue(kinds: readonly OutboxKind[]) {
      const row = await due(db, nowIso(), kinds, undefined)
        .select("id")
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Claims the next due row (of `kinds`, whose turn it is) with its batch, delivers it and records it; false if none. */
    async processNext(deliver: rules.Deliver, { kinds }: { kinds?: readonly OutboxKind[] } = {}) {
      const now = nowIso();
      if (store.kind === "postgres") {
        const claimed = await db.transaction().execute(async (trx) => {
          const claim = (after?: OutboxKind) =>
            due(trx, now, kinds, after)
              .selectAll()
              .where(rules.recipientFree)
              .orderBy("kind")
              .orderBy("id")
              .limit(1)
              .forUpdate()
              .skipLocked()
              .executeTakeFirst();
          const after = lastTurn(kinds);
          const row = (after === undefined ? undefined : await claim(after)) ?? (await claim());
          if (!row) return false;
          turns.set(turnOf(kinds), row.kind);
          await rules.holdWhileAlive.execute(trx);
          const batch = await batchOf(trx, row, now);
          const delivery = await deliver(row, trx, batch);
          for (const each of batch) await record(trx, each, delivery);
          return true;
        });
        // A report's mark left while this held its rows (marks.ts).
        if (claimed) await takeMarks(store);
        return claimed;
      }
      const [row] = await claimPage(kinds, 1);
      if (!row) return false;
      const batch = await batchOf(db, row, now);
      const delivery = await deliver(row, db, batch);
      for (const each of batch) await record(db, each, delivery);
      return true;
    },

    /**
     * SQLite: the outcomes of several sends in one transaction, its commit in
     * the database's log but not flushed (`synchronous = normal`): a killed
     * process loses none, a power cut those since the last flush, which go out
     * again (docs/decisions/036-sending-in-flat-memory.md). A flush per record
     * would make the disk, not the SMTP server, set the pace.
     */
    async recordTogether(group: readonly { row: rules.OutboxRow; delivery: rules.Delivery }[]) {
      await db.connection().execute(async (conn) => {
        const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(conn);
        const before = Number(rows[0]?.synchronous ?? 2);
        await sql`pragma synchronous = normal`.execute(conn);
        try {
          await conn.transaction().execute(async (trx) => {
            for (const { row, delivery } of group) await record(trx, row, delivery);
          });
        } finally {
          await sql.raw(`pragma synchronous = ${before}`).execute(conn);
        }
      });
    },
  };
}

export type OutboxRepository = ReturnType<typeof createOutboxRepository>;
