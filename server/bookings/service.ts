import { randomBytes } from "node:crypto";
import type { Availability, SlotsResponse, ValidBookingRequest } from "../../contract/bookings.ts";
import { serviceTitles } from "../../contract/enquiry-choices.ts";
import { offeredZoneName } from "../../contract/time-zones.ts";
import type { OwnBooking } from "../../contract/your-data.ts";
import type { Config } from "../config.ts";
import type { Log } from "../lib/log.ts";
import { dayMs } from "../lib/time.ts";
import { type FormRefusal, type FormServiceDeps, ownerForm } from "../moderation/enquiry-rules.ts";
import { earliestStart, freeStarts, type Taken } from "./availability.ts";
import { type BusyCalendarOptions, startBusyCalendar } from "./busy-calendar.ts";
import { bookingComposers } from "./composers.ts";
import { limitsHourMs } from "./limits.ts";
import type { BookingMailContext } from "./mails.ts";
import { type NotMade, notMadeWhy, tellNotMade } from "./not-made.ts";
import { type BookingsRepository, createBookingsRepository } from "./repository.ts";
import { ownerZoneIn } from "./settings-repository.ts";
import { linkTokens, type StoredBooking } from "./stored.ts";
import { releaseUndeliverable } from "./undeliverable.ts";

/**
 * Booking a call (docs/product.md, "Book a call"): the free times, the checks
 * a booking passes (the enquiry form's defences, and limits per connection
 * and per mailbox), its storage with every mail it causes, and the mails
 * themselves. `book` is the one place a booking is made, whichever page or
 * API it came from.
 */

/**
 * How often a reader may move a call from its links: each move mails both sides a new
 * invitation, so without a bound one reader's clicks could fill the owner's inbox.
 */
const movesMax = 3;

type BookOutcome =
  /** Booked, or answered as if it were (`booking` null) to a filled honeypot. `end` is the call's. */
  | { outcome: "booked"; booking: StoredBooking | null; ownerZone: string; end: string }
  /**
   * Another reader took the time first (`taken`), or the address may not book now
   * (`not_booked`, its mailbox told why): the free times, in the reader's zone.
   */
  | { outcome: "taken"; slots: SlotsResponse }
  | { outcome: "not_booked"; slots: SlotsResponse }
  | { outcome: "refused"; refusal: FormRefusal };

