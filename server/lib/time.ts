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

/**
 * Weeks from Monday 00:00 UTC: the last `back` up to the one of `now`, and
 * `ahead` after it. `starts` are their first days; `indexOf` a time's week
 * among them (outside the range, below 0 or past the last).
 */
export function weeksAround(now: Date, back: number, ahead = 0) {
  const monday =
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) -
    ((now.getUTCDay() + 6) % 7) * dayMs;
  const first = monday - (back - 1) * weekMs;
  const count = back + ahead;
  return {
    from: new Date(first).toISOString(),
    to: new Date(first + count * weekMs).toISOString(),
    starts: Array.from({ length: count }, (_, index) =>
      new Date(first + index * weekMs).toISOString().slice(0, 10),
    ),
    indexOf: (at: Date | string) => Math.floor((Date.parse(toIso(at)) - first) / weekMs),
  };
}
