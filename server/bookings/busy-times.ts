import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type ICAL from "ical.js";
import { instantOf, isTimeZone } from "../../contract/time-zones.ts";
import type { Taken } from "./availability.ts";

/*
 * The owner's busy times from their calendar's iCalendar file (docs/product.md,
 * "Book a call"), read by ical.js: each event's instants between `from` and `to`,
 * recurring ones expanded (RRULE and RDATE, less EXDATE, each RECURRENCE-ID override
 * in its instance's place), an all-day event the whole of its days in the owner's
 * zone, and nothing for an event marked free (TRANSP:TRANSPARENT) or cancelled. Only
 * the intervals come out: no title, description, attendee or place.
 *
 * A rule is expanded from the window's start, not from its first instance: a rule by
 * the minute since 1970 costs what its month ahead holds. The file is read in a thread
 * of its own (`readBusyTimes`, this same file) with a time and a heap of its own, so no
 * file, however written, holds the server's thread (docs/decisions/080-the-busy-calendar-read-aside.md).
 */

type Ical = typeof ICAL;
type Window = { from: number; to: number; zone: string };

/** More instances than this in one file is refused: a rule by the second makes millions a month. */
export const instancesMax = 100_000;

export class NotACalendar extends Error {
  override name = "NotACalendar";
}

/**
 * The instant a time of the file stands for: a UTC time as it is; one in a zone the file
 * names by its IANA name, by that zone's rules as Intl knows them; one in a zone the file
 * defines alone (Outlook's "India Standard Time"), by that definition; a floating time or
 * date, on the owner's wall (`zone`). A wall time the clocks skip is the instant after.
 */
function instantIn(
  time: ICAL.Time,
  tzid: string | undefined,
  defined: Map<string, ICAL.Timezone>,
  zone: string,
): number {
  if (!time.isDate && time.zone?.tzid === "UTC") return time.toUnixTime() * 1000;
  const date = { year: time.year, month: time.month, day: time.day };
  const minutes = time.isDate ? 0 : time.hour * 60 + time.minute;
  const seconds = time.isDate ? 0 : time.second * 1000;
  const own = time.isDate ? undefined : (zoneOf(time) ?? tzid);
  const definition = own && !isTimeZone(own) ? defined.get(own) : undefined;
  if (definition) {
    const zoned = time.clone();
    zoned.zone = definition;
    return zoned.toUnixTime() * 1000;
  }
  const wall = own && isTimeZone(own) ? own : zone;
  const instant = instantOf(date, minutes, wall) ?? instantOf(date, minutes + 60, wall);
  if (instant === null) throw new NotACalendar("a time that never happens");
  return instant + seconds;
}

/** The TZID a time was written with, which ical.js keeps when it knows no such zone. */
const zoneOf = (time: ICAL.Time | undefined) =>
  (time as (ICAL.Time & { timezone?: string }) | undefined)?.timezone;

/** Whether an event (or an instance's override) keeps its time busy. */
const isBusy = (event: ICAL.Component) =>
  String(event.getFirstPropertyValue("transp") ?? "").toUpperCase() !== "TRANSPARENT" &&
  String(event.getFirstPropertyValue("status") ?? "").toUpperCase() !== "CANCELLED";

/** The length in seconds of the periods of a rule whose periods are all alike. */
const periodSeconds: Record<string, number> = {
  SECONDLY: 1,
  MINUTELY: 60,
  HOURLY: 3600,
  DAILY: 86_400,
  WEEKLY: 604_800,
};

/**
 * Where `rule` may be expanded from so as to miss no instance at or after `before`: its first
 * instance `start` moved on by whole periods of the rule (wall time, as the rule counts) to
 * one period before `before` or earlier, where the rule's sequence goes on as it would have.
 * The instance it starts at may not be one of the rule's, but it lies before `before`. A rule
 * with a count moves on only where each period holds one instance (no BY parts, by the week or
 * more often), its count less the periods skipped; null when that count ends before.
 */
