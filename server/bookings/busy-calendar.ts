import { setTimeout as delay } from "node:timers/promises";
import type { Availability } from "../../contract/bookings.ts";
import type { Log } from "../lib/log.ts";
import { AddressRefused, createRemoteFetch, RemoteFetchError } from "../lib/safe-fetch.ts";
import { dayMs } from "../lib/time.ts";
import { meetsAny, type Taken } from "./availability.ts";
import { HeldBy, NotACalendar, readBusyTimes, type Skipped } from "./busy-times.ts";

/*
 * The owner's calendar, read from its secret iCalendar address
 * (BOOKING_BUSY_CALENDAR_URL) every few minutes and at start, through the site's
 * checked fetch (server/lib/safe-fetch.ts): only its busy intervals over the booking
 * horizon are kept, in memory, on each instance (docs/decisions/077-the-owners-busy-calendar.md).
 * A read that fails keeps the last good intervals for a day; past that the free times
 * come from the hours alone. The address is a secret: logs name its origin only.
 */

/** The largest calendar file read: a busy owner's year is a few hundred kilobytes. */
export const calendarBytesMax = 2_000_000;
const timeoutMs = 15_000;
/** How long the last good read stands when the calendar cannot be read. */
const keptMs = dayMs;
/**
 * How long a look at the free times waits for the first read after a start, and a booking
 * or a reader's move for a read when the last good one is older than `freshMs`.
 */
const waitMs = 3000;
const freshMs = 60_000;
/**
 * How often one read starts its thread again, each time past one more event that held it
 * (each try costs the thread's 5 seconds), and how many such events are remembered.
 */
const heldTries = 3;
const heldMax = 100;
/** How many newly skipped events a read names in the log, one line each. */
const skippedSaidMax = 5;

export type BusyCalendarOptions = {
  /** The private addresses it may be read from (the tests' stand-in), or all; none unless given. */
  allowPrivate?: boolean | ((address: string) => boolean);
  /** How often it is read: every 5 minutes unless given. */
  everyMs?: number;
  /** How long its thread may take to read the file: 5 seconds unless given. */
  limitMs?: number;
};

export type BusyCalendarHealth = {
  /** The last good read. */
  readAt: string | null;
  /** When the last try failed, and why in a few words; null when it was read. */
  failedAt: string | null;
  why: string | null;
  /** Whether its busy times are held against the free times: read within a day. */
  inForce: boolean;
  /** How many events of the last good read were skipped: their rules could not be expanded. */
  skipped: number;
};

class Unreadable extends Error {}
/** A read that ran out of tries, each past one more event that held it: the next may finish. */
class MoreHeld extends Unreadable {}

/** Why a read failed, in words that hold nothing of the address or the file. */
function reasonOf(error: unknown): string {
  if (error instanceof AddressRefused) {
    return error.why === "port"
      ? "its address is not on the web's own port (80 or 443)"
      : "its address is a private one";
  }
  if (error instanceof Unreadable || error instanceof NotACalendar) return error.message;
  if (error instanceof RemoteFetchError && error.bound) {
    return {
      too_large: `it is larger than ${calendarBytesMax / 1_000_000} MB`,
      timeout: `no answer within ${timeoutMs / 1000} seconds`,
      redirects: "too many redirects",
    }[error.bound];
  }
  return "it could not be reached";
}

type Reading = {
  url: string;
  siteUrl: string;
  clock: () => Date;
  /** The owner's zone and how many days ahead calls are booked, as they are now. */
  hours: () => Promise<{ zone: string; horizonDays: number }>;
} & Pick<BusyCalendarOptions, "allowPrivate" | "limitMs">;

/**
 * Reads the calendar at `url`: its busy intervals from a day ago to two days past the
 * horizon (`until`) and the events whose rules it skipped, or why not in a few words (`why`).
 * An event that held the thread past its time is remembered and the file read again past it
 * at once, up to `heldTries` threads a read (one that ran out of them says whether another may
 * go on: `more`); the next reads skip it while the file holds it as it was. The command line's
 * move reads it so, once (docs/decisions/085-a-calendar-read-the-same-on-a-loaded-machine.md).
 */
