import { DatabaseSync } from "node:sqlite";
import type { Db } from "../db/store.ts";
import { toIso } from "../lib/time.ts";
import { enqueue, type QueuedMessage } from "../outbox/queue.ts";
import { dropQueued, parseBookingPayload, queueReminders, seriesOfRow } from "./queued-mails.ts";

/** A call as the database a restore replaced holds it: what became of it after the backup. */
type CallSince = {
  id: number;
  uid: string;
  status: "booked" | "cancelled";
  start: string;
  end: string;
  sequence: number;
  ownerMoves: number;
  tokenHash: string | null;
  cancelledBy: "reader" | "owner" | null;
  /** Released because the reader's invitation hard-bounced (undeliverable.ts): nobody cancelled it. */
  undeliverable: boolean;
  cancelMessage: string | null;
  updatedAt: string;
};

/** What the database a restore replaced says of the calls since the backup. */
export type Since = {
  calls: CallSince[];
  /** Its cancellations and invitations not yet sent when it was last used: each names its call. */
  unsent: {
    kind: "booking_cancellation" | "booking_invitation";
    email: string | null;
    payload: string | null;
  }[];
};

/** A call still ahead in the restored backup, as the restore names it. */
export type RestoredCall = { id: number; start: string; name: string };

const text = (value: unknown) => (value === null || value === undefined ? null : String(value));

/** What the SQLite database a restore replaces says of the calls since the backup; nothing if it has no bookings. */
export function callsIn(databaseFile: string): Since {
  using db = new DatabaseSync(databaseFile, { readOnly: true });
  try {
    // Every column: one older than a column (owner_moves) reads without it.
    const rows = db.prepare("select * from bookings").all();
    const unsent = db
      .prepare(
        "select kind, email, payload from outbox where kind in ('booking_cancellation', 'booking_invitation') and status in ('queued', 'sending') order by id",
      )
      .all() as Since["unsent"];
    return {
      calls: rows.map((row) => ({
        id: Number(row.id),
        uid: String(row.uid),
        status: row.status === "cancelled" ? "cancelled" : "booked",
        start: toIso(String(row.starts_at)),
        end: toIso(String(row.ends_at)),
        sequence: Number(row.sequence),
        ownerMoves: Number(row.owner_moves ?? 0),
        tokenHash: text(row.token_hash),
        cancelledBy:
          row.cancelled_by === "reader" || row.cancelled_by === "owner" ? row.cancelled_by : null,
        undeliverable: Number(row.undeliverable ?? 0) === 1,
        cancelMessage: text(row.cancel_message),
        updatedAt: String(row.updated_at),
      })),
      unsent,
    };
  } catch {
    return { calls: [], unsent: [] }; // A database older than bookings.
  }
}

/**
 * After a restore (docs/backups.md): each call the backup holds as booked and still
 * ahead, by what the database it replaced (`since`) says of it. One cancelled there
 * since the backup is cancelled here as it was, its sequence, message and why (by its
 * reader, the owner, or an invitation that hard-bounced) too, and its
 * queued invitations and reminders go: both sides were sent its cancellation then. One
 * moved there since (by its reader or the owner) is moved here as it was: its time,
 * sequence, the owner's moves and its links' token; its reminders are queued for its
 * new time. One moved to a time a call the backup holds still takes stays at the
 * backup's time, and is returned (`unmoved`). One that database no longer holds was
 * deleted since (a call still ahead is deleted only cancelled, or by its reader's
 * "Your data"), which this cannot undo by itself: it is returned, for the owner to
 * cancel or delete by hand. The cancellations that database had still to send are
 * queued here, and the invitations of the calls moved since, so both sides still hear
 * of them. Null when `since` shares no call with the backup: another site's database,
 * or a new one, which tells nothing.
 */
