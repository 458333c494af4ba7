import type { Availability, Booking } from "../../contract/bookings.ts";
import type { OwnerActor } from "../lib/owner-actor.ts";
import { hashToken, newToken, type StoredBooking } from "./repository.ts";
import type { Bookings } from "./service.ts";

/** How the owner reads a booking: with its service's title, without its UID or browser. */
export function toBooking(
  bookings: Pick<Bookings, "serviceTitle">,
  { uid: _uid, sequence: _sequence, visitorId: _visitor, ...rest }: StoredBooking,
): Booking {
  return { ...rest, serviceTitle: bookings.serviceTitle(rest.service) };
}

export const feedUrl = (siteUrl: string, token: string) => `${siteUrl}/book/feed/${token}.ics`;

/**
 * The owner's actions on bookings, the same from the console and from the
 * command line (docs/architecture.md, "Owner actions"): each acts and writes
 * one line of the audit trail under its actor, naming a booking by its
 * number, never by what it holds. A booking that is not there (or not booked)
 * is undefined, and no line.
 */
export function bookingActions(bookings: Bookings, siteUrl: string) {
  const { repository } = bookings;
  return {
    /** Cancels a call with a message to the reader; both calendars hear of it. */
    async cancel(by: OwnerActor, id: number, message: string): Promise<Booking | undefined> {
      const booking = await repository.cancel(
        { id },
        { who: "owner", message: message || null, ownerEmail: bookings.ownerEmail },
      );
      if (!booking) return undefined;
      bookings.woken();
      await by.audit("booking cancel", `booking ${id}`);
      return toBooking(bookings, booking);
    },

    /** Sets the weekly hours, the call's length, buffer, notice, horizon, daily maximum, dates off and room. */
    async setAvailability(by: OwnerActor, availability: Availability): Promise<Availability> {
      await repository.saveAvailability(availability);
      await by.audit("bookings availability");
      return availability;
    },

    /** A new secret address for the calendar feed; the one before stops working. */
    async newFeed(by: OwnerActor): Promise<string> {
      const token = newToken();
      await repository.setFeedTokenHash(hashToken(token));
      await by.audit("bookings feed new");
      return feedUrl(siteUrl, token);
    },

    /** Revokes the calendar feed's address; false when there was none. */
    async revokeFeed(by: OwnerActor): Promise<boolean> {
      if ((await repository.feedTokenHash()) === null) return false;
      await repository.setFeedTokenHash(null);
      await by.audit("bookings feed revoke");
      return true;
    },

    /** Deletes a booking and every mail about it (a reader's request by mail). */
    async remove(by: OwnerActor, id: number): Promise<boolean> {
      if (!(await repository.delete(id))) return false;
      await by.audit("booking delete", `booking ${id}`);
      return true;
    },
  };
}

export type BookingActions = ReturnType<typeof bookingActions>;
