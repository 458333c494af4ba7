import type ICAL from "ical.js";

/*
 * What the busy calendar's reader (busy-times.ts) decides of a rule before ical.js expands
 * it: where to expand it from (`rebased`), and whether it names any day at all
 * (`namesNoDay`), since ical.js looks for ever for the first instance of one that does not
 * (docs/decisions/082-a-calendar-read-past-its-bad-events.md).
 */

/** The most days each month can have: February's 29 in a leap year. */
const monthDays = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether `rule` names no day that can ever be: its months (BYMONTH) hold none of its days
 * of the month (BYMONTHDAY, from the end when negative: 30 February, 31 April) or of the
 * year (BYYEARDAY: day 1 in February). Such a rule has no instance; its event is its first
 * start and its dates alone. Other rules that never come are left to the thread's time.
 */
export function namesNoDay(rule: ICAL.Recur): boolean {
  const months = rule.parts.BYMONTH;
  if (!months?.length) return false;
  const monthly = rule.parts.BYMONTHDAY;
  const inMonth = (day: number) => (month: number) => Math.abs(day) <= (monthDays[month - 1] ?? 0);
  if (monthly?.length && !monthly.some((day) => months.some(inMonth(day)))) return true;
  const yearly = rule.parts.BYYEARDAY;
  if (!yearly?.length) return false;
  // The months day n of the year falls in, in a common year and a leap year, from either end.
  const monthsOf = (day: number) =>
    [365, 366].flatMap((length) => {
      const nth = day > 0 ? day : length + day + 1;
      if (nth < 1 || nth > length) return [];
      let left = nth;
      for (let month = 1; month <= 12; month += 1) {
        const days = month === 2 && length === 365 ? 28 : (monthDays[month - 1] as number);
        if (left <= days) return [month];
        left -= days;
      }
      return [];
    });
  return !yearly.some((day) => monthsOf(day).some((month) => months.includes(month)));
}

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
export function rebased(
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
