import { dateKey, widestOffsetMs } from "../../contract/time-zones.ts";

/** Timestamps leave the store as ISO-8601 UTC strings, whichever database holds them. */
export function toIso(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : value;
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** A UTC day in milliseconds (UTC has no daylight saving). */
export const dayMs = 86_400_000;

const weekMs = 7 * dayMs;

/** The date `days` after `day` (YYYY-MM-DD): calendar arithmetic, whatever the zone. */
export const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);

/**
 * Weeks from Monday's midnight in `zone` (the owner's, as the Overview's days: docs/decisions/065):
 * the last `back` up to the one of `now`, and `ahead` after it. `starts` are their first days;
 * `from` and `to` bound, with a margin, the times that may fall in them (offsets run from -12 to
 * +14 hours); `indexOf` a time's week among them (outside the range, below 0 or past the last).
 */
export function weeksAround(now: Date, back: number, ahead = 0, zone = "UTC") {
  const today = Date.parse(`${dateKey(now, zone)}T00:00:00Z`);
  const monday = today - ((new Date(today).getUTCDay() + 6) % 7) * dayMs;
  const first = monday - (back - 1) * weekMs;
  const count = back + ahead;
  return {
    from: new Date(first - widestOffsetMs).toISOString(),
    to: new Date(first + count * weekMs + widestOffsetMs).toISOString(),
    starts: Array.from({ length: count }, (_, index) =>
      new Date(first + index * weekMs).toISOString().slice(0, 10),
    ),
    // The week of the time's date there, a calendar date written as UTC's midnight.
    indexOf: (at: Date | string) =>
      Math.floor(
        (Date.parse(`${dateKey(Date.parse(toIso(at)), zone)}T00:00:00Z`) - first) / weekMs,
      ),
  };
}