export function createBookings(
  deps: FormServiceDeps & {
    config: Pick<
      Config,
      | "owner"
      | "mailFrom"
      | "bookingTimeZone"
      | "BOOKING_MEETING_URL"
      | "BOOKINGS_PER_HOUR"
      | "BOOKING_PENDING_MAX"
      | "BOOKING_RETENTION_DAYS"
      | "BOOKING_BUSY_CALENDAR_URL"
      | "ALLOW_PRIVATE_ADDRESSES_IN_TESTS"
    >;
    /** Where the busy calendar's failures are said, and its tests' options. */
    log?: Log;
    busyCalendar?: BusyCalendarOptions;
  },
) {
  const { store, config, services, formTokens, clock = () => new Date() } = deps;
  const repository: BookingsRepository = createBookingsRepository(store, clock);
  const serviceTitle = serviceTitles(services);
  const form = ownerForm("bookings", "booking reader address", deps);
  const { ownerMail, woken } = form;
  const links = linkTokens(deps.cookieSecret);
  const tell = tellNotMade(store, clock);

  const ownerZoneOf = (availability: Availability) =>
    ownerZoneIn(availability, config.bookingTimeZone);
  const dayLimit = (availability: Availability) => ({
    zone: ownerZoneOf(availability),
    max: availability.dailyMax,
  });
  const context = async (service: string): Promise<BookingMailContext> => ({
    siteUrl: config.siteUrl,
    ownerName: config.owner.name,
    ownerAddress: ownerMail,
    mailFrom: config.mailFrom,
    ownerZone: ownerZoneOf(await repository.availability()),
    serviceTitle: serviceTitle(service),
  });

  const url = config.BOOKING_BUSY_CALENDAR_URL;
  const calendar =
    url && deps.log
      ? startBusyCalendar({
          url,
          siteUrl: config.siteUrl,
          log: deps.log,
          clock,
          hours: async () => {
            const availability = await repository.availability();
            return { zone: ownerZoneOf(availability), horizonDays: availability.horizonDays };
          },
          // Two sites' tests on one machine serve the owner's calendar from loopback too.
          allowPrivate: config.ALLOW_PRIVATE_ADDRESSES_IN_TESTS,
          ...deps.busyCalendar,
        })
      : null;
  /**
   * The owner's busy times that stand against `availability`'s free times now; `fresh` for a
   * booking or a reader's move, which has the calendar read again when the last read is old.
   */
  const busyNow = async (availability: Availability, fresh = false) => {
    const end = clock().getTime() + (availability.horizonDays + 1) * dayMs;
    return (await (fresh ? calendar?.fresh(end) : calendar?.busy(end))) ?? [];
  };

  const startsNow = (availability: Availability, taken: Taken[], busy: readonly Taken[]) =>
    freeStarts({
      availability,
      zone: ownerZoneOf(availability),
      now: clock().getTime(),
      taken,
      busy,
    });
  /**
   * The free starts now. A call being moved (`moving`) neither takes its own time nor counts
   * toward its day's maximum: the reader may move it to another time that day. Its own time
   * is not among them: it is not a time to move to.
   */
  const free = async (availability: Availability, moving?: { start: string }, fresh = false) => {
    const taken = await repository.taken(new Date(clock().getTime() - dayMs));
    const own = moving ? Date.parse(moving.start) : Number.NaN;
    const others = taken.filter((call) => call.start !== own);
    const starts = startsNow(availability, others, await busyNow(availability, fresh));
    return starts.filter((start) => start !== own);
  };
  /** Whether `start` is on the owner's grid of calls at all, booked or not, and the owner free then. */
  const offered = async (availability: Availability, start: number) =>
    startsNow(availability, [], await busyNow(availability)).includes(start);
  const iso = (starts: number[]) => starts.map((start) => new Date(start).toISOString());
  /** Free starts as a reader is shown them: in `zone` by the list's name when it is one, else the owner's. */
  const slotsIn = (availability: Availability, zone: string | undefined, starts: number[]) => {
    const ownerZone = ownerZoneOf(availability);
    return {
      zone: (zone && offeredZoneName(zone)) || ownerZone,
      ownerZone,
      callMinutes: availability.callMinutes,
      firstCallFree: availability.firstCallFree,
      starts: iso(starts),
    };
  };

  function meetingUrl(availability: Availability): string | null {
    if (availability.meeting === "jitsi") {
      return `https://meet.jit.si/EngageWithEngineer-${randomBytes(9).toString("base64url")}`;
    }
    return availability.meetingUrl ?? config.BOOKING_MEETING_URL ?? null;
  }

  const composers = bookingComposers({ ...repository, links, context, clock });

  /** Whether a call has begun: too late for the reader's links, as for the owner's cancel. */
  const begun = (booking: Pick<StoredBooking, "start">) =>
    Date.parse(booking.start) <= clock().getTime();

  /** Whether a call has been moved as often as its links may move it (the owner's moves aside). */
  const movedEnough = (booking: Pick<StoredBooking, "sequence" | "ownerMoves">) =>
    booking.sequence - booking.ownerMoves >= movesMax;
  const refuse = (refusal: FormRefusal): BookOutcome => ({ outcome: "refused", refusal });

  /**
   * Why `start` is not a free time, as a reader whose page stood open overnight needs to hear
   * it: a time gone by, or now within the notice, is not just "not one of the free times".
   */
  const notOffered = (start: number, availability: Availability) => {
    const now = clock().getTime();
    if (start <= now) return "That time has passed; choose one of the free times.";
    if (start < earliestStart(availability, now)) {
      const hours = availability.noticeHours;
      const notice = hours === 1 ? "an hour" : `${hours} hours`;
      return `That time is too soon now: calls are booked at least ${notice} ahead. Choose one of the free times.`;
    }
    return "That time is not one of the free times; choose one from the list.";
  };

  return {
    repository,
    services,
    serviceTitle,
    composers,
    retentionDays: config.BOOKING_RETENTION_DAYS,
    formTokens,
    ownerZone: async () => ownerZoneOf(await repository.availability()),
    ownerEmail: ownerMail,
    clock,

    /**
     * The free times, and the zone they are to be shown in (the reader's, else the owner's);
     * for a call being moved, the times it may move to.
     */
    async slots(zone?: string, moving?: Pick<StoredBooking, "start">): Promise<SlotsResponse> {
      const availability = await repository.availability();
      return slotsIn(availability, zone, await free(availability, moving));
    },

    /**
     * Every defence, in order, then the booking is stored with its mails. The
     * database has the last word on the time: a reader who pressed a moment
     * after another, on any instance, is told it was taken and given the
     * free times that are left.
     */
    async book(
      request: ValidBookingRequest,
      { ip, visitorId }: { ip: string; visitorId: string | null },
    ): Promise<BookOutcome> {
      const { ipHash, networkHash, first } = await form.admit(request, { ip, visitorId });
      const availability = await repository.availability();
      const ownerZone = ownerZoneOf(availability);
      const end = new Date(Date.parse(request.start) + availability.callMinutes * 60_000);
      const asIfBooked: BookOutcome = {
        outcome: "booked",
        booking: null,
        ownerZone,
        end: end.toISOString(),
      };
      if (first === "honeypot") return asIfBooked;
      if (first) return refuse(first);
      // The owner's hours may have changed meanwhile: the times left are as they are now.
      const freeLeft = async () => {
        const now = await repository.availability();
        return slotsIn(now, request.zone, await free(now));
      };
      const mailbox = form.addressHash(request.email);
      const hourAgo = new Date(clock().getTime() - limitsHourMs);
      const content = request.note ? form.content(request.note, "note") : null;
      if (content) return refuse(content);
      const start = Date.parse(request.start);
      const freeNow = await free(availability, undefined, true);
      if (!freeNow.includes(start)) {
        if (await offered(availability, start)) {
          return { outcome: "taken", slots: slotsIn(availability, request.zone, freeNow) };
        }
        return refuse({
          status: 422,
          code: "not_offered",
          message: notOffered(start, availability),
          field: "start",
        });
      }
      /**
       * What the address holds is its mailbox's to know, not the form's: a booking it may not
       * have now is refused in the same words whatever the reason, and the mailbox is told why.
       */
      const notMade = async (why: NotMade["why"]): Promise<BookOutcome> => {
        const to = { email: request.email, addressHash: mailbox };
        await tell(to, { why, start: request.start, zone: request.zone, service: request.service });
        woken();
        return { outcome: "not_booked", slots: await freeLeft() };
      };
      const created = await repository.create({
        start: new Date(start),
        end,
        name: request.name,
        email: request.email,
        service: request.service,
        note: request.note,
        readerZone: request.zone,
        meetingUrl: meetingUrl(availability),
        visitorId,
        ipHash,
        networkHash,
        addressHash: mailbox,
        uidHost: form.host,
        ownerEmail: ownerMail,
        links,
        hourAgo,
        perConnection: config.BOOKINGS_PER_HOUR,
        perMailbox: config.BOOKING_PENDING_MAX,
        day: dayLimit(availability),
        hours: availability,
        stillFree: () => calendar?.clear(availability, start) ?? true,
      });
      // Each booking mails its address: one an hour, so the form cannot flood an inbox.
      if (created === "connection" || created === "network") {
        return refuse({
          status: 429,
          code: "rate_limited",
          message: `Too many calls were booked from your ${created} in the last hour; please try again in an hour, or write to the contact address.`,
          retryAfterSeconds: 3600,
        });
      }
      if (created === "connection ahead" || created === "network ahead") {
        const from = created === "network ahead" ? "network" : "connection";
        return refuse({
          status: 409,
          code: "too_many_pending",
          message: `Your ${from} has its most calls booked ahead already. Cancel one from its mail, or write to the contact address.`,
        });
      }
      if (created === "taken") return { outcome: "taken", slots: await freeLeft() };
      if (typeof created === "string") return notMade(notMadeWhy[created]);
      woken();
      const booking = (await repository.get(created.id)) ?? null;
      return { ...asIfBooked, booking };
    },

    begun,

    movedEnough,

    /** The reader moves their call by its link (POST only), up to `movesMax` times; the same checks of the time. */
    async reschedule(
      token: string,
      startIso: string,
    ): Promise<
      | { outcome: "moved"; booking: StoredBooking; ownerZone: string }
      | { outcome: "taken" }
      /** The call is at that time already: nothing changes. */
      | { outcome: "same" }
      | { outcome: "not_offered" }
      | { outcome: "unknown" }
      | { outcome: "begun" }
      | { outcome: "moved_enough" }
    > {
      const current = await repository.byToken(token);
      if (!current) return { outcome: "unknown" };
      if (begun(current)) return { outcome: "begun" };
      if (movedEnough(current)) return { outcome: "moved_enough" };
      const availability = await repository.availability();
      const start = Date.parse(startIso);
      if (start === Date.parse(current.start)) return { outcome: "same" };
      const freeNow = await free(availability, current, true);
      if (!freeNow.includes(start)) {
        return { outcome: (await offered(availability, start)) ? "taken" : "not_offered" };
      }
      const moved = await repository.reschedule(token, current.sequence, {
        start: new Date(start),
        end: new Date(start + availability.callMinutes * 60_000),
        ownerEmail: ownerMail,
        links,
        day: dayLimit(availability),
        hours: availability,
        stillFree: () => calendar?.clear(availability, start) ?? true,
      });
      if (moved === undefined) return { outcome: "unknown" };
      if (moved === "taken") return { outcome: "taken" };
      woken();
      return { outcome: "moved", booking: moved, ownerZone: ownerZoneOf(availability) };
    },

    /** The reader cancels by their link (POST only), until the call begins. */
    async cancelByReader(token: string): Promise<StoredBooking | "begun" | undefined> {
      const current = await repository.byToken(token);
      if (!current) return undefined;
      if (begun(current)) return "begun";
      const booking = await repository.cancel(
        { token },
        { who: "reader", message: null, ownerEmail: ownerMail },
      );
      if (booking) woken();
      return booking;
    },

    /** The calls a browser booked ("Your data"), as the reader gave them. */
    async ofVisitor(visitorId: string): Promise<OwnBooking[]> {
      return (await repository.byVisitor(visitorId)).map((booking) => ({
        start: booking.start,
        end: booking.end,
        service: booking.service,
        name: booking.name,
        email: booking.email,
        note: booking.note,
        zone: booking.readerZone,
        status: booking.status,
        createdAt: booking.createdAt,
      }));
    },

    /**
     * Deletes the calls a browser booked ("Your data"): one still ahead is
     * cancelled first, so both calendars hear of it. The number deleted.
     */
    async forgetVisitor(visitorId: string): Promise<number> {
      const deleted = await repository.deleteByVisitor(visitorId, ownerMail);
      if (deleted > 0) woken();
      return deleted;
    },

    /** Releases a call whose reader's invitation hard-bounced (undeliverable.ts). */
    undeliverable: releaseUndeliverable({ store, clock, ownerEmail: ownerMail, woken }),
    onQueued: form.onQueued,
    woken,
    /** The busy calendar's last reads, for the console's Health; null when none is set. */
    busyCalendar: () => calendar?.health() ?? null,
    /** The owner's busy times as they stand now (the owner's move marks its times by them). */
    busy: (availability: Availability) => busyNow(availability),
    stop: async () => calendar?.stop(),
  };
}

export type Bookings = ReturnType<typeof createBookings>;
