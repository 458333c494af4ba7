import type { Db } from "../db/store.ts";
import { toIso } from "../lib/time.ts";
import { enqueue } from "../outbox/queue.ts";
import { dropQueued } from "./queued-mails.ts";

/** A call as the database a restore replaced holds it: what became of it after the backup. */
export type CallSince = {
  uid: string;
  status: "booked" | "cancelled";
  sequence: number;
  cancelledBy: "reader" | "owner" | null;
  cancelMessage: string | null;
  updatedAt: string;
};

/** What the database a restore replaced says of the calls since the backup. */
export type Since = {
  calls: CallSince[];
  /** Its cancellations not yet sent when it was last used: each carries its call. */
  unsentCancellations: { email: string | null; payload: string | null }[];
};

/** A call still ahead in the restored backup, as the restore names it. */
export type RestoredCall = { id: number; start: string; name: string };

/**
 * After a restore (docs/backups.md): each call the backup holds as booked and still
 * ahead, by what the database it replaced (`since`) says of it. One cancelled there
 * since the backup is cancelled here as it was, its sequence and message too, and its
 * queued invitations and reminders go: both sides were sent its cancellation then. One
 * that database no longer holds was deleted since (a call still ahead is deleted only
 * cancelled, or by its reader's "Your data"), which this cannot undo by itself: it is
 * returned, for the owner to cancel or delete by hand. The cancellations that database
 * had still to send are queued here, so both sides still hear of them. Null when
 * `since` shares no call with the backup: another site's database, or a new one, which
 * tells nothing.
 */
export async function keepCancelledSince(
  db: Db,
  since: Since,
  now: Date,
): Promise<{ cancelled: RestoredCall[]; gone: RestoredCall[]; requeued: number } | null> {
  const later = new Map(since.calls.map((call) => [call.uid, call]));
  const calls = await db
    .selectFrom("bookings")
    .select(["id", "uid", "starts_at", "name", "status"])
    .orderBy("starts_at")
    .orderBy("id")
    .execute();
  if (!calls.some((call) => later.has(call.uid))) return null;
  const cancelled: RestoredCall[] = [];
  const gone: RestoredCall[] = [];
  for (const row of calls.filter((call) => call.status === "booked")) {
    const call = { id: Number(row.id), start: toIso(row.starts_at), name: row.name };
    if (Date.parse(call.start) <= now.getTime()) continue;
    const then = later.get(row.uid);
    if (!then) gone.push(call);
    if (then?.status !== "cancelled") continue;
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable("bookings")
        .set({
          status: "cancelled",
          sequence: then.sequence,
          token_hash: null,
          cancelled_by: then.cancelledBy,
          cancel_message: then.cancelMessage,
          updated_at: then.updatedAt,
        })
        .where("id", "=", call.id)
        .execute();
      await dropQueued(trx, call.id);
    });
    cancelled.push(call);
  }
  const unsent = since.unsentCancellations.map((mail) => ({
    kind: "booking_cancellation" as const,
    ...mail,
  }));
  await enqueue(db, now.toISOString(), unsent);
  return { cancelled, gone, requeued: unsent.length };
}