export function calendarReader({
  url: given,
  siteUrl,
  clock,
  hours,
  allowPrivate,
  limitMs,
}: Reading) {
  const fetch = createRemoteFetch({
    allowPrivate: allowPrivate ?? false,
    userAgent: `EngageWithEngineer (+${siteUrl})`,
  });
  // iCloud's addresses are webcal://: the same address over https.
  const url = given.replace(/^webcal:/i, "https:");
  /** The events that held a read, by their key: their rules are not expanded again. */
  const held = new Map<string, Skipped>();
  /** The file read past the events that held it, each remembered (`held`). */
  async function readPast(
    text: string,
    window: Parameters<typeof readBusyTimes>[1],
    signal?: AbortSignal,
  ) {
    for (let tries = 1; ; tries += 1) {
      try {
        const read = await readBusyTimes(text, window, {
          skip: [...held.keys()],
          limitMs,
          ...(signal ? { signal } : {}),
        });
        // An event the file no longer holds as it was is forgotten.
        const kept = new Set(read.skipped.map((event) => event.key));
        for (const key of held.keys()) if (!kept.has(key)) held.delete(key);
        return read;
      } catch (error) {
        if (!(error instanceof HeldBy) || held.has(error.event.key)) throw error;
        held.set(error.event.key, error.event);
        if (held.size > heldMax) held.delete(held.keys().next().value as string);
        if (tries >= heldTries) throw new MoreHeld(error.message);
      }
    }
  }
  return {
    origin: new URL(url).origin,
    async read(
      signal?: AbortSignal,
    ): Promise<
      { busy: Taken[]; until: number; skipped: Skipped[] } | { why: string; more: boolean }
    > {
      try {
        const now = clock().getTime();
        const { zone, horizonDays } = await hours();
        const to = now + (horizonDays + 2) * dayMs;
        const answer = await fetch(url, {
          headers: { accept: "text/calendar" },
          timeoutMs,
          maxBytes: calendarBytesMax,
          ...(signal ? { signal } : {}),
        });
        if (answer.status !== 200) throw new Unreadable(`it answered ${answer.status}`);
        const text = answer.body.toString("utf8");
        const window = { from: now - dayMs, to, zone };
        return { ...(await readPast(text, window, signal)), until: to };
      } catch (error) {
        // Another read at once may find the rest, while there is room to remember them.
        return { why: reasonOf(error), more: error instanceof MoreHeld && held.size < heldMax };
      }
    },
  };
}

