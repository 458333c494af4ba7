import { isItemPath } from "../../content/sections.ts";
import { labelOf } from "../../contract/reader-kinds.ts";
import {
  type ConversionCounts,
  conversionKinds,
  daySchema,
  type ReaderDimension,
  type ReaderFigure,
  type ReaderItem,
  type ReadersReport,
} from "../../contract/readers.ts";
import { toCsv } from "../lib/csv.ts";
import { addDays } from "../lib/time.ts";
import { type ConversionRow, type DayRow, type Dimension, unattributed } from "./day-figures.ts";
import { readingNowMs } from "./repository.ts";
import type { Readers } from "./service.ts";

/**
 * What the console's "Readers" screen and `admin readers` show, from the
 * same figures: a period's visitors and views, who is reading now, the top
 * pages, sources, campaigns, countries and devices, and the conversions by
 * entry page and by source.
 */

type Period = { period: "day" | "week" | "month" | "range"; from?: string; to?: string };

/**
 * The days a period covers, ending today (the day in progress in the owner's zone): a
 * day is today, a week the last 7 days.
 */
function daysOf({ period, from, to }: Period, today: string): { from: string; to: string } {
  if (period === "range" && from && to) {
    // No day after today has figures: a range is read to today at the latest (the screen's
    // fields stop there too), so no loop over its days runs on towards the year 10000.
    const last = to < today ? to : today;
    return { from: from < last ? from : last, to: last };
  }
  const back = period === "day" ? 0 : period === "week" ? 6 : 29;
  return { from: addDays(today, -back), to: today };
}

/** `--since 7d`, `--since 4w`, `--since 2026-11-01`: the command line's period, to `today`. */
export function sinceToPeriod(since: string, today: string): Period | null {
  const relative = /^(\d{1,4})([dw])$/.exec(since.trim());
  if (relative) {
    const count = Number(relative[1]) * (relative[2] === "w" ? 7 : 1);
    if (count < 1) return null;
    return { period: "range", from: addDays(today, 1 - count), to: today };
  }
  if (daySchema.safeParse(since).success && since <= today)
    return { period: "range", from: since, to: today };
  return null;
}

/**
 * Days listed one by one, at most: of a longer period, its last, which hold
 * its figures (its totals still count every day of it).
 */
const listedDays = 400;
const lastDays = (from: string, to: string) => {
  const first = addDays(to, 1 - listedDays);
  return from > first ? from : first;
};

/** Rows shown per table; the CSV holds them all. */
const shown = 50;

/** A row's engaged reads: none (null) for a page other than an article's or post's, which sends none. */
const engagedOf = (dimension: Dimension, value: string, engaged: number) =>
  dimension === "page" && !isItemPath(value) ? null : engaged;

function figuresOf(rows: DayRow[], dimension: Dimension): ReaderFigure[] {
  const by = new Map<string, ReaderFigure & { engaged: number }>();
  for (const row of rows) {
    if (row.dimension !== dimension) continue;
    const figure = by.get(row.value) ?? { value: row.value, views: 0, visitors: 0, engaged: 0 };
    figure.views += row.views;
    figure.visitors += row.visitors;
    figure.engaged += row.engaged;
    by.set(row.value, figure);
  }
  return [...by.values()]
    .sort((a, b) => b.visitors - a.visitors || b.views - a.views || a.value.localeCompare(b.value))
    .map((figure) => ({ ...figure, engaged: engagedOf(dimension, figure.value, figure.engaged) }));
}

function conversionsBy(rows: ConversionRow[], key: "entryPath" | "source"): ConversionCounts[] {
  const by = new Map<string, ConversionCounts>();
  for (const row of rows) {
    const value = row[key] || unattributed;
    const counts = by.get(value) ?? {
      value,
      subscription: 0,
      enquiry: 0,
      booking: 0,
      comment: 0,
      question: 0,
      total: 0,
    };
    const kind = conversionKinds.find((each) => each === row.kind);
    if (!kind) continue;
    counts[kind] += row.count;
    counts.total += row.count;
    by.set(value, counts);
  }
  return [...by.values()].sort((a, b) => b.total - a.total || a.value.localeCompare(b.value));
}

