import { type Selectable, sql } from "kysely";
import type { OutboxKind, OutboxTable } from "../db/schema.ts";
import type { Db } from "../db/store.ts";

/*
 * What a delivery is, and the rules queue.ts claims and records rows by: which
 * kinds go out in batches, what a row keeps until it is done with, how long a
 * retry waits, and how long a PostgreSQL claim holds.
 */

export type OutboxRow = Selectable<OutboxTable>;

/** What became of one attempt to send a row. */
export type Delivery =
  | { outcome: "sent" }
  | { outcome: "retry"; reason: string }
  | { outcome: "failed"; reason: string }
  /** The recipient left before the mail went out. */
  | { outcome: "cancelled"; reason: string };

/**
 * Sends one claimed row; `batch` is the row itself, or with a batched kind every
 * due row of it to the same recipient, claimed together, each recorded alike.
 */
export type Deliver = (row: OutboxRow, db: Db, batch: OutboxRow[]) => Promise<Delivery>;

/** Rows of these kinds due for the same recipient go out as one message, claimed one at a time. */
export const batchedKinds: ReadonlySet<OutboxKind> = new Set(["comment_digest", "reply_digest"]);
/**
 * Rows whose token is a link for the recipient alone, needed only by the mail: cleared
 * as it is recorded sent, failed for good or cancelled. (An edition's or a reply mail's
 * is the seed of the address's standing unsubscribe link, which the edition's figures join on.)
 */
export const tokenUntilDone: ReadonlySet<OutboxKind> = new Set([
  "confirmation",
  "enquiry_ack",
  "reply_confirmation",
  "booking_invitation",
]);

/**
 * Rows whose payload (what a webhook says) is kept only until done with. The
 * owner's mails about a comment keep which one (its number, never its words),
 * so that its deletion takes them, and without SMTP_URL their files, with it.
 */
export const payloadUntilDone: ReadonlySet<OutboxKind> = new Set(["webhook"]);

/**
 * Rows that outlive what they are about: a booking's cancellation goes out
 * even when the booking was deleted meanwhile ("Your data"), and carries the
 * call itself to do so. Once sent or cancelled the row is deleted, so nothing
 * of the reader stays behind; one that failed for good stays counted, with
 * neither its address nor its payload.
 */
export const rowUntilDone: ReadonlySet<OutboxKind> = new Set(["booking_cancellation"]);

/**
 * PostgreSQL: a row of a batched kind is claimed only by the instance that
 * holds its recipient's batch, an advisory lock on (kind, address) taken with
 * the claim: with row locks alone, two instances each sent a "digest" of one.
 * (The two-key space is apart from the event journal's one-key lock.)
 */
export const recipientFree = sql<boolean>`case when kind in (${sql.join(
  [...batchedKinds].map((kind) => sql.lit(kind)),
)}) then pg_try_advisory_xact_lock(hashtext('outbox batch'), hashtext(kind || ' ' || coalesce(email, ''))) else true end`;

/**
 * PostgreSQL: a claim lasts as long as the instance that holds it, never a
 * fixed time (docs/decisions/056-an-outbox-claim-lasts-as-long-as-its-instance.md):
 * no idle limit for its transaction; TCP keepalives (30 s, then every 10 s, 3
 * unanswered) end a claim whose host is gone, not one whose process is starved.
 */
export const holdWhileAlive = sql`select set_config('idle_in_transaction_session_timeout', '0', true), set_config('tcp_keepalives_idle', '30', true), set_config('tcp_keepalives_interval', '10', true), set_config('tcp_keepalives_count', '3', true)`;

/** Temporary failures wait 30 s, then twice as long each time, at most an hour. */
export const retryPolicy = { baseMs: 30_000, maxMs: 60 * 60 * 1000, maxAttempts: 10 } as const;

export function retryDelay(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), retryPolicy.maxMs);
}
