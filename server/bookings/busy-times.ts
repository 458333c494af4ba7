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
 */

type Ical = typeof ICAL;

/** More instances than this in one file is refused: a rule by the second could make millions. */
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

/** The busy intervals of calendar file `text` that meet [from, to), in order. */
export function busyIntervals(
  ical: Ical,
  text: string,
  { from, to, zone }: { from: number; to: number; zone: string },
): Taken[] {
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
  const add = (event: ICAL.Event, start: ICAL.Time, end: ICAL.Time) => {
    if (!isBusy(event.component)) return;
    const tzid = zoneOf(event.startDate);
    const at = instantIn(start, tzid, defined, zone);
    // An all-day event without an end is its one day; a timed one, its moment.
    const endsAt = instantIn(end ?? start, zoneOf(event.endDate) ?? tzid, defined, zone);
    if (at < to && endsAt > from) busy.push({ start: at, end: Math.max(at, endsAt) });
  };
  const events = root.getAllSubcomponents("vevent");
  const overrides = new Map<string, ICAL.Component[]>();
  for (const vevent of events) {
    if (!vevent.hasProperty("recurrence-id")) continue;
    const uid = String(vevent.getFirstPropertyValue("uid") ?? "");
    overrides.set(uid, [...(overrides.get(uid) ?? []), vevent]);
  }
  for (const vevent of events) {
    if (!vevent.hasProperty("dtstart")) continue;
    const event = new ical.Event(vevent);
    // An override stands on its own: its own time, moved out of the window or into it.
    if (event.isRecurrenceException() || !event.isRecurring()) {
      count();
      add(event, event.startDate, event.endDate);
      continue;
    }
    // The master's instances: where an override replaces one, the override is counted above.
    const replaced = new Set(
      (overrides.get(event.uid) ?? []).map((override) =>
        instantIn(new ical.Event(override).recurrenceId, zoneOf(event.startDate), defined, zone),
      ),
    );
    if (String(vevent.getFirstPropertyValue("status") ?? "").toUpperCase() === "CANCELLED")
      continue;
    const length = event.endDate.subtractDate(event.startDate);
    const iterator = event.iterator();
    for (let next = iterator.next(); next; next = iterator.next()) {
      const at = instantIn(next, zoneOf(event.startDate), defined, zone);
      if (at >= to) break;
      count();
      if (replaced.has(at)) continue;
      const end = next.clone();
      end.addDuration(length);
      add(event, next, end);
    }
  }
  return busy.sort((a, b) => a.start - b.start);
}