export function createReadersReport(readers: Readers, clock: () => Date = () => new Date()) {
  const { repository } = readers;

  /** Every figure of the period, every row (the CSV's); the screen shows the first 50 of each. */
  async function full(period: Period): Promise<ReadersReport> {
    const now = clock();
    const { zone, day: today } = await readers.today(now);
    const { from, to } = daysOf(period, today);
    const [{ rows, conversions, zones }, readingNow] = await Promise.all([
      repository.figures(from, to),
      repository.readingSince(new Date(now.getTime() - readingNowMs).toISOString()),
    ]);
    const totals = figuresOf(rows, "total");
    const days: ReadersReport["days"] = [];
    for (let day = lastDays(from, to); day <= to; day = addDays(day, 1)) {
      const total = rows.find((row) => row.dimension === "total" && row.day === day);
      days.push({ day, views: total?.views ?? 0, visitors: total?.visitors ?? 0 });
    }
    return {
      from,
      to,
      today,
      zone,
      otherZones: zones.filter((run) => run.zone !== zone),
      readingNow,
      views: totals[0]?.views ?? 0,
      visitors: totals[0]?.visitors ?? 0,
      days,
      pages: figuresOf(rows, "page"),
      sources: figuresOf(rows, "source"),
      campaigns: figuresOf(rows, "campaign"),
      countries: figuresOf(rows, "country"),
      devices: figuresOf(rows, "device"),
      conversions: {
        byEntryPage: conversionsBy(conversions, "entryPath"),
        bySource: conversionsBy(conversions, "source"),
      },
    };
  }

  return {
    full,

    /** The screen's answer: the period's figures, the first 50 rows of each table. */
    async report(period: Period): Promise<ReadersReport> {
      const all = await full(period);
      return {
        ...all,
        pages: all.pages.slice(0, shown),
        sources: all.sources.slice(0, shown),
        campaigns: all.campaigns.slice(0, shown),
        countries: all.countries.slice(0, shown),
        devices: all.devices.slice(0, shown),
        conversions: {
          byEntryPage: all.conversions.byEntryPage.slice(0, shown),
          bySource: all.conversions.bySource.slice(0, shown),
        },
      };
    },

    /** One row's own figures: day by day over the period, and its conversions. */
    async item(period: Period, dimension: ReaderDimension, value: string): Promise<ReaderItem> {
      const { from, to } = daysOf(period, (await readers.today(clock())).day);
      const { rows, conversions } = await repository.figures(from, to);
      const mine = rows.filter((row) => row.dimension === dimension && row.value === value);
      const days: ReaderItem["days"] = [];
      for (let day = lastDays(from, to); day <= to; day = addDays(day, 1)) {
        const row = mine.find((each) => each.day === day);
        days.push({
          day,
          views: row?.views ?? 0,
          visitors: row?.visitors ?? 0,
          engaged: engagedOf(dimension, value, row?.engaged ?? 0),
        });
      }
      const key = dimension === "page" ? "entryPath" : dimension === "source" ? "source" : null;
      const converted = key
        ? (conversionsBy(conversions, key).find((each) => each.value === value) ?? null)
        : null;
      return { dimension, value, days, conversions: converted };
    },

    /**
     * The period as CSV, one table after another (a blank line between), every
     * row; cells a spreadsheet would run as a formula start with a ' (server/lib/csv.ts).
     * It begins with a byte-order mark: without one, Excel reads the file in the
     * system's legacy code page, and a campaign or source named in another
     * alphabet than English's arrives garbled. `days` says which days it holds, for its file's name.
     */
    async csv(period: Period): Promise<{ days: string; csv: string }> {
      const all = await full(period);
      // Each row named as the screen names it: a country by its name, a device in words.
      const table = (title: ReaderDimension, figures: ReaderFigure[], engaged: boolean) => [
        [title, "visitors", "views", ...(engaged ? ["engaged reads"] : [])],
        ...figures.map((figure) => [
          labelOf(title, figure.value),
          String(figure.visitors),
          String(figure.views),
          ...(engaged ? [figure.engaged === null ? "" : String(figure.engaged)] : []),
        ]),
        [],
      ];
      const conversionTable = (title: string, counts: ConversionCounts[]) => [
        [title, ...conversionKinds, "total"],
        ...counts.map((each) => [
          each.value,
          ...conversionKinds.map((kind) => String(each[kind])),
          String(each.total),
        ]),
        [],
      ];
      const csv = toCsv([
        ["from", all.from, "to", all.to],
        ["days from midnight in", all.zone],
        ...all.otherZones.map((run) => ["counted in", run.zone, "from", run.from, "to", run.to]),
        ["visitors", String(all.visitors), "views", String(all.views)],
        [],
        ["day", "visitors", "views"],
        ...all.days.map((day) => [day.day, String(day.visitors), String(day.views)]),
        [],
        ...table("page", all.pages, true),
        ...table("source", all.sources, false),
        ...table("campaign", all.campaigns, false),
        ...table("country", all.countries, false),
        ...table("device", all.devices, false),
        ...conversionTable("entry page", all.conversions.byEntryPage),
        ...conversionTable("source of the visit", all.conversions.bySource),
      ]);
      return { days: all.from === all.to ? all.from : `${all.from}-to-${all.to}`, csv };
    },
  };
}

export type ReadersReports = ReturnType<typeof createReadersReport>;
