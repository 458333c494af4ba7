import { zoneName } from "./time-zones.ts";

/*
 * What readership attributes to a visit, without zod: the console's Readers
 * screen imports this, and zod in a page probes for `new Function`, which the
 * site's Content-Security-Policy (no 'unsafe-eval') reports as a violation.
 */

/** What a reader may go on to do, attributed to the visit's entry page and source. */
export const conversionKinds = [
  "subscription",
  "enquiry",
  "booking",
  "comment",
  "question",
] as const;
export type ConversionKind = (typeof conversionKinds)[number];

/** What the figures are counted by. */
export const readerDimensions = ["page", "source", "campaign", "country", "device"] as const;
export type ReaderDimension = (typeof readerDimensions)[number];

/** Made at the first country named: it loads ICU's region names, which a start does without. */
let regionNames: Intl.DisplayNames | undefined;

/** A row's value as the owner reads it (the console, `admin readers`): a country's name, a device in words. */
export function labelOf(dimension: ReaderDimension, value: string): string {
  if (!value) return "Unknown";
  if (dimension === "country") {
    try {
      regionNames ??= new Intl.DisplayNames(["en-GB"], { type: "region" });
      return regionNames.of(value) ?? value;
    } catch {
      return value;
    }
  }
  if (dimension === "device") return value.charAt(0).toUpperCase() + value.slice(1);
  return value;
}

/** Rolled-up days in a row counted in one zone (readers.ts, `otherZones`). */
type ZoneRun = { from: string; to: string; zone: string };

/**
 * Which zone a period's days run in, as the screen and the command line say it: "days
 * from midnight in Asia / Kolkata", and the days counted in another zone ("…, but
 * 2026-11-01 to 2026-12-05 in UTC").
 */
export function zoneNote({ zone, otherZones }: { zone: string; otherZones: readonly ZoneRun[] }) {
  const others = otherZones.map(
    (run) =>
      `${run.from === run.to ? run.from : `${run.from} to ${run.to}`} in ${zoneName(run.zone)}`,
  );
  const before = others.length > 0 ? `, but ${others.join(", ")}` : "";
  return `days from midnight in ${zoneName(zone)}${before}`;
}
