import { z } from "zod";
import { readerDimensions } from "./reader-kinds.ts";

/*
 * Readers (docs/product.md, "Readers"): the page's beacon, and the owner's
 * "Readers" screen and its CSV. Nothing here names a reader: the figures are
 * counts.
 */

/** The beacon's report of a view, in its query string (sendBeacon sends no body here). */
export const viewBeaconSchema = z.object({
  p: z.string().min(1).max(300).describe("the page's path, location.pathname"),
  r: z.string().max(2000).default("").describe("document.referrer"),
  q: z.string().max(1000).default("").describe("location.search, for utm_source/medium/campaign"),
  z: z.string().max(64).default("").describe("the browser's time zone (the country comes from it)"),
});

/** An engaged read: the end of an article reached, or 30 s in view. */
export const readBeaconSchema = z.object({
  p: z.string().min(1).max(300).describe("the article's path"),
});

export {
  type ConversionKind,
  conversionKinds,
  type ReaderDimension,
  zoneNote,
} from "./reader-kinds.ts";

export const daySchema = z.iso
  .date()
  .describe("a day from the owner's midnight, in the owner's zone, YYYY-MM-DD");

const periodShape = {
  period: z.enum(["day", "week", "month", "range"]).default("week"),
  from: daySchema.optional(),
  to: daySchema.optional(),
};
type Period = { period: string; from?: string | undefined; to?: string | undefined };
const rangeGiven = (query: Period) => query.period !== "range" || Boolean(query.from && query.to);
const rangeInOrder = (query: Period) => !query.from || !query.to || query.from <= query.to;
const rangeMessage =
  "A range needs its first and last day (from, to), the first not after the last.";

/** The screen's period: the last day, week or month to today, or the days from `from` to `to`. */
export const readersQuerySchema = z
  .strictObject(periodShape)
  .refine((query) => rangeGiven(query) && rangeInOrder(query), { message: rangeMessage });
export type ReadersQuery = z.input<typeof readersQuerySchema>;

const figureSchema = z.object({
  value: z.string(),
  views: z.number().int(),
  visitors: z.number().int(),
  /**
   * An article's or post's page: its visitors who read it to its end or for 30 s;
   * null for another page, which sends no such read; 0 for the other tables.
   */
  engaged: z.number().int().nullable(),
});
export type ReaderFigure = z.infer<typeof figureSchema>;

const conversionCountsSchema = z.object({
  value: z.string(),
  subscription: z.number().int(),
  enquiry: z.number().int(),
  booking: z.number().int(),
  comment: z.number().int(),
  question: z.number().int(),
  total: z.number().int(),
});
export type ConversionCounts = z.infer<typeof conversionCountsSchema>;

/** Rolled-up days in a row that were counted in one zone. */
const zoneRunSchema = z.object({ from: daySchema, to: daySchema, zone: z.string() });

export const readersReportSchema = z.object({
  from: daySchema,
  to: daySchema,
  /** The day in progress: the owner's date, or a later day still running after a move west. */
  today: daySchema,
  /** The owner's zone (the Bookings hours'), whose midnights begin the days. */
  zone: z.string(),
  /** The period's days that were counted in another zone (UTC's, before days were the owner's). */
  otherZones: z.array(zoneRunSchema),
  /** Readers with a view in the last 30 minutes. */
  readingNow: z.number().int(),
  views: z.number().int(),
  /** Visitors per day, added up: a reader is known for one day only. */
  visitors: z.number().int(),
  days: z.array(z.object({ day: daySchema, views: z.number().int(), visitors: z.number().int() })),
  pages: z.array(figureSchema),
  sources: z.array(figureSchema),
  campaigns: z.array(figureSchema),
  countries: z.array(figureSchema),
  devices: z.array(figureSchema),
  conversions: z.object({
    byEntryPage: z.array(conversionCountsSchema),
    bySource: z.array(conversionCountsSchema),
  }),
});
export type ReadersReport = z.infer<typeof readersReportSchema>;

export const readerItemQuerySchema = z
  .strictObject({ ...periodShape, dimension: z.enum(readerDimensions), value: z.string().max(300) })
  .refine((query) => rangeGiven(query) && rangeInOrder(query), { message: rangeMessage });

/** One row's own figures, day by day, and its conversions (by entry page or source). */
export const readerItemSchema = z.object({
  dimension: z.enum(readerDimensions),
  value: z.string(),
  days: z.array(
    z.object({
      day: daySchema,
      views: z.number().int(),
      visitors: z.number().int(),
      /** As a figure's. */
      engaged: z.number().int().nullable(),
    }),
  ),
  conversions: conversionCountsSchema.nullable(),
});
export type ReaderItem = z.infer<typeof readerItemSchema>;

type In<S extends z.ZodType> = z.input<S>;

export type ReaderEndpoints = {
  "GET /admin/readers": { query?: In<typeof readersQuerySchema>; response: ReadersReport };
  "GET /admin/readers/item": {
    query: In<typeof readerItemQuerySchema>;
    response: ReaderItem;
  };
};
