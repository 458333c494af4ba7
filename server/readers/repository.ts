import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";

/**
 * The readers' tables (server/db/migrations/021-readers.ts): what the
 * instances' counters write, the daily roll-up, retention and the reads
 * behind the console's "Readers" screen and `admin readers`.
 */

export type Visit = {
  day: string;
  reader: string;
  startedAt: string;
  entryPath: string;
  source: string;
  medium: string;
  campaign: string;
  country: string;
  device: string;
};
export type View = { day: string; at: string; reader: string; path: string };
export type Read = { day: string; reader: string; path: string };
export type Conversion = { day: string; at: string; reader: string; kind: string };
export type Batch = { visits: Visit[]; views: View[]; reads: Read[]; conversions: Conversion[] };

export const dimensions = ["total", "page", "source", "campaign", "country", "device"] as const;
export type Dimension = (typeof dimensions)[number];

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

type Db = Kysely<Database>;
const num = (value: unknown) => Number(value ?? 0);

/** Rows per INSERT, well under either database's limit on parameters. */
function chunks<T>(rows: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < rows.length; start += size) out.push(rows.slice(start, start + size));
  return out;
}

/** A UTC day, "2026-12-01". */
export const dayOf = (at: Date) => at.toISOString().slice(0, 10);
export const addDays = (day: string, days: number) =>
  dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000));

/**
 * The figures of raw days, as the roll-up keeps them: per day, the total,
 * each page (views, visitors, engaged reads), and each source, campaign,
 * country and device (visits started there, and those visits' views); and
 * the conversions by the entry page and source of the reader's visit that day.
 */