export function startBusyCalendar({
  log,
  everyMs = 5 * 60_000,
  ...given
}: BusyCalendarOptions & Reading & { log: Log }) {
  const { clock } = given;
  const reader = calendarReader(given);
  const { origin } = reader;
  const stopping = new AbortController();
  let intervals: Taken[] = [];
  /** The end of the span read: later than that, nothing is known yet. */
  let until = 0;
  let readAt: number | null = null;
  let failedAt: number | null = null;
  let why: string | null = null;
  let staleSaid = false;
  /** The events the last good read skipped, each said once in the log while it stays so. */
  let skipped: Skipped[] = [];
  let reading: Promise<void> | undefined;
  /** When the last read began, whatever came of it. */
  let triedAt = Number.NEGATIVE_INFINITY;

  /** Reads the calendar; whether to read again at once (`again`). */
  async function read(): Promise<boolean> {
    const now = clock().getTime();
    triedAt = now;
    const got = await reader.read(stopping.signal);
    if (stopping.signal.aborted) return false;
    if ("busy" in got) {
      const said = new Set(skipped.map((event) => event.key));
      const news = got.skipped.filter((event) => !said.has(event.key));
      // Each by its UID and first start, which find it; its title is the owner's own and is never
      // logged. A file of many such events is not a line each.
      for (const { uid, start } of news.slice(0, skippedSaidMax)) {
        log.warn(
          { calendar: origin, uid, start },
          "an event of the busy calendar could not be expanded: its first time is held busy, its repeats are not",
        );
      }
      if (news.length > skippedSaidMax) {
        const more = news.length - skippedSaidMax;
        log.warn(
          { calendar: origin, more },
          "more events of the busy calendar could not be expanded",
        );
      }
      skipped = got.skipped;
      intervals = got.busy;
      until = got.until;
      readAt = now;
      if (failedAt !== null) log.info({ calendar: origin }, "the busy calendar was read again");
      failedAt = null;
      why = null;
      staleSaid = false;
      return false;
    }
    const first = failedAt === null;
    failedAt = now;
    why = got.why;
    if (first) {
      log.warn(
        { calendar: origin, why },
        "the busy calendar could not be read: its last busy times are kept for a day",
      );
    }
    // Past more events that hold it than one read tries, with no good read in force (after a
    // start, or a day of failures): the free times are the hours alone until a read finishes,
    // so it goes on at once rather than at the next turn.
    return got.more && !inForce(now);
  }
  const refresh = (): Promise<void> => {
    reading ??= read().then(
      (again) => {
        reading = undefined;
        if (again && !stopping.signal.aborted) void refresh();
      },
      () => {
        reading = undefined;
      },
    );
    return reading;
  };
  void refresh();
  const timer = setInterval(refresh, everyMs);
  timer.unref();
  const inForce = (now: number) => readAt !== null && now - readAt <= keptMs;

  const upTo = (promise: Promise<void>) =>
    Promise.race([promise, delay(waitMs, undefined, { ref: false })]);

  /**
   * The busy intervals that stand against free times up to `horizonEnd` now: none when the
   * calendar has not been read within a day; past the span read (the owner's horizon grew),
   * everything until it is read again.
   */
  function held(horizonEnd: number): readonly Taken[] {
    if (!inForce(clock().getTime())) return [];
    if (horizonEnd <= until) return intervals;
    return [...intervals, { start: until, end: Number.POSITIVE_INFINITY }];
  }

  /**
   * `held`, once the first read after a start is in or 3 seconds have passed; said once in the
   * log when the last good read is over a day old, and read again past the span read.
   */
  async function busy(horizonEnd: number): Promise<readonly Taken[]> {
    if (readAt === null && reading) await upTo(reading);
    if (readAt !== null && !inForce(clock().getTime()) && !staleSaid) {
      staleSaid = true;
      log.warn({ calendar: origin }, "the busy calendar was last read over a day ago");
    }
    if (horizonEnd > until && inForce(clock().getTime())) void refresh();
    return held(horizonEnd);
  }

  return {
    busy,

    /**
     * Whether a call at `start` is clear of the busy times as last read, asked again as its
     * booking or move commits: a read that came in since its time was checked is not missed.
     */
    clear: (hours: Availability, start: number) => !meetsAny(hours, held(start + dayMs))(start),

    /**
     * `busy` for a booking or a reader's move: when the last good read is older than a
     * minute, the calendar is read again first (no more than once a minute, whatever came
     * of the last try), waited for 3 seconds at most; on a failure or no answer by then,
     * the last good read stands: a slow calendar never refuses a booking.
     */
    async fresh(horizonEnd: number): Promise<readonly Taken[]> {
      const now = clock().getTime();
      const old = readAt === null || now - readAt > freshMs;
      if (old && now - triedAt > freshMs) void refresh();
      if (old && reading) await upTo(reading);
      return busy(horizonEnd);
    },

    health(): BusyCalendarHealth {
      const iso = (at: number | null) => (at === null ? null : new Date(at).toISOString());
      return {
        readAt: iso(readAt),
        failedAt: iso(failedAt),
        why,
        inForce: inForce(clock().getTime()),
        skipped: skipped.length,
      };
    },

    async stop() {
      clearInterval(timer);
      stopping.abort();
      await reading;
    },
  };
}
