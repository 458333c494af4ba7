import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";

/*
 * The figures of readers' days (docs/product.md, "Readers"): what the
 * roll-up keeps of a finished day, and what a range of days reads. A
 * conversion is counted as it is written (repository.ts), by its day, kind
 * and visit's entry page and source.
 */

export type Dimension = "total" | "page" | "source" | "campaign" | "country" | "device";

/** One figure of one day: a page's, a source's…, or the day's total (value ""). */
export type DayRow = {
  day: string;
  dimension: Dimension;
  value: string;
  views: number;
  visitors: number;
  engaged: number;
};
export type ConversionRow = {
  day: string;
  kind: string;
  entryPath: string;
  source: string;
  count: number;
};

export const num = (value: unknown) => Number(value ?? 0);

/**
 * Sources and campaigns a day keeps by name: anyone can send a view with a
 * utm_ value or a referrer of their choosing, and a day's figures are kept for
 * good, so past these (those with the most visitors first) a day's others are
 * one row, `others`.
 */
const namedPerDay = 200;
const others = "(others)";
/** How the screen names a conversion without a counted visit that day. */
export const unattributed = "(not counted)";

/** Each day's sources and campaigns beyond the `namedPerDay` largest, folded into one row. */
function foldTail(rows: DayRow[]): DayRow[] {
  const kept: DayRow[] = [];
  const groups = new Map<string, DayRow[]>();
  for (const row of rows) {
    if (row.dimension !== "source" && row.dimension !== "campaign") kept.push(row);
    else {
      const key = `${row.day}\u0000${row.dimension}`;
      const group = groups.get(key);
      if (group) group.push(row);
      else groups.set(key, [row]);
    }
  }
  for (const group of groups.values()) {
    group.sort(
      (a, b) => b.visitors - a.visitors || b.views - a.views || a.value.localeCompare(b.value),
    );
    const named = group.slice(0, namedPerDay);
    const tail = group.slice(namedPerDay);
    kept.push(...named);
    const first = tail[0];
    if (!first) continue;
    // A utm_source that reads "(others)" is among them already: one row of that name.
    let folded = named.find((row) => row.value === others);
    if (!folded) {
      folded = { ...first, value: others, views: 0, visitors: 0, engaged: 0 };
      kept.push(folded);
    }
    for (const row of tail) {
      folded.views += row.views;
      folded.visitors += row.visitors;
    }
  }
  return kept;
}

/**
 * The figures of raw days, as the roll-up keeps them: per day, the total,
 * each page (views, visitors, engaged reads), and each source, campaign,
 * country and device (visits started there, and those visits' views).
 */
