import type { Availability, Booking } from "../../contract/bookings.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import { dayMs } from "../lib/time.ts";
import { newToken, tokenDigest } from "../lib/tokens.ts";
import { freeStarts, meetsAny } from "./availability.ts";
import type { Bookings } from "./service.ts";
import type { StoredBooking } from "./stored.ts";

/**
 * How the owner reads a booking: with its service's title and how often it was
 * moved (each move raises its sequence, and so does a cancellation), without
 * its UID or browser.
 */
export function toBooking(
  bookings: Pick<Bookings, "serviceTitle">,
  { uid: _uid, sequence, visitorId: _visitor, ...rest }: StoredBooking,
): Booking {
  const changes = rest.status === "cancelled" ? Math.max(0, sequence - 1) : sequence;
  const moves = changes - rest.ownerMoves;
  return { ...rest, moves, serviceTitle: bookings.serviceTitle(rest.service) };
}

const feedUrl = (siteUrl: string, token: string) => `${siteUrl}/book/feed/${token}.ics`;

/** What the owner's actions need of the bookings: the server's service, or the command line's. */
type BookingDesk = Pick<
  Bookings,
  "repository" | "serviceTitle" | "ownerEmail" | "woken" | "clock" | "ownerZone" | "busy"
>;

/** Why the owner may not move a call to a time. */
type MoveRefusal = "not_found" | "cancelled" | "begun" | "same" | "not_free" | "taken" | "changed";

/** What the console and the command line tell the owner of a move refused, but "not_found". */
export const moveRefusals: Record<Exclude<MoveRefusal, "not_found">, string> = {
  cancelled: "That call was cancelled; it cannot be moved.",
  begun: "That call has begun or is over; it can no longer be moved.",
  same: "The call is at that time already.",
  not_free: "That time is not one of the free times; choose one from the list.",
  taken: "That time was taken a moment ago, or your hours changed; choose another.",
  changed: "The reader moved or cancelled the call meanwhile; look at it again.",
};

/**
 * The owner's actions on bookings, the same from the console and from the
 * command line (docs/architecture.md, "Owner actions"): each checks what it
 * is asked, acts and writes one line of the audit trail under its actor,
 * naming a booking by its number, never by what it holds. A booking that is
 * not there (or not booked) is "not_found", and no line.
 */
export function bookingActions(desk: BookingDesk, siteUrl: string) {
  const { repository } = desk;
  /**
   * The times the owner may move `call` to: the grid the readers see, less the calls booked
   * (with their buffers) and the call's own time, but neither the notice nor the daily maximum.
   */
  const timesFor = async (call: Pick<StoredBooking, "start">, hours: Availability) => {
    const now = desk.clock().getTime();
    const own = Date.parse(call.start);
    const taken = (await repository.taken(new Date(now - dayMs))).filter((t) => t.start !== own);
    const availability = { ...hours, noticeHours: 0, dailyMax: null };
    const zone = await desk.ownerZone();
    return freeStarts({ availability, zone, now, taken }).filter((start) => start !== own);
  };
  /** The booked call `id` if it may still be moved, else why not. */
  const movable = async (id: number): Promise<StoredBooking | MoveRefusal> => {
    const found = await repository.get(id);
    if (!found) return "not_found";
    if (found.status !== "booked") return "cancelled";
    return Date.parse(found.start) <= desk.clock().getTime() ? "begun" : found;
  };
  return {
    /**
     * The times the owner may move call `id` to, in order (ISO, UTC), with the owner's zone,
     * and those of them that meet a busy time of the owner's own calendar (with the buffer):
     * the owner may choose one still.
     */
    async moveTimes(id: number) {
      const call = await movable(id);
      if (typeof call === "string") return call;
      const hours = await repository.availability();
      const starts = await timesFor(call, hours);
      const busy = await desk.busy(hours);
      const iso = (start: number) => new Date(start).toISOString();
      return {
        ownerZone: await desk.ownerZone(),
        starts: starts.map(iso),
        busy: starts.filter(meetsAny(hours, busy)).map(iso),
      };
    },

    /**
     * Moves a booked call to one of `moveTimes`, as the reader's move does (the same UID,
     * SEQUENCE one higher, the moved invitation to both sides, the reader's with one line
     * saying the owner moved it and `reason` when given), the reader's links working still
     * and their allowance of moves untouched. "taken" when a reader took the time first,
     * "changed" when the call was moved or cancelled meanwhile.
     */
    async move(
      by: OwnerActor,
      id: number,
      startIso: string,
      reason: string,
    ): Promise<Booking | MoveRefusal> {
      const call = await movable(id);
      if (typeof call === "string") return call;
      const start = Date.parse(startIso);
      if (start === Date.parse(call.start)) return "same";
      const hours = await repository.availability();
      if (!(await timesFor(call, hours)).includes(start)) return "not_free";
      const moved = await repository.moveByOwner(
        id,
        call.sequence,
        {
          start: new Date(start),
          end: new Date(start + hours.callMinutes * 60_000),
          ownerEmail: desk.ownerEmail,
          hours,
          reason: reason || null,
        },
        (trx) => by.audit("booking move", `booking ${id}`, trx),
      );
      if (typeof moved === "string") return moved;
      desk.woken();
      return toBooking(desk, moved);
    },

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
