import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { migrateToLatest, openStore, type Store } from "../server/db/store.ts";
import { createReadersReport } from "../server/readers/report.ts";
import { createReaders } from "../server/readers/service.ts";
import { createDatabase, startPostgres } from "../tests/support/postgres.ts";
import { atMost, type Verdict } from "./verdict.ts";

/*
 * The console's "Readers" screen over 1,000,000 stored views
 * (docs/decisions/044-readers-without-cookies.md): the views of the last 30
 * days, a busy site's 33,000 a day from 10,000 readers, with their visits,
 * engaged reads and conversions, written by SQL in the database itself; the
 * finished days rolled up as the server does; then each of the screen's reads
 * timed (today, 7 days, 30 days, one page's own figures, the CSV), on SQLite
 * and on PostgreSQL. `npm run bench` runs it; alone, `node bench/readers.ts`.
 */

const views = Number(process.env.BENCH_READER_VIEWS ?? 1_000_000);
const days = 30;
const readersPerDay = 10_000;
const pages = 40;
const budgetMs = 200;

/** Rows made by the database from a series of numbers: no million values cross the wire. */
async function seed(store: Store): Promise<void> {
  const { db } = store;
  const sqlite = store.kind === "sqlite";
  // Each table's rows day by day, the oldest day first, as a site writes
  // them: row i of `count` falls on day 29 - i / (count / 30) back from today,
  // is reader i % 10,000 of that day and reads page (i / 7) % 40. Constants
  // go in as literals, so SQLite keeps to whole numbers.
  const lit = (value: number) => sql.lit(value);
  const series = (count: number) =>
    sqlite
      ? sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${lit(count - 1)}) select i from n`
      : sql`select generate_series(0, ${lit(count - 1)}) as i`;
  const back = (count: number) => sql`(${lit(days - 1)} - i / ${lit(Math.ceil(count / days))})`;
  const day = (count: number) =>
    sqlite
      ? sql`date('now', '-' || ${back(count)} || ' days')`
      : sql`to_char(now() at time zone 'utc' - make_interval(days => ${back(count)}::int), 'YYYY-MM-DD')`;
  const at = (count: number) =>
    sqlite
      ? sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ${back(count)} || ' days', '-' || (i % 36000) || ' seconds')`
      : sql`now() - make_interval(days => ${back(count)}::int, secs => (i % 36000)::int)`;
  const reader = sql`'r' || (i % ${lit(readersPerDay)})`;
  const page = sql`'/science/post-' || ((i / 7) % ${lit(pages)})`;
  // Views as the server keeps them: a count per day, page and reader.
  await sql`insert into reader_views (day, path, reader, views)
    select day, path, reader, count(*) from (
      select ${day(views)} as day, ${page} as path, ${reader} as reader from (${series(views)}) as s
    ) as v group by day, path, reader`.execute(db);
  // "Reading now": today's readers of the last 30 minutes, each write's last view.
  await sql`insert into reader_now (reader, at)
    select ${reader}, ${at(views)} from (${series(views)}) as s
    where ${back(views)} = 0 and i % 36000 < 1800`.execute(db);
  const visits = days * readersPerDay;
  const sources = sql`case i % 5 when 0 then 'Google' when 1 then 'LinkedIn' when 2 then 'Newsletter' when 3 then 'Mastodon' else 'Direct' end`;
  await sql`insert into reader_visits (day, reader, entry_path, source, medium, campaign, country, device)
    select ${day(visits)}, ${reader}, ${page}, ${sources}, '', case when i % 7 = 0 then 'december' else '' end,
      case i % 3 when 0 then 'GB' when 1 then 'IN' else 'DE' end, case i % 2 when 0 then 'desktop' else 'mobile' end
    from (${series(visits)}) as s`.execute(db);
  // Each visit's views, as the server's writes keep them.
  await sql`with counted (day, reader, views) as (
      select day, reader, sum(views) from reader_views group by day, reader
    )
    update reader_visits set views = counted.views
    from counted where reader_visits.day = counted.day and reader_visits.reader = counted.reader`.execute(
    db,
  );
  await sql`insert into reader_reads (day, reader, path)
    select ${day(100_000)}, ${reader}, ${page} from (${series(100_000)}) as s`.execute(db);
  // Conversions as the server keeps them: counts by day, kind, entry page and source.
  await sql`insert into reader_conversion_days (day, kind, entry_path, source, count)
    select day, kind, entry_path, source, count(*) from (
      select ${day(3000)} as day, case i % 3 when 0 then 'enquiry' when 1 then 'subscription' else 'comment' end as kind,
        ${page} as entry_path, ${sources} as source
      from (${series(3000)}) as s
    ) as c group by day, kind, entry_path, source`.execute(db);
}

