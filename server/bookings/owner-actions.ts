import type { Availability, Booking } from "../../contract/bookings.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import { newToken, tokenDigest } from "../lib/tokens.ts";
import type { StoredBooking } from "./repository.ts";
import type { Bookings } from "./service.ts";

/**
 * How the owner reads a booking: with its service's title and how often it was
 * moved (each move raises its sequence, and so does a cancellation), without
 * its UID or browser.
 */
export function toBooking(
  bookings: Pick<Bookings, "serviceTitle">,
  { uid: _uid, sequence, visitorId: _visitor, ...rest }: StoredBooking,
): Booking {
  const moves = rest.status === "cancelled" ? Math.max(0, sequence - 1) : sequence;
  return { ...rest, moves, serviceTitle: bookings.serviceTitle(rest.service) };
}

const feedUrl = (siteUrl: string, token: string) => `${siteUrl}/book/feed/${token}.ics`;

/** What the owner's actions need of the bookings: the server's service, or the command line's. */
type BookingDesk = Pick<Bookings, "repository" | "serviceTitle" | "ownerEmail" | "woken" | "clock">;

/**
 * The owner's actions on bookings, the same from the console and from the
 * command line (docs/architecture.md, "Owner actions"): each checks what it
 * is asked, acts and writes one line of the audit trail under its actor,
 * naming a booking by its number, never by what it holds. A booking that is
 * not there (or not booked) is "not_found", and no line.
 */
export function bookingActions(desk: BookingDesk, siteUrl: string) {
  const { repository } = desk;
  return {
    /**
     * Cancels a call with a message to the reader; both calendars hear of it.
     * A call that has begun is "begun": a cancellation would come too late.
     */
    async cancel(
      by: OwnerActor,
      id: number,
      message: string,
    ): Promise<Booking | "not_found" | "begun"> {
      const outcome = await by.act(
        async (trx) => {
          const found = await repository.get(id, trx);
          if (found?.status !== "booked") return "not_found";
          if (Date.parse(found.start) <= desk.clock().getTime()) return "begun";
          const owner = {
            who: "owner" as const,
            message: message || null,
            ownerEmail: desk.ownerEmail,
          };
          // Undefined: the reader cancelled it from their mail in the meantime.
          return (await repository.cancel({ id }, owner, trx)) ?? "not_found";
        },
        (done) => typeof done !== "string" && ["booking cancel", `booking ${id}`],
      );
      if (typeof outcome === "string") return outcome;
      desk.woken();
      return toBooking(desk, outcome);
    },

    /** Sets the weekly hours, the call's length, buffer, notice, horizon, daily maximum, dates off and room. */
    async setAvailability(by: OwnerActor, availability: Availability): Promise<Availability> {
      await by.act(
        (trx) => repository.saveAvailability(availability, trx),
        () => ["bookings availability"],
      );
      return availability;
    },

    /** A new secret address for the calendar feed; the one before stops working. */
    /** A new address for the calendar feed; `replaced` when it stops one that worked. */
    async newFeed(by: OwnerActor): Promise<{ url: string; replaced: boolean }> {
      const token = newToken();
      const replaced = await by.act(
        async (trx) => {
          const before = await repository.feedTokenHash(trx);
          await repository.setFeedTokenHash(tokenDigest(token), trx);
          return before !== null;
        },
        () => ["bookings feed new"],
      );
      return { url: feedUrl(siteUrl, token), replaced };
    },

    /** Revokes the calendar feed's address; "not_found" when there was none. */
    revokeFeed: (by: OwnerActor): Promise<true | "not_found"> =>
      by.act(
        async (trx) => {
          if ((await repository.feedTokenHash(trx)) === null) return "not_found";
          await repository.setFeedTokenHash(null, trx);
          return true;
        },
        (done) => done === true && ["bookings feed revoke"],
      ),

    /**
     * Deletes a booking and every mail about it (a reader's request by mail).
     * A call still ahead is "ahead": cancel it first, so both calendars hear.
     */
    remove: (by: OwnerActor, id: number): Promise<true | "not_found" | "ahead"> =>
      by.act(
        async (trx) => {
          const found = await repository.get(id, trx);
          if (!found) return "not_found";
          if (found.status === "booked" && Date.parse(found.end) > desk.clock().getTime())
            return "ahead";
          return (await repository.delete(id, trx)) || "not_found";
        },
        (done) => done === true && ["booking delete", `booking ${id}`],
      ),
  };
}
