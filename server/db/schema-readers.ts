import type { Generated } from "kysely";
import type { Timestamp } from "./columns.ts";

/**
 * Readership without cookies (server/readers/): `reader` is the day's hash of
 * the site, the IP address and the user agent with a salt deleted when the
 * day is over; days are the owner's dates, "2026-12-01", in the owner's zone
 * (docs/decisions/063-readers-days-in-the-owners-zone.md; UTC's before).
 */

export type ReaderTables = {
  reader_salts: { day: string; salt: string };
  reader_visits: {
    day: string;
    reader: string;
    entry_path: string;
    source: string;
    medium: string;
    campaign: string;
    country: string;
    device: string;
    /** The visit's views so far (migration 027). */
    views: Generated<number>;
  };
  /** Each reader's views of a page in a day, a count (migration 033). */
  reader_views: { day: string; path: string; reader: string; views: number };
  /** Readers seen in the last 30 minutes, for "reading now" (migration 032). */
  reader_now: { reader: string; at: Timestamp };
  reader_reads: { day: string; reader: string; path: string };
  reader_days: {
    day: string;
    dimension: string;
    value: string;
    views: number;
    visitors: number;
    engaged: number;
  };
  /** Conversions, counted as they come (migration 031). */
  reader_conversion_days: {
    day: string;
    kind: string;
    entry_path: string;
    source: string;
    count: number;
  };
  /** The zone the day was counted in (docs/decisions/063-readers-days-in-the-owners-zone.md). */
  reader_rollups: { day: string; rolled_at: Timestamp; zone: Generated<string> };
};
