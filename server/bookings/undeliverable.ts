import { transact } from "../db/owner-actor.ts";
import type { Db } from "../db/store.ts";
import type { OnUndeliverable } from "../outbox/recipient-health.ts";
import { parseBookingPayload, queueCancellations } from "./queued-mails.ts";
import { toStored } from "./stored.ts";

/**
 * A call whose reader's invitation hard-bounced is released
 * (docs/decisions/090-a-booking-whose-address-bounces-is-released.md): a stranger
 * could otherwise hold the owner's time under made-up addresses. The outbox hands
 * over the row a hard bounce is tied to (its SMTP answer, a report to its signed
 * return path, a verified provider's report of its mail), never an address alone.
 * Only the reader's invitation of the call as it stands counts: an owner's copy, a
 * reminder, an invitation of a time since moved, or a call that has begun or was
 * cancelled changes nothing. The time is free again, the call shows cancelled
 * because its address does not receive mail, its mails still queued go, and the
 * owner is sent the cancellation (its calendar copy taken out); the reader, nothing.
 */
export function releaseUndeliverable({
  db,
  clock,
  ownerEmail,
  woken,
}: {
  db: Db;
  clock: () => Date;
  ownerEmail: string | undefined;
  woken: () => void;
}): OnUndeliverable {
  return async (row, within = db) => {
    if (row.kind !== "booking_invitation" || !row.email) return;
    const payload = parseBookingPayload(row.payload);
    if (payload?.to !== "reader") return;
    const now = clock().toISOString();
    const released = await transact(within, async (trx) => {
      const cancelled = await trx
        .updateTable("bookings")
        .set((eb) => ({
          status: "cancelled" as const,
          sequence: eb("sequence", "+", 1),
          token_hash: null,
          undeliverable: 1,
          updated_at: now,
        }))
        .where("id", "=", payload.bookingId)
        .where("status", "=", "booked")
        .where("sequence", "=", payload.sequence)
        .where("email", "=", row.email ?? "")
        .where("starts_at", ">", now)
        .returningAll()
        .executeTakeFirst();
      if (!cancelled) return false;
      const call = { by: "undeliverable" as const, message: null };
      // The invitation's own row stays, failed with its answer, as any hard-bounced mail.
      await queueCancellations(trx, clock(), toStored(cancelled), call, ownerEmail, {
        reader: false,
        sending: Number(row.id),
      });
      return true;
    });
    if (released) woken();
  };
}
