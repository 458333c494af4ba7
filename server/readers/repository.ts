import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { dateKey } from "../../contract/time-zones.ts";
import type { Store } from "../db/store.ts";
import { addDays } from "../lib/time.ts";
import {
  aggregate,
  type ConversionRow,
  type DayRow,
  type Dimension,
  foldConversions,
  foldedAsRolled,
  num,
} from "./day-figures.ts";
import { byKey, type Column, inSteps, unpacked } from "./rows.ts";

/**
 * The readers' tables (server/db/migrations/021-readers.ts): what the
 * instances' counters write, the daily roll-up, retention and the reads
 * behind the console's "Readers" screen and `admin readers`.
 */

export type Visit = {
  day: string;
  reader: string;
  entryPath: string;
  source: string;
  medium: string;
  campaign: string;
  country: string;
  device: string;
};
export type Batch = {
  visits: Visit[];
  /** Views of a page by a reader that day: how many, and the last one's time. */
  views: { day: string; path: string; reader: string; views: number; at: string }[];
  reads: { day: string; reader: string; path: string }[];
  conversions: { day: string; reader: string; kind: string }[];
};

/** "Reading now" is a view in the last 30 minutes. */
export const readingNowMs = 30 * 60_000;

/**
 * A readers' day: the owner's date in their zone at `at`, "2026-12-01"
 * (docs/decisions/063-readers-days-in-the-owners-zone.md).
 */
export const dayIn = (at: Date | number, zone: string) => dateKey(at, zone);

/**
 * How far a salt's day may run ahead of the owner's date and still be the day
 * in progress: two zones' dates differ by two days at most. Further ahead, it
 * was made by a clock that was wrong.
 */
const aheadAtMost = 2;

/** Rolled-up days in a row counted in one zone: "2026-11-01" to "2026-12-05" in UTC. */
export type ZoneRun = { from: string; to: string; zone: string };