export async function aggregate(db: Kysely<Database>, days: string[]): Promise<DayRow[]> {
  if (days.length === 0) return [];
  const [pages, reads, combos] = await Promise.all([
    db
      .selectFrom("reader_views")
      // A row is one reader's views of a page that day.
      .select((eb) => [
        "day",
        "path",
        eb.fn.sum("views").as("views"),
        eb.fn.countAll().as("visitors"),
      ])
      .where("day", "in", days)
      .groupBy(["day", "path"])
      .execute(),
    // An engaged read counts with a view of its page by its reader that day,
    // whichever instance wrote either: anyone can send a read alone, which
    // would count readers who never opened the page.
    db
      .selectFrom("reader_reads as r")
      .innerJoin("reader_views as v", (join) =>
        join
          .onRef("v.day", "=", "r.day")
          .onRef("v.path", "=", "r.path")
          .onRef("v.reader", "=", "r.reader"),
      )
      .select((eb) => ["r.day", "r.path", eb.fn.countAll().as("reads")])
      .where("r.day", "in", days)
      .groupBy(["r.day", "r.path"])
      .execute(),
    db
      .selectFrom("reader_visits")
      .select((eb) => [
        "day",
        "source",
        "medium",
        "campaign",
        "country",
        "device",
        eb.fn.countAll().as("visitors"),
        eb.fn.sum("views").as("views"),
      ])
      .where("day", "in", days)
      .groupBy(["day", "source", "medium", "campaign", "country", "device"])
      .execute(),
  ]);

  const rows = new Map<string, DayRow>();
  const row = (day: string, dimension: Dimension, value: string) => {
    const key = `${day}\u0000${dimension}\u0000${value}`;
    let found = rows.get(key);
    if (!found) {
      found = { day, dimension, value, views: 0, visitors: 0, engaged: 0 };
      rows.set(key, found);
    }
    return found;
  };
  // The day's views are its pages' (its visitors, its visits: summed below).
  for (const page of pages) {
    const each = row(page.day, "page", page.path);
    each.views = num(page.views);
    each.visitors = num(page.visitors);
    row(page.day, "total", "").views += each.views;
  }
  for (const read of reads) {
    row(read.day, "page", read.path).engaged += num(read.reads);
    row(read.day, "total", "").engaged += num(read.reads);
  }
  for (const { day, source, medium, campaign, country, device, ...combo } of combos) {
    row(day, "total", "").visitors += num(combo.visitors);
    // A campaign as the owner tells one from another: its name, then where its link was put.
    const label = `${campaign} (${medium ? `${source}, ${medium}` : source})`;
    for (const each of [
      row(day, "source", source),
      ...(campaign ? [row(day, "campaign", label)] : []),
      row(day, "country", country),
      row(day, "device", device),
    ]) {
      each.visitors += num(combo.visitors);
      each.views += num(combo.views);
    }
  }
  return foldTail([...rows.values()]);
}

/**
 * The day's conversions by a source its figures fold into `others` (above), folded
 * alike, once the day is rolled up: counted as they come, they would otherwise keep a
 * row for each made-up source a question or a comment came from. Those of no counted
 * visit ("") stay as they are.
 */
export async function foldConversions(
  db: Kysely<Database>,
  day: string,
  rows: DayRow[],
): Promise<void> {
  if (!rows.some((row) => row.dimension === "source" && row.value === others)) return;
  const named = rows
    .filter((row) => row.dimension === "source" && row.value !== others)
    .map((row) => row.value);
  const tail = (eb: ExpressionBuilder<Database, "reader_conversion_days">) =>
    eb.and([
      eb("day", "=", day),
      eb("source", "<>", ""),
      eb("source", "<>", others),
      ...(named.length > 0 ? [eb("source", "not in", named)] : []),
    ]);
  const sums = await db
    .selectFrom("reader_conversion_days")
    .select((eb) => ["kind", "entry_path", eb.fn.sum<number | string>("count").as("count")])
    .where(tail)
    .groupBy(["kind", "entry_path"])
    .execute();
  if (sums.length === 0) return;
  await db.deleteFrom("reader_conversion_days").where(tail).execute();
  for (const sum of sums) {
    await sql`insert into reader_conversion_days (day, kind, entry_path, source, count)
      values (${day}, ${sum.kind}, ${sum.entry_path}, ${others}, ${num(sum.count)})
      on conflict (day, kind, entry_path, source)
      do update set count = reader_conversion_days.count + excluded.count`.execute(db);
  }
}

/**
 * The conversions of days not rolled up yet (today's), read as the roll-up will
 * keep them (`foldConversions`): by a source those days' figures (`rows`, from
 * `aggregate`) fold into `others`, under `others`.
 */
export function foldedAsRolled(conversions: ConversionRow[], rows: DayRow[]): ConversionRow[] {
  const named = new Map<string, Set<string>>();
  for (const row of rows) {
    if (row.dimension !== "source") continue;
    named.set(row.day, (named.get(row.day) ?? new Set()).add(row.value));
  }
  return conversions.map((row) => {
    const sources = named.get(row.day);
    return sources?.has(others) && row.source !== "" && !sources.has(row.source)
      ? { ...row, source: others }
      : row;
  });
}
