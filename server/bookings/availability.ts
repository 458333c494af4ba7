import { type Availability, minutesOf, type WeekdayName } from "../../contract/bookings.ts";
import { dateKey, instantOf, wallTime } from "../../contract/time-zones.ts";
import { dayMs } from "../lib/time.ts";

/*
 * The free times (docs/product.md, "Book a call"): the owner's weekly hours
 * laid out day by day in the owner's zone, so a 10:00 call stays 10:00 on the
 * wall across a change of the clocks, cut into calls with the buffer between
 * them, less what minimum notice, the horizon, dates off, the daily maximum,
 * the calls already booked and the owner's busy times (with their buffers)
 * leave out. A pure
 * function of its inputs: the tests move `now` across daylight-saving
 * changes.
 */

const byWeekday: WeekdayName[] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

export type Taken = { start: number; end: number };

/** The first instant a call may start at, `now`: the owner's minimum notice ahead. */
export const earliestStart = (availability: Pick<Availability, "noticeHours">, now: number) =>
  now + availability.noticeHours * 3_600_000;

/**
 * Whether a call at a start meets one of `others` (calls or busy times), with the buffer
 * either side. The times are joined where they meet, then each start is looked up among
 * them by halving: a calendar of many busy times costs each start a few steps, not one
 * step for each of them.
 */
export function meetsAny(
  availability: Pick<Availability, "callMinutes" | "bufferMinutes">,
  others: readonly Taken[],
): (start: number) => boolean {
  const call = availability.callMinutes * 60_000;
  const buffer = availability.bufferMinutes * 60_000;
  const joined: Taken[] = [];
  for (const other of [...others].sort((a, b) => a.start - b.start)) {
    const last = joined.at(-1);
    if (last && other.start <= last.end) last.end = Math.max(last.end, other.end);
    else joined.push({ start: other.start, end: other.end });
  }
  return (start) => {
    // The first joined time that ends after the call's buffer begins.
    let low = 0;
    let high = joined.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((joined[middle] as Taken).end + buffer > start) high = middle;
      else low = middle + 1;
    }
    const next = joined[low];
    return next !== undefined && next.start - buffer < start + call;
  };
}

/** The free starts from `now` to the horizon, in order, as UTC instants. */
export function freeStarts({
  availability,
  zone,
  now,
  taken,
  busy = [],
}: {
  availability: Availability;
  /** The owner's zone. */
  zone: string;
  now: number;
  /** Calls already booked, from a day before `now` on. */
  taken: readonly Taken[];
  /** The owner's own calendar's busy times: blocked like calls, but not counted as any day's. */
  busy?: readonly Taken[];
}): number[] {
  const call = availability.callMinutes * 60_000;
  const buffer = availability.bufferMinutes * 60_000;
  const earliest = earliestStart(availability, now);
  const latest = now + availability.horizonDays * dayMs;
  const off = new Set(availability.datesOff);
  const perDay = new Map<string, number>();
  for (const booked of taken) {
    const day = dateKey(booked.start, zone);
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
  }
  const today = wallTime(now, zone);
  const first = Date.UTC(today.year, today.month - 1, today.day);
  const starts: number[] = [];
  /**
   * When the grid's latest call and its buffer are over. Two calls of the grid never overlap,
   * so the database's one booking per start keeps every call apart: where the clocks skip an
   * hour, or the owner's stretches overlap, a time that would begin inside another is not offered.
   */
  let gridFree = Number.NEGATIVE_INFINITY;
  const meetsTaken = meetsAny(availability, taken);
  const meetsBusy = meetsAny(availability, busy);
  for (let index = 0; index <= availability.horizonDays + 1; index += 1) {
    const noon = new Date(first + index * dayMs + dayMs / 2);
    const date = {
      year: noon.getUTCFullYear(),
      month: noon.getUTCMonth() + 1,
      day: noon.getUTCDate(),
    };
    const key = noon.toISOString().slice(0, 10);
    if (off.has(key)) continue;
    if (availability.dailyMax !== null && (perDay.get(key) ?? 0) >= availability.dailyMax) continue;
    const stretches = availability.weekly[byWeekday[noon.getUTCDay()] as WeekdayName];
    const grid: number[] = [];
    for (const [from, to] of stretches) {
      const end = minutesOf(to);
      for (
        let minute = minutesOf(from);
        minute + availability.callMinutes <= end;
        minute += availability.callMinutes + availability.bufferMinutes
      ) {
        // A time the clocks skip that day does not happen: no call then.
        const start = instantOf(date, minute, zone);
        if (start !== null) grid.push(start);
      }
    }
    for (const start of grid.sort((a, b) => a - b)) {
      if (start < gridFree) continue;
      gridFree = start + call + buffer;
      if (start < earliest || start > latest) continue;
      if (!meetsTaken(start) && !meetsBusy(start)) starts.push(start);
    }
  }
  return starts;
}
