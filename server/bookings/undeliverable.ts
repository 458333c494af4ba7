import { momentLabel } from "../../contract/time-zones.ts";
import { transact } from "../db/owner-actor.ts";
import type { Store } from "../db/store.ts";
import { detailsHtml, detailsText, laidOut, oneLine } from "../outbox/mail-layout.ts";
import type { OutgoingMail } from "../outbox/mailer.ts";
import type { OnUndeliverable } from "../outbox/recipient-health.ts";
import { thread } from "./calendar-file.ts";
import type { BookingMailContext } from "./mails.ts";
import {
  type CancelledCall,
  holdQueued,
  parseBookingPayload,
  queueCancellations,
} from "./queued-mails.ts";
import { type StoredBooking, toStored } from "./stored.ts";

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
 * owner is sent the cancellation (its calendar copy taken out), or, when no invitation
 * of it had been sent to them, why it fell through (`notKeptMail`); the reader, nothing.
 */
export function releaseUndeliverable({
  store: { db, kind },
  clock,
  ownerEmail,
  woken,
}: {
  store: Pick<Store, "db" | "kind">;
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
      // The call's mails, then its booking, as every change takes them (decision 092); at
      // send time the invitation's own row is held already.
      await holdQueued(trx, payload.bookingId, kind);
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

/**
 * The owner's news of a call released before any invitation of it was sent to them
 * (decision 095): a reader booked, the invitation to their address bounced first. It
 * names the reader in its body as the owner's other mails do (name and address, not
 * the note); its headers hold nothing the reader typed (the subject names the time,
 * and no Reply-To leads to the address that bounced), and no calendar file comes: the
 * owner's calendar was sent nothing to take out.
 */
export function notKeptMail(
  to: string,
  call: CancelledCall,
  context: BookingMailContext,
  reader?: Pick<StoredBooking, "name" | "email">,
): OutgoingMail {
  const when = momentLabel(Date.parse(call.start), context.ownerZone);
  const details: [string, string][] = [
    ["When", when],
    ["About", context.serviceTitle],
    ...(reader ? [["With", `${reader.name} <${reader.email}>`] as [string, string]] : []),
  ];
  return laidOut({
    to,
    subject: oneLine(`Not booked: call on ${when}`),
    footer: "Nothing more is sent about this call, to you or to that address.",
    lead: "A reader booked a call, but their address does not receive mail: the invitation to it bounced, so the call was not kept and the time is free again.\n\nNo invitation of it had been sent to you, so this mail carries no calendar file.",
    html: detailsHtml(details),
    text: detailsText(details),
    headers: { "Auto-Submitted": "auto-generated" },
    ...thread("owner", call.uid, null),
  });
}