async function timed(run: () => Promise<unknown>, times = 5): Promise<number> {
  const spent: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    await run();
    spent.push(performance.now() - t0);
  }
  spent.sort((a, b) => a - b);
  return spent[spent.length - 1] ?? Number.NaN;
}

async function measure(
  store: Store,
  label: string,
  report: (name: string, values: string) => void,
): Promise<Verdict[]> {
  const t0 = performance.now();
  await seed(store);
  const seededMs = performance.now() - t0;
  const readers = createReaders({
    store,
    enabled: true,
    rawDays: 30,
    siteUrl: "http://localhost",
    ownerCookie: "",
  });
  const t1 = performance.now();
  const { rolled } = await readers.maintain();
  const rolledMs = performance.now() - t1;
  // A site's PostgreSQL has autovacuum keep its tables' statistics and
  // visibility as rows arrive; the seed writes a month's in seconds and the
  // reads would begin before autovacuum noticed, with the planner guessing.
  if (store.kind === "postgres") {
    await sql`vacuum analyze reader_views, reader_now, reader_visits, reader_reads, reader_days, reader_conversion_days`.execute(
      store.db,
    );
  }
  report(
    `readers on ${label}: ${views.toLocaleString("en")} views seeded, ${rolled.length} days rolled up`,
    `${(seededMs / 1000).toFixed(1)} s   roll-up ${(rolledMs / 1000).toFixed(1)} s`,
  );
  const screen = createReadersReport(readers);
  const reads: [string, () => Promise<unknown>][] = [
    ["today", () => screen.report({ period: "day" })],
    ["7 days", () => screen.report({ period: "week" })],
    ["30 days", () => screen.report({ period: "month" })],
    [
      "one page's own figures, 30 days",
      () => screen.item({ period: "month" }, "page", "/science/post-7"),
    ],
    ["CSV, 30 days", () => screen.csv({ period: "month" })],
  ];
  const verdicts: Verdict[] = [];
  // The machine's load beside the times: on a shared machine a wall time says
  // as much about the others as about the query.
  report(
    `  load average as the reads begin (${os.cpus().length} CPUs)`,
    os.loadavg()[0]?.toFixed(1) ?? "",
  );
  for (const [name, run] of reads) {
    const cpu = process.cpuUsage();
    const worst = await timed(run);
    const used = process.cpuUsage(cpu);
    report(
      `  Readers screen on ${label}, ${name} (worst of 5)`,
      `${worst.toFixed(0)} ms   CPU here ${((used.user + used.system) / 5000).toFixed(0)} ms each`,
    );
    verdicts.push(
      atMost(`Readers screen on ${label}, ${name}`, Math.round(worst), budgetMs, " ms"),
    );
  }
  return verdicts;
}

/** The screen's reads on SQLite and on PostgreSQL, each over its own 1,000,000 views. */
export async function benchReaderScreen({
  report,
}: {
  report: (name: string, values: string) => void;
}): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-bench-readers-"));
  try {
    const sqlite = await openStore({ kind: "sqlite", file: path.join(scratch, "engage.sqlite") });
    try {
      await migrateToLatest(sqlite);
      verdicts.push(...(await measure(sqlite, "SQLite", report)));
    } finally {
      await sqlite.close();
    }
    const server = await startPostgres();
    try {
      const postgres = await openStore({
        kind: "postgres",
        connectionString: await createDatabase(server.url, "ewe_bench"),
      });
      try {
        await migrateToLatest(postgres);
        verdicts.push(...(await measure(postgres, "PostgreSQL", report)));
      } finally {
        await postgres.close();
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return verdicts;
}

if (import.meta.filename === process.argv[1]) {
  const verdicts = await benchReaderScreen({
    report: (name, values) => console.info(`${name.padEnd(58)} ${values}`),
  });
  for (const verdict of verdicts) console.info(JSON.stringify(verdict));
}
