import { dateKey } from "../../contract/time-zones.ts";
import { addDays } from "../lib/time.ts";

/*
 * The Overview's days are the owner's, from midnight in the zone of their Bookings hours,
 * as the Readers screen's are. The databases count rows by the quarter hour of UTC
 * (SQLite knows no zones), and each quarter is given the owner's date here.
 */

/** The `days` dates up to `today` (YYYY-MM-DD), oldest first. */
export const lastDays = (today: string, days: number): string[] =>
  Array.from({ length: days }, (_, i) => addDays(today, i + 1 - days));

/** A quarter hour of UTC ("2026-12-06T18:2", its third), as `quarterOf` writes it, as an instant. */
const quarterStart = (quarter: string) =>
  Date.parse(
    `${quarter.slice(0, 14)}${String(Number(quarter.slice(14)) * 15).padStart(2, "0")}:00Z`,
  );

/**
 * The owner's date of each quarter hour of UTC, worked out once per quarter: every
 * zone's offset is a whole number of quarter hours, so a quarter lies within one date.
 */
export function ownerDates(zone: string) {
  const known = new Map<string, string>();
  return (quarter: string) => {
    let date = known.get(quarter);
    if (date === undefined) {
      date = dateKey(quarterStart(quarter), zone);
      known.set(quarter, date);
    }
    return date;
  };
}

/** The quarter hour of an ISO time, as `quarterOf` writes it in SQL. */
export const quarterOfIso = (iso: string) =>
  `${iso.slice(0, 14)}${Math.floor(Number(iso.slice(14, 16)) / 15)}`;
