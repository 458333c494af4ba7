import type { ComposeMail } from "../outbox/outbox-worker.ts";
import {
  type BookingMailContext,
  cancellationMail,
  ownerInvitationMail,
  readerInvitationMail,
  reminderMail,
} from "./mails.ts";
import { notMadeMail, parseNotMade } from "./not-made.ts";
import {
  asHeld,
  type bookingMailKinds,
  invitedBefore,
  isFirst,
  parseBookingPayload,
} from "./queued-mails.ts";
import type { BookingsRepository } from "./repository.ts";
import type { LinkToken, StoredBooking } from "./stored.ts";
import { notKeptMail } from "./undeliverable.ts";

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
      // What this side was mailed before, read again now that it has gone (decision 095);
      // a row queued before its time was recorded, as it was queued.
      const invited = (await invitedBefore(db, booking.id, Number(row.id)))(payload.to);
      const first =
        payload.start === undefined ? booking.sequence === 0 : isFirst(invited, payload.first);
      if (payload.to === "owner") {
        const calendar =
          payload.calendar ?? ((await feedTokenHash(db)) === null ? "publish" : "none");
        // Moved away and back before a mail of it went: their calendar holds it so already.
        if (invited.sent?.start === booking.start && calendar !== "cancel")
          return { outcome: "cancelled", reason: "the owner was sent this time already" };
        // The owner's first mail of a call the reader moved before one went: "booked".
        const change = payload.ownerMove
          ? "owner"
          : booking.sequence > 0 && !first
            ? "reader"
            : false;
        const movedFrom = invited.sent?.start ?? payload.movedFrom;
        const said = { first, movedFrom };
        return ownerInvitationMail(row.email, booking, mailContext, change, calendar, said);
      }
      // A row queued before the links' token was made again as each mail goes carries it:
      // one still queued at the upgrade, or from a restored backup (decision 043).
      const token = row.token ?? (await tokenOf(booking, db));
      if (!token) return { outcome: "failed", reason: "an invitation without its links" };
      return readerInvitationMail(booking, token, mailContext, { ...payload, first });
    },
    async booking_cancellation(row, db) {
      const payload = parseBookingPayload(row.payload);
      if (!payload?.call || !row.email)
        return { outcome: "failed", reason: "a malformed cancellation" };
      const booking = await get(payload.bookingId, db);
      const reader = payload.to === "owner" ? booking : undefined;
      const mailContext = await context(payload.call.service);
      // What this side holds, read again now that its earlier mails have gone (decision 095);
      // of a call deleted since (its invitations with it), as it was queued.
      const { call, first } = booking
        ? asHeld(
            payload.call,
            (await invitedBefore(db, booking.id, Number(row.id)))(payload.to),
            payload.first,
          )
        : { call: payload.call, first: payload.first === true };
      // To a side none of whose invitations went, a cancellation is news only from the other:
      // the reader's of the owner's; the owner's of the release, why, with no calendar file.
      if (first && call.by !== (payload.to === "reader" ? "owner" : "undeliverable"))
        return { outcome: "cancelled", reason: "no invitation of the call went to them" };
      if (first && payload.to === "owner") return notKeptMail(row.email, call, mailContext, reader);
      const cancelled = { ...call, sequence: payload.sequence };
      return cancellationMail(row.email, payload.to, cancelled, mailContext, reader, first);
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