export function createReadersRepository(store: Store) {
  const { db } = store;

  /** The last day rolled up, or null before the first. */
  async function lastRolled(): Promise<string | null> {
    const found = await db
      .selectFrom("reader_rollups")
      .select((eb) => eb.fn.max("day").as("day"))
      .executeTakeFirst();
    return found?.day ?? null;
  }

  /**
   * The day in progress when the owner's date is `date`: that date, or the
   * salt's day when it is later (the owner moved west, or the days were UTC's
   * before): a day never goes back, so no view lands on a day rolled up and
   * no day has two salts.
   */
  async function dayInProgress(date: string): Promise<string> {
    const found = await db
      .selectFrom("reader_salts")
      .select((eb) => eb.fn.max("day").as("day"))
      .executeTakeFirst();
    const latest = found?.day;
    return latest && latest > date && latest <= addDays(date, aheadAtMost) ? latest : date;
  }

  return {
    dayInProgress,

    /**
     * The day in progress on the owner's date `date` (dayInProgress) and its
     * salt, made by the first instance that needs it; every instance then
     * hashes with the same one. The salts of earlier days are deleted in the
     * same go: a reader of yesterday cannot be told again.
     */
    async saltOf(date: string): Promise<{ day: string; salt: string }> {
      const day = await dayInProgress(date);
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
      return { day, salt: found.salt };
    },

    /**
     * One instance's counts since its last write, in one transaction, a few
     * thousand rows per statement with the event loop let go between them:
     * the pages keep answering while a busy five seconds' views are written.
     * Each reader's last view goes to `reader_now`, with its time.
     */
    async write(batch: Batch): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const insert = (table: string, columns: Column[], rows: unknown[][], key?: string[]) =>
          inSteps(rows, (step) =>
            sql`insert into ${sql.table(table)} (${sql.join(columns.map(([name]) => sql.ref(name)))})
              ${unpacked(store.kind, columns, step)}
              ${key ? sql`on conflict (${sql.join(key.map((name) => sql.ref(name)))}) do nothing` : sql``}`.execute(
              trx,
            ),
          );
        await insert(
          "reader_visits",
          [
            ["day"],
            ["reader"],
            ["entry_path"],
            ["source"],
            ["medium"],
            ["campaign"],
            ["country"],
            ["device"],
          ],
          byKey(
            batch.visits.map((visit) => [
              visit.day,
              visit.reader,
              visit.entryPath,
              visit.source,
              visit.medium,
              visit.campaign,
              visit.country,
              visit.device,
            ]),
            0,
            1,
          ),
          ["day", "reader"],
        );
        // A view is one more in the count of its day, page and reader: no row
        // of its own, nothing that orders the day's views. Each visit's views
        // too, so the screen counts a source's views from its visits alone;
        // and each reader's last view.
        const perPage = new Map<string, [string, string, string, number]>();
        const perReader = new Map<string, [string, string, number]>();
        const lastSeen = new Map<string, string>();
        for (const view of batch.views) {
          const pageKey = `${view.day}\u0000${view.path}\u0000${view.reader}`;
          const counted = perPage.get(pageKey);
          if (counted) counted[3] += view.views;
          else perPage.set(pageKey, [view.day, view.path, view.reader, view.views]);
          const key = `${view.day} ${view.reader}`;
          const found = perReader.get(key);
          if (found) found[2] += view.views;
          else perReader.set(key, [view.day, view.reader, view.views]);
          if ((lastSeen.get(view.reader) ?? "") < view.at) lastSeen.set(view.reader, view.at);
        }
        await inSteps(byKey([...perPage.values()], 0, 1, 2), (step) =>
          sql`insert into reader_views (day, path, reader, views)
            ${unpacked(store.kind, [["day"], ["path"], ["reader"], ["views", "integer"]], step)}
            on conflict (day, path, reader)
            do update set views = reader_views.views + excluded.views`.execute(trx),
        );
        await inSteps(byKey([...perReader.values()], 0, 1), async (step) => {
          const added = sql`with added (day, reader, views) as (
              ${unpacked(store.kind, [["day"], ["reader"], ["views", "integer"]], step)}
            )`;
          // PostgreSQL updates the rows in whatever order its plan meets them:
          // they are locked first, in the key's order (one row back, not a step's).
          if (store.kind === "postgres")
            await sql`${added} select count(*) from (
                select 1 from reader_visits v join added a on v.day = a.day and v.reader = a.reader
                order by v.day collate "C", v.reader collate "C" for update of v
              ) as locked`.execute(trx);
          await sql`${added} update reader_visits set views = reader_visits.views + added.views
            from added where reader_visits.day = added.day and reader_visits.reader = added.reader`.execute(
            trx,
          );
        });
        await insert(
          "reader_reads",
          [["day"], ["reader"], ["path"]],
          byKey(
            batch.reads.map((read) => [read.day, read.reader, read.path]),
            0,
            2,
            1,
          ),
          ["day", "path", "reader"],
        );
        // A conversion is one more in its day's count by its kind and its
        // visit's entry page and source, found now, the batch's visits written
        // above: its reader's hash stops here. A visit another instance has not
        // written yet (begun less than a write's interval before) counts under
        // none, as one never counted. Each step is written in the key's order,
        // so two instances adding to the same counts wait for each other; over
        // 2,000 in one write (a backlog), two steps could meet in another order
        // and deadlock: the write fails, its counts are kept and written next time.
        const conversions = batch.conversions.map((each) => [each.day, each.reader, each.kind]);
        await inSteps(conversions, (step) =>
          sql`insert into reader_conversion_days (day, kind, entry_path, source, count)
            select c.day, c.kind, coalesce(v.entry_path, ''), coalesce(v.source, ''), count(*)
            from (${unpacked(store.kind, [["day"], ["reader"], ["kind"]], step)}) as c
            left join reader_visits v on v.day = c.day and v.reader = c.reader
            where true
            group by c.day, c.kind, coalesce(v.entry_path, ''), coalesce(v.source, '')
            order by 1, 2, 3, 4
            on conflict (day, kind, entry_path, source)
            do update set count = reader_conversion_days.count + excluded.count`.execute(trx),
        );
        // Appended, never updated: instances' writes wait for no one's rows.
        await insert("reader_now", [["reader"], ["at", "timestamptz"]], [...lastSeen]);
      });
    },

    /**
     * Readers seen before `before` are no longer "reading now": their rows
     * in `reader_now`, the one place a reader's hash has a time, go.
     */
    async forgetReading(before: string): Promise<void> {
      await db.deleteFrom("reader_now").where("at", "<", before).execute();
    },

    lastRolled,

    /**
     * Whether anything was ever counted here: a view, or a day's salt (the
     * latest is kept until the next day's is made, so one stays once any view,
     * read or conversion has been counted).
     */
    async countedAny(): Promise<boolean> {
      const salt = await db.selectFrom("reader_salts").select("day").limit(1).executeTakeFirst();
      if (salt) return true;
      const view = await db.selectFrom("reader_views").select("day").limit(1).executeTakeFirst();
      return view !== undefined;
    },

    /**
     * Rolls up each finished day not rolled up yet, up to `through`, oldest
     * first: its figures are written once, with a mark (and the owner's zone it
     * was counted in) that another instance doing the same meanwhile finds
     * taken. Returns the days rolled up.
     */
    async rollUp(through: string, at: string, zone: string): Promise<string[]> {
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
            .values({ day: current, rolled_at: at, zone })
            .onConflict((oc) => oc.column("day").doNothing())
            .returning("day")
            .execute();
          if (marked.length === 0) return false;
          const rows = await aggregate(trx, [current]);
          // 500 rows per insert: well under either database's limit on parameters.
          await inSteps(rows, (part) => trx.insertInto("reader_days").values(part).execute(), 500);
          await foldConversions(trx, current, rows);
          return true;
        });
        if (done) rolled.push(current);
        day = addDays(current, 1);
      }
      return rolled;
    },

    /** Deletes the raw rows of days before `before` that are rolled up. */
    async prune(before: string): Promise<void> {
      const last = await lastRolled();
      if (!last) return;
      const until = last < before ? addDays(last, 1) : before;
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom("reader_views").where("day", "<", until).execute();
        await trx.deleteFrom("reader_visits").where("day", "<", until).execute();
        await trx.deleteFrom("reader_reads").where("day", "<", until).execute();
      });
    },

    /**
     * The figures of the days from `from` to `to`: the rolled-up days from
     * their rows, the others (today, and a day not rolled up yet) from the raw
     * rows, so a range reads a few rows per day whatever the views; the
     * conversions, counted as they come, from their counts.
     */
    async figures(
      from: string,
      to: string,
    ): Promise<{ rows: DayRow[]; conversions: ConversionRow[]; zones: ZoneRun[] }> {
      const last = await lastRolled();
      // The rolled-up days' zones, a run of days at a time (the days never rolled up are in the
      // owner's zone of now).
      const zones: ZoneRun[] = [];
      for (const { day, zone } of await db
        .selectFrom("reader_rollups")
        .select(["day", "zone"])
        .where("day", ">=", from)
        .where("day", "<=", to)
        .orderBy("day")
        .execute()) {
        const run = zones.at(-1);
        if (run?.zone === zone) run.to = day;
        else zones.push({ from: day, to: day, zone });
      }
      const rolledTo = last && last < to ? last : to;
      const rolled =
        last && from <= rolledTo
          ? await db
              .selectFrom("reader_days")
              .selectAll()
              .where("day", ">=", from)
              .where("day", "<=", rolledTo)
              .execute()
          : [];
      const conversions = await db
        .selectFrom("reader_conversion_days")
        .select(["day", "kind", "entry_path as entryPath", "source", "count"])
        .where("day", ">=", from)
        .where("day", "<=", to)
        .execute();
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
          ...rolled.map((row) => ({
            ...row,
            dimension: row.dimension as Dimension,
            views: num(row.views),
            visitors: num(row.visitors),
            engaged: num(row.engaged),
          })),
          ...raw,
        ],
        conversions: foldedAsRolled(
          conversions.map((row) => ({ ...row, count: num(row.count) })),
          raw,
        ),
        zones,
      };
    },

    /** Readers with a view since `since`: who is reading now. */
    async readingSince(since: string): Promise<number> {
      const found = await db
        .selectFrom("reader_now")
        .select((eb) => eb.fn.count("reader").distinct().as("readers"))
        .where("at", ">=", since)
        .executeTakeFirst();
      return num(found?.readers);
    },
  };
}

export type ReadersRepository = ReturnType<typeof createReadersRepository>;
