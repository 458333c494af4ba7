import type { ComposeMail } from "../outbox/outbox-worker.ts";
import {
  type BookingMailContext,
  cancellationMail,
  ownerInvitationMail,
  readerInvitationMail,
  reminderMail,
} from "./mails.ts";
import { notMadeMail, parseNotMade } from "./not-made.ts";
import { type bookingMailKinds, parseBookingPayload } from "./queued-mails.ts";
import type { BookingsRepository } from "./repository.ts";
import type { LinkToken, StoredBooking } from "./stored.ts";

/** What each booking row of the outbox becomes when it is sent, or why it is not. */
export function bookingComposers({
  get,
  byToken,
  feedTokenHash,
  links,
  context,
  clock,
}: Pick<BookingsRepository, "get" | "byToken" | "feedTokenHash"> & {
  links: LinkToken;
  context: (service: string) => Promise<BookingMailContext>;
  clock: () => Date;
}): Record<(typeof bookingMailKinds)[number], ComposeMail> {
  /**
   * The reader's links' token, made again as the mail goes; null when the call
   * holds another (booked before tokens were made so, or under another secret).
   */
  const tokenOf = async (booking: StoredBooking, db: Parameters<ComposeMail>[1]) => {
    const token = links(booking);
    return (await byToken(token, db))?.id === booking.id ? token : null;
  };
  return {
    async booking_invitation(row, db) {
      const payload = parseBookingPayload(row.payload);
      if (!payload || !row.email) return { outcome: "failed", reason: "a malformed invitation" };
      const booking = await get(payload.bookingId, db);
      if (booking?.status !== "booked")
        return { outcome: "cancelled", reason: "the call was cancelled" };
      if (booking.sequence !== payload.sequence)
        return { outcome: "cancelled", reason: "the call was moved since" };
      // Held up past the call (decision 092): it still goes while the call is on, with the room.
      if (Date.parse(booking.end) <= clock().getTime())
        return { outcome: "cancelled", reason: "the call is over" };
      const mailContext = await context(booking.service);
      if (payload.to === "owner") {
        const calendar =
          payload.calendar ?? ((await feedTokenHash(db)) === null ? "publish" : "none");
        const change = payload.ownerMove ? "owner" : booking.sequence > 0 ? "reader" : false;
        return ownerInvitationMail(row.email, booking, mailContext, change, calendar, payload);
      }
      // A row queued before the links' token was made again as each mail goes carries it:
      // one still queued at the upgrade, or from a restored backup (decision 043).
      const token = row.token ?? (await tokenOf(booking, db));
      if (!token) return { outcome: "failed", reason: "an invitation without its links" };
      return readerInvitationMail(booking, token, mailContext, payload.ownerMove);
    },
    async booking_cancellation(row, db) {
      const payload = parseBookingPayload(row.payload);
      if (!payload?.call || !row.email)
        return { outcome: "failed", reason: "a malformed cancellation" };
      const reader = payload.to === "owner" ? await get(payload.bookingId, db) : null;
      return cancellationMail(
        row.email,
        payload.to,
        { ...payload.call, sequence: payload.sequence },
        await context(payload.call.service),
        reader ?? undefined,
      );
    },
    async booking_not_made(row) {
      const news = parseNotMade(row.payload);
      if (!news || !row.email) return { outcome: "failed", reason: "a malformed notice" };
      return notMadeMail(row.email, news, await context(news.service));
    },
    async booking_reminder(row, db) {
      const payload = parseBookingPayload(row.payload);
      if (!payload?.hoursBefore || !row.email)
        return { outcome: "failed", reason: "a malformed reminder" };
      const booking = await get(payload.bookingId, db);
      if (booking?.status !== "booked" || booking.sequence !== payload.sequence)
        return { outcome: "cancelled", reason: "the call was cancelled or moved" };
      if (Date.parse(booking.start) <= clock().getTime())
        return { outcome: "cancelled", reason: "the call has begun" };
      // Held up (behind its invitation, decision 092) until the hour-before one is due: that one says it.
      if (payload.hoursBefore === 24 && Date.parse(booking.start) - clock().getTime() <= 3_600_000)
        return { outcome: "cancelled", reason: "the next reminder is due" };
      return reminderMail(
        row.email,
        payload.to,
        booking,
        payload.hoursBefore,
        await context(booking.service),
        payload.to === "reader" ? await tokenOf(booking, db) : null,
      );
    },
  };
}
