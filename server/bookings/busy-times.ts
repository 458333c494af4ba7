import { createHash } from "node:crypto";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type ICAL from "ical.js";
import { instantOf, isTimeZone } from "../../contract/time-zones.ts";
import type { Taken } from "./availability.ts";
import { namesNoDay, rebased } from "./busy-rules.ts";

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

/** More instances than this in one file is refused: a file of many events is the file's problem. */
export const instancesMax = 100_000;
/**
 * More instances than this from one event's rules skips that event, as one that holds the read
 * would be: a rule by the second or the minute. Every half hour for a year is 17,520.
 */
const eventInstancesMax = 20_000;

export class NotACalendar extends Error {
  override name = "NotACalendar";
}

/** One event's rules made more than `eventInstancesMax` instances. */
class TooMany extends Error {}

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

/**
 * The TZID a time was written with: ical.js keeps it as a name when the file defines no such
 * zone, and gives the file's definition when it does (Google's files define each zone used).
 */
const zoneOf = (time: ICAL.Time | undefined) => {
  const named = (time as (ICAL.Time & { timezone?: string }) | undefined)?.timezone;
  const tzid = time?.zone?.tzid;
  return named ?? (tzid && tzid !== "UTC" && tzid !== "floating" ? tzid : undefined);
};

/** Whether an event (or an instance's override) keeps its time busy. */
const isBusy = (event: ICAL.Component) =>
  String(event.getFirstPropertyValue("transp") ?? "").toUpperCase() !== "TRANSPARENT" &&
  String(event.getFirstPropertyValue("status") ?? "").toUpperCase() !== "CANCELLED";

/**
 * An event whose rule was not expanded (`namesNoDay`, ical.js refused it, it made more than
 * `eventInstancesMax`, or it held a read past the thread's time): its UID, at most 100
 * characters, and its first start; `key` a digest of its text, so an edited event is tried
 * again. Nothing of its title or description.
 */
export type Skipped = { key: string; uid: string; start: string };

/**
 * How a read goes on past an event that cannot be expanded: the events to skip (`skip`, by
 * `key`), and `mark`, told which event's rule is being expanded and then null, so what stops
 * a thread held by one knows which it was.
 */
export type Skipping = { skip?: ReadonlySet<string>; mark?: (event: Skipped | null) => void };

/**
 * Each zone's observances with a rule only when it is yearly and names a day: ical.js
 * follows a zone's rules from their start, each time it is asked for an instant in it, and
 * never comes back from one that names no day (as `namesNoDay`) or runs by the second.
 */
function zonesOf(ical: Ical, root: ICAL.Component) {
  const defined = new Map<string, ICAL.Timezone>();
  for (const vtimezone of root.getAllSubcomponents("vtimezone")) {
    for (const observance of vtimezone.getAllSubcomponents()) {
      for (const property of observance.getAllProperties("rrule")) {
        const rule = property.getFirstValue() as ICAL.Recur;
        if (rule.freq !== "YEARLY" || namesNoDay(rule)) observance.removeProperty(property);
      }
    }
    const timezone = new ical.Timezone(vtimezone);
    if (timezone.tzid) defined.set(timezone.tzid, timezone);
  }
  return defined;
}

/**
 * The busy intervals of calendar file `text` that meet [from, to), in order, and the events
 * whose rules were not expanded (`Skipped`): each of those keeps its first start and its
 * dates busy, the times it names for certain, but not its repeats.
 */
export function busyIntervals(
  ical: Ical,
  text: string,
  { from, to, zone }: Window,
  { skip = new Set(), mark }: Skipping = {},
): { busy: Taken[]; skipped: Skipped[] } {
  let root: ICAL.Component;
  try {
    const parsed: unknown = ical.parse(text);
    root = new ical.Component(parsed as unknown[]);
  } catch {
    throw new NotACalendar("not an iCalendar file");
  }
  if (root.name !== "vcalendar") throw new NotACalendar("not an iCalendar file");
  const defined = zonesOf(ical, root);
  const busy: Taken[] = [];
  const skipped: Skipped[] = [];
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
  for (const [index, vevent] of events.entries()) {
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
    const first = at(event.startDate);
    instance(event.startDate, first, ends(event.startDate));
    const rules = vevent
      .getAllProperties("rrule")
      .map((rule) => rule.getFirstValue() as ICAL.Recur);
    if (rules.length === 0) continue;
    const skipping: Skipped = {
      key: createHash("sha256").update(vevent.toString()).digest("base64url").slice(0, 22),
      // An event without a UID by its place among the file's events.
      uid: String(event.uid ?? "").slice(0, 100) || `event ${index + 1}`,
      start: new Date(first).toISOString(),
    };
    const named = rules.filter((rule) => !namesNoDay(rule));
    if (skip.has(skipping.key) || named.length < rules.length) skipped.push(skipping);
    if (skip.has(skipping.key)) continue;
    // Each rule from the window's start; the first start is an instance of every rule.
    const before = from - (length.toSeconds() + 86_400) * 1000;
    const kept = { busy: busy.length, instances };
    mark?.(skipping);
    try {
      let own = 0;
      for (const rule of named) {
        const expansion = rebased(rule, event.startDate, before, at);
        if (!expansion) continue;
        const iterator = expansion.rule.iterator(expansion.start);
        for (let next = iterator.next(); next; next = iterator.next()) {
          const startsAt = at(next);
          if (startsAt >= to) break;
          own += 1;
          if (own > eventInstancesMax) throw new TooMany();
          count();
          instance(next, startsAt, ends(next));
        }
      }
    } catch (error) {
      // ical.js's own errors (a rule it cannot follow) are this event's alone, and so are too
      // many instances of its own: passed by as the thread's time would pass it by on a slower
      // machine, its repeats dropped, so a file reads the same however loaded the machine.
      if (error instanceof NotACalendar) throw error;
      if (error instanceof TooMany) {
        busy.length = kept.busy;
        instances = kept.instances;
      }
      if (!skipped.includes(skipping)) skipped.push(skipping);
    } finally {
      mark?.(null);
    }
  }
  return { busy: busy.sort((a, b) => a.start - b.start), skipped };
}