async function aggregate(
  db: Db,
  days: string[],
): Promise<{ rows: DayRow[]; conversions: ConversionRow[] }> {
  if (days.length === 0) return { rows: [], conversions: [] };
  const [pages, reads, totals, combos, conversions] = await Promise.all([
    db
      .selectFrom("reader_views")
      .select((eb) => [
        "day",
        "path",
        eb.fn.countAll().as("views"),
        eb.fn.count("reader").distinct().as("visitors"),
      ])
      .where("day", "in", days)
      .groupBy(["day", "path"])
      .execute(),
    db
      .selectFrom("reader_reads")
      .select((eb) => ["day", "path", eb.fn.countAll().as("reads")])
      .where("day", "in", days)
      .groupBy(["day", "path"])
      .execute(),
    // The day's visitors are its visits, one per reader (summed below).
    db
      .selectFrom("reader_views")
      .select((eb) => ["day", eb.fn.countAll().as("views")])
      .where("day", "in", days)
      .groupBy("day")
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
    db
      .selectFrom("reader_conversions as c")
      .leftJoin("reader_visits as v", (join) =>
        join.onRef("v.day", "=", "c.day").onRef("v.reader", "=", "c.reader"),
      )
      .select((eb) => [
        "c.day as day",
        "c.kind as kind",
        "v.entry_path as entryPath",
        "v.source as source",
        eb.fn.countAll().as("count"),
      ])
      .where("c.day", "in", days)
      .groupBy(["c.day", "c.kind", "v.entry_path", "v.source"])
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
  for (const total of totals) row(total.day, "total", "").views = num(total.views);
  for (const page of pages) {
    const each = row(page.day, "page", page.path);
    each.views = num(page.views);
    each.visitors = num(page.visitors);
  }
  for (const read of reads) {
    row(read.day, "page", read.path).engaged += num(read.reads);
    row(read.day, "total", "").engaged += num(read.reads);
  }
  const split = (combo: {
    day: string;
    source: string;
    medium: string;
    campaign: string;
    country: string;
    device: string;
  }) => [
    row(combo.day, "source", combo.source),
    ...(combo.campaign ? [row(combo.day, "campaign", campaignLabel(combo))] : []),
    row(combo.day, "country", combo.country),
    row(combo.day, "device", combo.device),
  ];
  for (const combo of combos) {
    row(combo.day, "total", "").visitors += num(combo.visitors);
    for (const each of split(combo)) {
      each.visitors += num(combo.visitors);
      each.views += num(combo.views);
    }
  }
  return {
    rows: [...rows.values()],
    conversions: conversions.map((each) => ({
      day: each.day,
      kind: each.kind,
      entryPath: each.entryPath ?? "",
      source: each.source ?? "",
      count: num(each.count),
    })),
  };
}

/** A campaign as the owner tells one from another: its name, then where its link was put. */
function campaignLabel({
  campaign,
  source,
  medium,
}: {
  campaign: string;
  source: string;
  medium: string;
}) {
  return `${campaign} (${medium ? `${source}, ${medium}` : source})`;
}

export function createReadersRepository(store: Store) {
  const { db } = store;

  /** The last day rolled up, or null before the first. */
  async function lastRolled(on: Db = db): Promise<string | null> {
    const found = await on
      .selectFrom("reader_rollups")
      .select((eb) => eb.fn.max("day").as("day"))
      .executeTakeFirst();
    return found?.day ?? null;
  }

  return {
    /**
     * The salt of `day`, made by the first instance that needs it; every
     * instance then hashes with the same one. The salts of earlier days are
     * deleted in the same go: a reader of yesterday cannot be told again.
     */
    async saltOf(day: string): Promise<string> {
      await db
        .insertInto("reader_salts")
        .values({ day, salt: randomBytes(32).toString("base64url") })
        .onConflict((oc) => oc.column("day").doNothing())
        .execute();
      await db.deleteFrom("reader_salts").where("day", "<", day).execute();
      const found = await db
        .selectFrom("reader_salts")
        .select("salt")
        .where("day", "=", day)
        .executeTakeFirstOrThrow();
      return found.salt;
    },

    /** One instance's counts since its last write, in one transaction. */
    async write(batch: Batch): Promise<void> {
      await db.transaction().execute(async (trx) => {
        for (const part of chunks(batch.visits, 500)) {
          await trx
            .insertInto("reader_visits")
            .values(
              part.map((visit) => ({
                day: visit.day,
                reader: visit.reader,
                started_at: visit.startedAt,
                entry_path: visit.entryPath,
                source: visit.source,
                medium: visit.medium,
                campaign: visit.campaign,
                country: visit.country,
                device: visit.device,
              })),
            )
            .onConflict((oc) => oc.columns(["day", "reader"]).doNothing())
            .execute();
        }
        for (const part of chunks(batch.views, 1000)) {
          await trx.insertInto("reader_views").values(part).execute();
        }
        // Each visit's views, added in one statement per 500 readers, so the
        // screen counts a source's views from its visits alone.
        const perReader = new Map<string, { day: string; reader: string; views: number }>();
        for (const view of batch.views) {
          const key = `${view.day} ${view.reader}`;
          const found = perReader.get(key);
          if (found) found.views += 1;
          else perReader.set(key, { day: view.day, reader: view.reader, views: 1 });
        }
        for (const part of chunks([...perReader.values()], 500)) {
          const added = sql.join(
            part.map((each) => sql`(${each.day}, ${each.reader}, cast(${each.views} as integer))`),
          );
          await sql`with added (day, reader, views) as (values ${added})
            update reader_visits set views = reader_visits.views + added.views
            from added where reader_visits.day = added.day and reader_visits.reader = added.reader`.execute(
            trx,
          );
        }
        for (const part of chunks(batch.reads, 1000)) {
          await trx
            .insertInto("reader_reads")
            .values(part)
            .onConflict((oc) => oc.columns(["day", "path", "reader"]).doNothing())
            .execute();
        }
        for (const part of chunks(batch.conversions, 1000)) {
          await trx.insertInto("reader_conversions").values(part).execute();
        }
      });
    },

    lastRolled,

    /**
     * Rolls up each finished day not rolled up yet, up to `through`, oldest
     * first: its figures are written once, with a mark that another instance
     * doing the same meanwhile finds taken. Returns the days rolled up.
     */
    async rollUp(through: string, at: string): Promise<string[]> {
      const first = await db
        .selectFrom("reader_views")
        .select((eb) => eb.fn.min("day").as("day"))
        .executeTakeFirst();
      const last = await lastRolled();
      let day = last ? addDays(last, 1) : first?.day;
      if (first?.day && day && first.day > day) day = first.day;
      const rolled: string[] = [];
      while (day && day <= through) {
        const current = day;
        const done = await db.transaction().execute(async (trx) => {
          const marked = await trx
            .insertInto("reader_rollups")
            .values({ day: current, rolled_at: at })
            .onConflict((oc) => oc.column("day").doNothing())
            .returning("day")
            .execute();
          if (marked.length === 0) return false;
          const { rows, conversions } = await aggregate(trx, [current]);
          for (const part of chunks(rows, 500)) {
            await trx.insertInto("reader_days").values(part).execute();
          }
          for (const part of chunks(conversions, 500)) {
            await trx
              .insertInto("reader_conversion_days")
              .values(
                part.map((each) => ({
                  day: each.day,
                  kind: each.kind,
                  entry_path: each.entryPath,
                  source: each.source,
                  count: each.count,
                })),
              )
              .execute();
          }
          return true;
        });
        if (done) rolled.push(current);
        day = addDays(current, 1);
      }
      return rolled;
    },

    /** Deletes the raw rows of days before `before` that are rolled up; returns the views deleted. */
    async prune(before: string): Promise<number> {
      const last = await lastRolled();
      if (!last) return 0;
      const until = last < before ? addDays(last, 1) : before;
      return db.transaction().execute(async (trx) => {
        const views = await trx
          .deleteFrom("reader_views")
          .where("day", "<", until)
          .executeTakeFirst();
        await trx.deleteFrom("reader_visits").where("day", "<", until).execute();
        await trx.deleteFrom("reader_reads").where("day", "<", until).execute();
        await trx.deleteFrom("reader_conversions").where("day", "<", until).execute();
        return Number(views.numDeletedRows);
      });
    },

    /**
     * The figures of the days from `from` to `to`: the rolled-up days from
     * their rows, the others (today, and a day not rolled up yet) from the raw
     * rows, so a range reads a few rows per day whatever the views.
     */
    async figures(
      from: string,
      to: string,
    ): Promise<{ rows: DayRow[]; conversions: ConversionRow[] }> {
      const last = await lastRolled();
      const rolledTo = last && last < to ? last : to;
      const rolled =
        last && from <= rolledTo
          ? await Promise.all([
              db
                .selectFrom("reader_days")
                .selectAll()
                .where("day", ">=", from)
                .where("day", "<=", rolledTo)
                .execute(),
              db
                .selectFrom("reader_conversion_days")
                .select(["day", "kind", "entry_path as entryPath", "source", "count"])
                .where("day", ">=", from)
                .where("day", "<=", rolledTo)
                .execute(),
            ])
          : [[], []];
      // The raw days in the range: after the last rolled up, from the oldest kept.
      const oldest = await db
        .selectFrom("reader_views")
        .select((eb) => eb.fn.min("day").as("day"))
        .executeTakeFirst();
      let day = last && last >= from ? addDays(last, 1) : from;
      if (oldest?.day && oldest.day > day) day = oldest.day;
      const rawDays: string[] = [];
      for (; oldest?.day && day <= to; day = addDays(day, 1)) rawDays.push(day);
      const raw = await aggregate(db, rawDays);
      return {
        rows: [
          ...rolled[0].map((row) => ({
            ...row,
            dimension: row.dimension as Dimension,
            views: num(row.views),
            visitors: num(row.visitors),
            engaged: num(row.engaged),
          })),
          ...raw.rows,
        ],
        conversions: [
          ...rolled[1].map((row) => ({ ...row, count: num(row.count) })),
          ...raw.conversions,
        ],
      };
    },

    /** Readers with a view since `since`: who is reading now. */
    async readingSince(since: string): Promise<number> {
      const found = await db
        .selectFrom("reader_views")
        .select((eb) => eb.fn.count("reader").distinct().as("readers"))
        .where("at", ">=", since)
        .executeTakeFirst();
      return num(found?.readers);
    },
  };
}

export type ReadersRepository = ReturnType<typeof createReadersRepository>;