export async function keepCallsSince(
  db: Db,
  since: Since,
  now: Date,
  ownerEmail: string | undefined,
): Promise<{
  cancelled: RestoredCall[];
  moved: RestoredCall[];
  unmoved: RestoredCall[];
  gone: RestoredCall[];
  requeued: { cancellations: number; invitations: number };
} | null> {
  const later = new Map(since.calls.map((call) => [call.uid, call]));
  const calls = await db
    .selectFrom("bookings")
    .select(["id", "uid", "starts_at", "name", "email", "status", "sequence"])
    .orderBy("starts_at")
    .orderBy("id")
    .execute();
  if (!calls.some((call) => later.has(call.uid))) return null;
  const cancelled: RestoredCall[] = [];
  const gone: RestoredCall[] = [];
  const moves: { row: (typeof calls)[number]; then: CallSince; call: RestoredCall }[] = [];
  for (const row of calls.filter((call) => call.status === "booked")) {
    const call = { id: Number(row.id), start: toIso(row.starts_at), name: row.name };
    if (Date.parse(call.start) <= now.getTime()) continue;
    const then = later.get(row.uid);
    if (!then) gone.push(call);
    if (then?.status === "booked" && then.sequence > Number(row.sequence)) {
      moves.push({ row, then, call });
    }
    if (then?.status !== "cancelled") continue;
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable("bookings")
        .set({
          status: "cancelled",
          sequence: then.sequence,
          token_hash: null,
          cancelled_by: then.cancelledBy,
          undeliverable: then.undeliverable ? 1 : 0,
          cancel_message: then.cancelMessage,
          updated_at: then.updatedAt,
        })
        .where("id", "=", call.id)
        .execute();
      await dropQueued(trx, call.id);
    });
    cancelled.push(call);
  }
  const withSeries = (mail: Since["unsent"][number]) => ({
    ...mail,
    series: seriesOfRow(mail.payload),
  });
  // A moved call's invitations (by its id there, which must be its id here too) go before its reminders.
  const invitationsOf = (id: number) =>
    since.unsent
      .filter((mail) => mail.kind === "booking_invitation")
      .filter((mail) => parseBookingPayload(mail.payload)?.bookingId === id)
      .map(withSeries);
  const { moved, unmoved, invitations } = await keepMoves(
    db,
    moves,
    now,
    ownerEmail,
    invitationsOf,
  );
  const unsent = since.unsent.filter((mail) => mail.kind === "booking_cancellation");
  await enqueue(db, now.toISOString(), unsent.map(withSeries));
  const cancellations = unsent.length;
  return {
    cancelled,
    moved,
    unmoved,
    gone,
    requeued: { cancellations, invitations },
  };
}

/**
 * The calls moved since, in one transaction: taken out of the one-call-a-time index
 * first, so two calls that swapped times come back swapped; one whose new time a call
 * not moved holds stays where it was.
 */
async function keepMoves(
  db: Db,
  moves: { row: { id: number; email: string }; then: CallSince; call: RestoredCall }[],
  now: Date,
  ownerEmail: string | undefined,
  /** The call's invitations the replaced database had not sent, queued before its reminders. */
  invitationsOf: (id: number) => QueuedMessage[],
) {
  const moved: RestoredCall[] = [];
  const unmoved: RestoredCall[] = [];
  let invitations = 0;
  if (moves.length === 0) return { moved, unmoved, invitations };
  await db.transaction().execute(async (trx) => {
    const ids = moves.map((move) => move.call.id);
    const held = await trx
      .selectFrom("bookings")
      .select("starts_at")
      .where("status", "=", "booked")
      .where("id", "not in", ids)
      .execute();
    const taken = new Set(held.map((row) => toIso(row.starts_at)));
    const free = moves.filter((move) => !taken.has(move.then.start));
    unmoved.push(...moves.filter((move) => !free.includes(move)).map((move) => move.call));
    if (free.length === 0) return;
    const freeIds = free.map((move) => move.call.id);
    await trx
      .updateTable("bookings")
      .set({ status: "cancelled" })
      .where("id", "in", freeIds)
      .execute();
    for (const { row, then, call } of free) {
      await trx
        .updateTable("bookings")
        .set({
          status: "booked",
          starts_at: then.start,
          ends_at: then.end,
          sequence: then.sequence,
          owner_moves: then.ownerMoves,
          token_hash: then.tokenHash,
          updated_at: then.updatedAt,
        })
        .where("id", "=", call.id)
        .execute();
      await dropQueued(trx, call.id);
      const unsent = then.id === call.id ? invitationsOf(call.id) : [];
      await enqueue(trx, now.toISOString(), unsent);
      invitations += unsent.length;
      await queueReminders(
        trx,
        now,
        {
          id: call.id,
          email: row.email,
          start: new Date(then.start),
          sequence: then.sequence,
        },
        ownerEmail,
      );
      moved.push({ ...call, start: then.start });
    }
  });
  return { moved, unmoved, invitations };
}
