import type { Batch, Visit } from "./repository.ts";

/*
 * What an instance has counted since its last write (service.ts). Its page
 * views are counted in place: one entry per day, page and reader with its
 * number of views and the time of the last, so a view makes nothing that
 * outlives its request unless it is its reader's first of that page that
 * day (a busy five seconds' views were as many objects, each kept to the
 * write and so carried into the old generation of the heap, for the
 * collector to find).
 */

/** Rows kept in memory while the database cannot take them, beyond which the oldest are dropped. */
export const maxPending = 500_000;

/** A page's views by one reader that day, and the time of the last (ms since 1970). */
type ViewCount = { day: string; path: string; reader: string; views: number; last: number };

/** The counts by day, page and reader. */
type ViewCounts = Map<string, ViewCount>;

/** What an instance holds until its next write; a visit's country is found as it is written. */
export type Pending = Omit<Batch, "visits" | "views"> & {
  visits: (Omit<Visit, "country"> & { timeZone: string })[];
  views: ViewCounts;
};

export const nothingPending = (): Pending => ({
  visits: [],
  views: new Map(),
  reads: [],
  conversions: [],
});

/** One more view of `path` by `reader` on `day`, at `now`. */
export function countView(
  counts: ViewCounts,
  day: string,
  path: string,
  reader: string,
  now: number,
): void {
  const key = `${day}\u0000${path}\u0000${reader}`;
  const counted = counts.get(key);
  if (counted) {
    counted.views += 1;
    counted.last = now;
  } else {
    counts.set(key, { day, path, reader, views: 1, last: now });
  }
}

/** The counts as a write takes them, each with its last view's time. */
export const viewRows = (counts: ViewCounts): Batch["views"] =>
  Array.from(counts.values(), ({ day, path, reader, views, last }) => ({
    day,
    path,
    reader,
    views,
    at: new Date(last).toISOString(),
  }));

/** The time of the last view counted, or null when none was. */
export function lastViewAt(counts: ViewCounts): number | null {
  let last: number | null = null;
  for (const count of counts.values()) last = Math.max(last ?? count.last, count.last);
  return last;
}

/**
 * `older`'s counts (a write that failed) with `newer`'s added, for the next
 * write; beyond `maxPending` keys the oldest go.
 */
export function mergedViews(older: ViewCounts, newer: ViewCounts): ViewCounts {
  const merged = new Map(older);
  for (const [key, count] of newer) {
    const kept = merged.get(key);
    merged.set(key, kept ? { ...kept, views: kept.views + count.views, last: count.last } : count);
  }
  for (const key of merged.keys()) {
    if (merged.size <= maxPending) break;
    merged.delete(key);
  }
  return merged;
}