type ThreadStart = {
  busyThread: true;
  text: string;
  window: Window;
  skip: string[];
  /** Where the thread marks the event it is expanding (`markOf`). */
  mark: SharedArrayBuffer;
};
type ThreadReply = { busy: Float64Array; skipped: Skipped[] } | { refused: string };
export type BusyRead = { busy: Taken[]; skipped: Skipped[] };

/** How long a thread may take to read a file, and the heap it has: a 2 MB file needs less than half of each. */
const threadMs = 5000;
const heapLimits = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 8 };

/** A read stopped while one event's rule had held it for at least half its time. */
export class HeldBy extends NotACalendar {
  readonly event: Skipped;
  constructor(message: string, event: Skipped) {
    super(message);
    this.event = event;
  }
}

/**
 * The event a thread marks as it expands its rule, in memory both threads see, so it can be
 * read when the thread is stopped inside ical.js: the length of its JSON (0 for none), when
 * it was marked, when the thread began to read (ical.js loaded), and the JSON itself.
 */
function markOf(buffer: SharedArrayBuffer) {
  const length = new Int32Array(buffer, 0, 1);
  const times = new Float64Array(buffer, 8, 2);
  const bytes = new Uint8Array(buffer, 24);
  return {
    began: () => {
      times[1] = Date.now();
    },
    set(event: Skipped | null) {
      Atomics.store(length, 0, 0);
      if (!event) return;
      const json = JSON.stringify(event);
      const { read, written } = new TextEncoder().encodeInto(json, bytes);
      times[0] = Date.now();
      if (read === json.length) Atomics.store(length, 0, written);
    },
    /**
     * The event marked, if one is and it has held the thread for half the time it has read
     * (a file slow all through is not put down to the event it was at when stopped).
     */
    holder(): Skipped | null {
      const marked = Atomics.load(length, 0);
      const [since = 0, began = 0] = times;
      if (!marked || Date.now() - since < (Date.now() - began) / 2) return null;
      try {
        return JSON.parse(new TextDecoder().decode(bytes.slice(0, marked))) as Skipped;
      } catch {
        return null; // Read as the thread marked another: no event is named.
      }
    },
  };
}

/**
 * The busy intervals of calendar file `text` (`busyIntervals`), read in a thread of its own
 * that is stopped after `limitMs` or when its heap is full: the server's thread waits for the
 * intervals, nothing else. Each read starts its thread and lets it end. Stopped for its time
 * while one event's rule had held it for half of it, the read fails with `HeldBy` that event,
 * which a read given its key in `skip` passes by.
 */
export function readBusyTimes(
  text: string,
  window: Window,
  {
    limitMs = threadMs,
    signal,
    skip = [],
  }: { limitMs?: number; signal?: AbortSignal; skip?: string[] } = {},
): Promise<BusyRead> {
  return new Promise((resolve, reject) => {
    const mark = new SharedArrayBuffer(1024);
    const thread = new Worker(new URL("./busy-times.ts", import.meta.url), {
      workerData: { busyThread: true, text, window, skip, mark } satisfies ThreadStart,
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
    const timer = setTimeout(() => {
      const why = `it takes more than ${limitMs / 1000} seconds to read`;
      const held = markOf(mark).holder();
      stop(held ? new HeldBy(why, held) : new NotACalendar(why));
    }, limitMs);
    thread.once("message", (reply: ThreadReply) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", stopped);
      if ("refused" in reply) return reject(new NotACalendar(reply.refused));
      const busy: Taken[] = [];
      for (let index = 0; index < reply.busy.length; index += 2) {
        busy.push({ start: reply.busy[index] as number, end: reply.busy[index + 1] as number });
      }
      resolve({ busy, skipped: reply.skipped });
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

async function runBusyThread({ text, window, skip, mark }: ThreadStart): Promise<ThreadReply> {
  const ical = (await import("ical.js")).default;
  const marks = markOf(mark);
  marks.began();
  try {
    const read = busyIntervals(ical, text, window, { skip: new Set(skip), mark: marks.set });
    const busy = Float64Array.from(read.busy.flatMap(({ start, end }) => [start, end]));
    return { busy, skipped: read.skipped };
  } catch (error) {
    // ical.js's own errors outside a rule say nothing of the file; ours say what.
    return { refused: error instanceof NotACalendar ? error.message : "an event it cannot read" };
  }
}

if (!isMainThread && parentPort && (workerData as Partial<ThreadStart>)?.busyThread) {
  const port = parentPort;
  void runBusyThread(workerData as ThreadStart).then((reply) => port.postMessage(reply));
}