function rebased(
  rule: ICAL.Recur,
  start: ICAL.Time,
  before: number,
  at: (time: ICAL.Time) => number,
): { rule: ICAL.Recur; start: ICAL.Time } | null {
  const unchanged = { rule, start };
  const from = at(start);
  if (from >= before) return unchanged;
  const fixed = periodSeconds[rule.freq];
  const parts = Object.keys(rule.parts).length > 0;
  if (rule.count && (fixed === undefined || parts)) return unchanged;
  const interval = Math.max(1, rule.interval || 1);
  const moved = (periods: number) => {
    const anchor = start.clone();
    if (fixed !== undefined) {
      const seconds = periods * fixed * interval;
      return anchor.adjust(Math.floor(seconds / 86_400), 0, 0, seconds % 86_400);
    }
    const months = (rule.freq === "YEARLY" ? 12 : 1) * interval * periods;
    const month = start.year * 12 + start.month - 1 + months;
    anchor.year = Math.floor(month / 12);
    anchor.month = (month % 12) + 1;
    return anchor;
  };
  const periodMs = (fixed ?? 31 * 86_400 * (rule.freq === "YEARLY" ? 12 : 1)) * interval * 1000;
  let periods = Math.floor((before - from) / periodMs) - 1;
  let anchor = moved(Math.max(0, periods));
  // The zone's offsets may differ by hours between the two: step back until it is early enough.
  for (let tries = 0; periods > 0 && tries < 8 && at(anchor) > before - periodMs; tries += 1) {
    periods -= Math.ceil((at(anchor) - (before - periodMs)) / periodMs);
    anchor = moved(Math.max(0, periods));
  }
  // By the month or year, a day the month lacks (the 31st, 29 February) is not a start.
  while (
    periods > 0 &&
    anchor.day > new Date(Date.UTC(anchor.year, anchor.month, 0)).getUTCDate()
  ) {
    periods -= 1;
    anchor = moved(periods);
  }
  // A zone whose offsets would not let it settle: from the first start, as before.
  if (periods <= 0 || at(anchor) > before - periodMs) return unchanged;
  if (!rule.count) return { rule, start: anchor };
  if (rule.count <= periods) return null;
  const counted = rule.clone();
  counted.count = rule.count - periods;
  return { rule: counted, start: anchor };
}

/** The busy intervals of calendar file `text` that meet [from, to), in order. */
export function busyIntervals(ical: Ical, text: string, { from, to, zone }: Window): Taken[] {
  let root: ICAL.Component;
  try {
    const parsed: unknown = ical.parse(text);
    root = new ical.Component(parsed as unknown[]);
  } catch {
    throw new NotACalendar("not an iCalendar file");
  }
  if (root.name !== "vcalendar") throw new NotACalendar("not an iCalendar file");
  const defined = new Map<string, ICAL.Timezone>();
  for (const vtimezone of root.getAllSubcomponents("vtimezone")) {
    const timezone = new ical.Timezone(vtimezone);
    if (timezone.tzid) defined.set(timezone.tzid, timezone);
  }
  const busy: Taken[] = [];
  let instances = 0;
  const count = () => {
    instances += 1;
    if (instances > instancesMax) throw new NotACalendar(`more than ${instancesMax} instances`);
  };
  const events = root.getAllSubcomponents("vevent");
  const overrides = new Map<string, ICAL.Component[]>();
  for (const vevent of events) {
    if (!vevent.hasProperty("recurrence-id")) continue;
    const uid = String(vevent.getFirstPropertyValue("uid") ?? "");
    overrides.set(uid, [...(overrides.get(uid) ?? []), vevent]);
  }
  for (const vevent of events) {
    if (!vevent.hasProperty("dtstart") || !isBusy(vevent)) continue;
    // With its exceptions given (none: the overrides are read here), ical.js does not look
    // through every other event for them, which made a read of n events cost n² steps.
    const event = new ical.Event(vevent, { exceptions: [] });
    const tzid = zoneOf(event.startDate);
    const at = (time: ICAL.Time, own = tzid) => instantIn(time, own, defined, zone);
    const push = (start: number, end: number) => {
      if (start < to && end > from) busy.push({ start, end: Math.max(start, end) });
    };
    // An override stands on its own: its own time, moved out of the window or into it.
    if (event.isRecurrenceException() || !event.isRecurring()) {
      count();
      // An all-day event without an end is its one day; a timed one, its moment.
      push(
        at(event.startDate),
        at(event.endDate ?? event.startDate, zoneOf(event.endDate) ?? tzid),
      );
      continue;
    }
    const length = event.endDate.subtractDate(event.startDate);
    const ends = (start: ICAL.Time) => {
      const end = start.clone();
      end.addDuration(length);
      return at(end);
    };
    // What the master's instances leave out: its EXDATEs (a date leaves out that day's
    // instance), and the instances its overrides replace, which are read above on their own.
    const left = new Set<number | string>();
    for (const property of vevent.getAllProperties("exdate")) {
      for (const value of property.getValues() as ICAL.Time[]) {
        count();
        left.add(value.isDate ? `${value.year}-${value.month}-${value.day}` : at(value));
      }
    }
    for (const override of overrides.get(event.uid) ?? []) {
      left.add(at(new ical.Event(override, { exceptions: [] }).recurrenceId));
    }
    const seen = new Set<number>();
    const instance = (start: ICAL.Time, startsAt: number, endsAt: number) => {
      if (seen.has(startsAt) || left.has(startsAt)) return;
      if (left.has(`${start.year}-${start.month}-${start.day}`)) return;
      seen.add(startsAt);
      push(startsAt, endsAt);
    };
    // RDATEs, a date or a time (its event's length) or a period (its own).
    for (const property of vevent.getAllProperties("rdate")) {
      for (const value of property.getValues() as (ICAL.Time | ICAL.Period)[]) {
        count();
        const start = "start" in value ? value.start : value;
        const startsAt = at(start);
        instance(start, startsAt, "start" in value ? at(value.getEnd()) : ends(start));
      }
    }
    // Each rule from the window's start; the first start is an instance of every rule.
    const before = from - (length.toSeconds() + 86_400) * 1000;
    for (const property of vevent.getAllProperties("rrule")) {
      const expansion = rebased(
        property.getFirstValue() as ICAL.Recur,
        event.startDate,
        before,
        at,
      );
      if (!expansion) continue;
      const iterator = expansion.rule.iterator(expansion.start);
      for (let next = iterator.next(); next; next = iterator.next()) {
        const startsAt = at(next);
        if (startsAt >= to) break;
        count();
        instance(next, startsAt, ends(next));
      }
    }
    const first = at(event.startDate);
    instance(event.startDate, first, ends(event.startDate));
  }
  return busy.sort((a, b) => a.start - b.start);
}

type ThreadStart = { busyThread: true; text: string; window: Window };
type ThreadReply = { busy: Float64Array } | { refused: string };

/** How long a thread may take to read a file, and the heap it has: a 2 MB file needs less than half of each. */
const threadMs = 5000;
const heapLimits = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 8 };

/**
 * The busy intervals of calendar file `text` (`busyIntervals`), read in a thread of its own
 * that is stopped after `threadMs` or when its heap is full: the server's thread waits for the
 * intervals, nothing else. Each read starts its thread and lets it end.
 */
export function readBusyTimes(
  text: string,
  window: Window,
  { limitMs = threadMs, signal }: { limitMs?: number; signal?: AbortSignal } = {},
): Promise<Taken[]> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(new URL("./busy-times.ts", import.meta.url), {
      workerData: { busyThread: true, text, window } satisfies ThreadStart,
      resourceLimits: heapLimits,
    });
    const stop = (error: Error) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stopped);
      void thread.terminate();
      reject(error);
    };
    const stopped = () => stop(new NotACalendar("the server is stopping"));
    signal?.addEventListener("abort", stopped, { once: true });
    const timer = setTimeout(
      () => stop(new NotACalendar(`it takes more than ${limitMs / 1000} seconds to read`)),
      limitMs,
    );
    thread.once("message", (reply: ThreadReply) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stopped);
      if ("refused" in reply) return reject(new NotACalendar(reply.refused));
      const busy: Taken[] = [];
      for (let index = 0; index < reply.busy.length; index += 2) {
        busy.push({ start: reply.busy[index] as number, end: reply.busy[index + 1] as number });
      }
      resolve(busy);
    });
    thread.once("error", (error: Error & { code?: string }) =>
      stop(
        new NotACalendar(
          error.code === "ERR_WORKER_OUT_OF_MEMORY"
            ? "it is too large to read"
            : "it could not be read",
        ),
      ),
    );
    thread.once("exit", () => stop(new NotACalendar("it could not be read")));
  });
}

async function runBusyThread({ text, window }: ThreadStart): Promise<ThreadReply> {
  const ical = (await import("ical.js")).default;
  try {
    const busy = busyIntervals(ical, text, window);
    return { busy: Float64Array.from(busy.flatMap(({ start, end }) => [start, end])) };
  } catch (error) {
    // ical.js's own errors (a rule it cannot follow) say nothing of the file; ours say what.
    return { refused: error instanceof NotACalendar ? error.message : "an event it cannot read" };
  }
}

if (!isMainThread && parentPort && (workerData as Partial<ThreadStart>)?.busyThread) {
  const port = parentPort;
  void runBusyThread(workerData as ThreadStart).then((reply) => port.postMessage(reply));
}
