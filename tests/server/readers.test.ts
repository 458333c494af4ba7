import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { defaultAvailability } from "../../contract/bookings.ts";
import { readersReportSchema } from "../../contract/readers.ts";
import { migrateToLatest, openStore } from "../../server/db/store.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";
import { createReadersRepository } from "../../server/readers/repository.ts";
import { isAddressedTo, outboxFiles, outboxMails } from "../support/newsletter.ts";
import { createDatabase, dropDatabase } from "../support/postgres.ts";
import { admin, adminAt, adminEnv } from "./support/admin.ts";
import { requestSubscription, tokenFromOutboxFolder } from "./support/newsletter.ts";
import { Owner } from "./support/owner.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

const cookieSecret = "readers-tests-cookie-secret-0123456789abcdef";
const dayMs = 24 * 60 * 60 * 1000;
const chrome =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const firefox = "Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0";
const page = (title: string) => `<!doctype html><title>${title}</title><article>${title}</article>`;
const clientFiles = {
  "science/index.html": page("Science"),
  "science/pressure-cooker/index.html": page("Pressure cooker"),
  "services/index.html": page("Services"),
  "book/index.html":
    '<!doctype html><title>Book a call</title><main><ewe-fragment data-part="booking"></ewe-fragment></main>',
  "newsletter/confirm/index.html": page("Confirm your subscription"),
  "unsubscribe/index.html": page("Unsubscribe from the newsletter"),
};
const tokens = createFormTokens(cookieSecret, { purpose: "enquiry form timing", minimumMs: 0 });

/** A clock the test moves, from noon (UTC) today, so that no day ends under a test. */
function movableClock() {
  const today = new Date().toISOString().slice(0, 10);
  let offset = Date.parse(`${today}T12:00:00Z`) - Date.now();
  return { now: () => new Date(Date.now() + offset), advance: (ms: number) => (offset += ms) };
}

type Browser = { ip: string; userAgent: string; headers?: Record<string, string> };

/** What the page's beacon sends once loaded and visible. */
function view(
  t: TestApp,
  browser: Browser,
  path: string,
  { referrer = "", query = "", timeZone = "Europe/London" } = {},
) {
  const params = new URLSearchParams({ p: path, r: referrer, q: query, z: timeZone });
  return t.app.inject({
    method: "POST",
    url: `/api/readers/view?${params}`,
    remoteAddress: browser.ip,
    headers: { origin: siteUrl, "user-agent": browser.userAgent, ...browser.headers },
  });
}

/**
 * The owner's zone of these tests: UTC, whose days are the clock's. The owner's own zone's
 * days are tested in readers-zone.test.ts.
 */
const inUtc = { BOOKING_TIMEZONE: "UTC" };

/** An app of its own, its readers' counts written when the test says (flush), not on a timer. */
const startReadersApp = (backend: (typeof backends)[number], clock: { now: () => Date }) =>
  startTestApp(backend, {
    env: { COOKIE_SECRET: cookieSecret, ...inUtc },
    clientFiles,
    readers: { flushMs: 3_600_000, clock: clock.now },
  });

/** An enquiry from the browser's address and user agent, as the Services page sends it. */
function enquire(
  t: TestApp,
  browser: Browser,
  sender: { name: string; email: string; message: string },
) {
  return t.app.inject({
    method: "POST",
    url: "/api/enquiries",
    remoteAddress: browser.ip,
    headers: { origin: siteUrl, "user-agent": browser.userAgent },
    payload: { ...sender, service: "dfmea", formToken: tokens.issue(Date.now() - 60_000) },
  });
}

/** What a sender types into the enquiry form. */
const enquiryFrom = (name: string) => ({
  name,
  email: `${name.split(" ")[0]?.toLowerCase()}@example.org`,
  message:
    "We need a DFMEA workshop for a new fuel pump module in the spring, for a team of five engineers.",
});

/** Every table of the app's database. */
async function tableNames(t: TestApp, backend: (typeof backends)[number]): Promise<string[]> {
  const rows =
    backend === "sqlite"
      ? await runSql(t, "select name from sqlite_master where type = 'table'")
      : await runSql(t, "select tablename as name from pg_tables where schemaname = 'public'");
  return rows.map((row) => String(row.name));
}

/** The tables with a row that holds `text`. */
async function tablesHolding(t: TestApp, backend: (typeof backends)[number], text: string) {
  const holding = [];
  for (const table of await tableNames(t, backend))
    if (JSON.stringify(await runSql(t, `select * from ${table}`)).includes(text))
      holding.push(table);
  return holding;
}

/** `admin readers --json` in UTC, at `clock`'s now: the app's, so that both read the same day. */
async function readersCli(
  t: Pick<TestApp, "databaseUrl" | "dataDir">,
  since: string,
  clock: () => Date,
) {
  const run = await adminAt({ env: { ...adminEnv(t), ...inUtc }, clock }, [
    "readers",
    "--since",
    since,
    "--json",
  ]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return readersReportSchema.parse(JSON.parse(run.stdout));
}

/** Today's figures on the console's screen, by the app's clock. */
async function todayOnScreen(t: TestApp) {
  const owner = new Owner(t);
  await owner.signIn();
  return json(await owner.get("/api/admin/readers?period=day"), readersReportSchema);
}

describe.each(backends)("readers on %s", (backend) => {
  let t: TestApp;
  const clock = movableClock();
  const asha: Browser = { ip: "203.0.113.7", userAgent: chrome };
  const ravi: Browser = { ip: "198.51.100.23", userAgent: firefox };

  beforeAll(async () => {
    t = await startReadersApp(backend, clock);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("has its hourly pass do nothing before anything is counted: no day's salt is made until the first view", async () => {
    expect(await t.app.readers.maintain()).toEqual({ rolled: [] });
    expect(await runSql(t, "select day from reader_salts")).toEqual([]);
  });

  it("counts two readers, their pages, their sources, and the enquiry one of them sent, by its entry page and source", async () => {
    expect(
      (await view(t, asha, "/science", { referrer: "https://www.linkedin.com/feed/" })).statusCode,
    ).toBe(204);
    expect((await view(t, asha, "/science/pressure-cooker")).statusCode).toBe(204);
    await view(t, ravi, "/science/pressure-cooker", {
      query: "?utm_source=newsletter&utm_medium=email&utm_campaign=december",
      timeZone: "Asia/Calcutta",
    });
    await view(t, ravi, "/services");
    // Ravi reads the article to its end.
    await t.app.inject({
      method: "POST",
      url: "/api/readers/read?p=%2Fscience%2Fpressure-cooker",
      remoteAddress: ravi.ip,
      headers: { origin: siteUrl, "user-agent": ravi.userAgent },
    });
    const sent = await enquire(t, ravi, enquiryFrom("Ravi Menon"));
    expect(sent.statusCode).toBe(201);

    // Not counted: a bot, Global Privacy Control, Do Not Track, a prefetch, the owner's browser, a path that is no page.
    await view(
      t,
      { ip: "192.0.2.1", userAgent: "Googlebot/2.1 (+http://www.google.com/bot.html)" },
      "/science",
    );
    await view(t, { ip: "192.0.2.2", userAgent: chrome, headers: { "sec-gpc": "1" } }, "/science");
    await view(t, { ip: "192.0.2.3", userAgent: chrome, headers: { dnt: "1" } }, "/science");
    await view(
      t,
      { ip: "192.0.2.4", userAgent: chrome, headers: { "sec-purpose": "prefetch;prerender" } },
      "/science",
    );
    await view(
      t,
      { ip: "192.0.2.5", userAgent: chrome, headers: { cookie: "ewe_owner=anything" } },
      "/science",
    );
    expect(
      (await view(t, { ip: "192.0.2.6", userAgent: chrome }, "/wp-login.php")).statusCode,
    ).toBe(204);
    await t.app.readers.flush();

    // The enquiry is one more in its day's count by its visit's entry page and
    // source: no reader, no time, nothing to match the enquiry by.
    expect(await runSql(t, "select * from reader_conversion_days")).toEqual([
      {
        day: clock.now().toISOString().slice(0, 10),
        kind: "enquiry",
        entry_path: "/science/pressure-cooker",
        source: "Newsletter",
        count: 1,
      },
    ]);

    const report = await readersCli(t, "1d", clock.now);
    // Printed for a person: each figure under the end of its heading, as numbers align.
    const printed = await adminAt({ env: { ...adminEnv(t), ...inUtc }, clock: clock.now }, [
      "readers",
      "--since",
      "1d",
    ]);
    const tableAfter = (title: string) => {
      const [header = "", ...rows] =
        printed.stdout.split(`${title}\n`)[1]?.split("\n\n")[0]?.split("\n") ?? [];
      return { header, rows };
    };
    for (const [title, figure] of [
      ["Sources", "visitors"],
      ["Pages", "views"],
      ["Conversions by entry page", "subscription"],
    ] as const) {
      const { header, rows } = tableAfter(title);
      const end = header.indexOf(figure) + figure.length - 1;
      expect(rows.length, title).toBeGreaterThan(0);
      for (const row of rows) expect(row[end], `${title}: ${row}`).toMatch(/\d/);
    }
    // Named as the console names them: a country by its name, a device in words.
    const firstCells = (title: string) => tableAfter(title).rows.map((row) => row.split("  ")[0]);
    expect(firstCells("Countries").sort()).toEqual(["India", "United Kingdom"]);
    expect(firstCells("Devices").sort()).toEqual(["Desktop", "Mobile"]);
    expect(report.visitors).toBe(2);
    expect(report.views).toBe(4);
    expect(report.pages).toEqual([
      { value: "/science/pressure-cooker", views: 2, visitors: 2, engaged: 1 },
      // A list page sends no engaged read: none, not none of its readers.
      { value: "/science", views: 1, visitors: 1, engaged: null },
      { value: "/services", views: 1, visitors: 1, engaged: null },
    ]);
    expect(tableAfter("Pages").rows.map((row) => row.split(/ {2,}/))).toEqual([
      ["/science/pressure-cooker", "2", "2", "50%"],
      ["/science", "1", "1", "-"],
      ["/services", "1", "1", "-"],
    ]);
    expect(report.sources.map((s) => [s.value, s.visitors, s.views])).toEqual([
      ["LinkedIn", 1, 2],
      ["Newsletter", 1, 2],
    ]);
    expect(report.campaigns.map((c) => c.value)).toEqual(["december (Newsletter, email)"]);
    expect(report.countries.map((c) => c.value).sort()).toEqual(["GB", "IN"]);
    expect(report.devices.map((d) => [d.value, d.visitors])).toEqual([
      ["desktop", 1],
      ["mobile", 1],
    ]);
    expect(report.conversions.byEntryPage).toEqual([
      expect.objectContaining({ value: "/science/pressure-cooker", enquiry: 1, total: 1 }),
    ]);
    expect(report.conversions.bySource).toEqual([
      expect.objectContaining({ value: "Newsletter", enquiry: 1, total: 1 }),
    ]);

    // The console's screen reads the same.
    const owner = new Owner(t);
    await owner.signIn();
    // So does its CSV, a country by its name and a device in words, as on the screen.
    const csv = (await owner.get("/api/admin/readers/export?period=day")).body;
    expect(csv).toContain("\r\ncountry,visitors,views\r\nUnited Kingdom,1,2\r\nIndia,1,2\r\n");
    expect(csv).toContain("\r\ndevice,visitors,views\r\nDesktop,1,2\r\nMobile,1,2\r\n");
    const screen = json(await owner.get("/api/admin/readers?period=day"), readersReportSchema);
    // The command line reads the real time; the server, the test's clock.
    expect(screen).toEqual({ ...report, readingNow: 2 });
    const item = await owner.get(
      "/api/admin/readers/item?period=day&dimension=page&value=%2Fscience%2Fpressure-cooker",
    );
    expect(item.statusCode).toBe(200);
    expect(JSON.parse(item.body)).toMatchObject({
      days: [expect.objectContaining({ views: 2, visitors: 2, engaged: 1 })],
      conversions: expect.objectContaining({ enquiry: 1 }),
    });
    expect(
      (await owner.get("/api/admin/readers?period=range&from=2026-12-02&to=2026-12-01")).statusCode,
    ).toBe(400);
    // A misspelt field is refused, naming it, rather than answered with the week.
    for (const url of [
      "/api/admin/readers?peroid=month",
      "/api/admin/readers/export?period=day&form=2026-12-01",
      "/api/admin/readers/item?period=day&dimension=page&value=%2F&day=2026-12-01",
    ]) {
      const refused = await owner.get(url);
      expect(refused.statusCode, url).toBe(400);
      expect(refused.body, url).toContain("Unrecognized key");
    }
    // A range reaching far ahead is read to today, where the figures end.
    const today = clock.now().toISOString().slice(0, 10);
    for (const from of ["2000-01-01", "9999-12-31"]) {
      const far = `period=range&from=${from}&to=9999-12-31`;
      const wide = json(await owner.get(`/api/admin/readers?${far}`), readersReportSchema);
      expect(wide).toMatchObject({ from: from < today ? from : today, to: today });
      expect(wide.days.at(-1)).toEqual({ day: today, views: report.views, visitors: 2 });
      expect((await owner.get(`/api/admin/readers/export?${far}`)).statusCode).toBe(200);
      const item = await owner.get(`/api/admin/readers/item?${far}&dimension=page&value=%2F`);
      expect(item.statusCode).toBe(200);
    }
    expect((await t.app.inject({ url: "/api/admin/readers" })).statusCode).toBe(401);
  });

  it("refuses a malformed beacon with a 400 and counts nothing", async () => {
    const long = await t.app.inject({
      method: "POST",
      url: `/api/readers/view?p=${"a".repeat(400)}`,
      headers: { origin: siteUrl, "user-agent": chrome },
    });
    expect(long.statusCode).toBe(400);
    const missing = await t.app.inject({
      method: "POST",
      url: "/api/readers/view",
      headers: { origin: siteUrl, "user-agent": chrome },
    });
    expect(missing.statusCode).toBe(400);
    const elsewhere = await t.app.inject({
      method: "POST",
      url: "/api/readers/view?p=%2Fscience",
      headers: { origin: "https://evil.example", "user-agent": chrome },
    });
    expect(elsewhere.statusCode).toBe(403);
  });

  it("writes a CSV whose cells a spreadsheet cannot run", async () => {
    await view(t, { ip: "192.0.2.40", userAgent: chrome }, "/services", {
      query: `?utm_source=${encodeURIComponent('=HYPERLINK("http://evil.example")')}&utm_campaign=${encodeURIComponent("@SUM(A1)")}`,
    });
    await t.app.readers.flush();
    const owner = new Owner(t);
    await owner.signIn();
    const csv = await owner.get("/api/admin/readers/export?period=day");
    expect(csv.statusCode).toBe(200);
    expect(csv.headers["content-type"]).toMatch(/^text\/csv/);
    const cells = csv.body.split(/\r\n/).flatMap((line) => line.split(","));
    expect(cells.some((cell) => /^"?'=HYPERLINK/.test(cell))).toBe(true);
    expect(cells.every((cell) => !/^"?[=+\-@]/.test(cell))).toBe(true);
  });

  it("keeps no IP address, user agent or cookie in any column of any table", async () => {
    const tables = await tableNames(t, backend);
    expect(tables).toContain("reader_views");
    const dump = [];
    for (const table of tables)
      dump.push(JSON.stringify(await runSql(t, `select * from ${table}`)));
    const everything = dump.join("\n");
    for (const secret of [asha.ip, ravi.ip, "AppleWebKit", "Gecko/133.0", "X11; Linux"]) {
      expect(everything).not.toContain(secret);
    }
  });

  it("sees the same browser the next day as a new visitor, deletes the old salt, rolls the day up and keeps its figures past the raw days", async () => {
    const saltsBefore = await runSql(t, "select day from reader_salts");
    expect(saltsBefore).toHaveLength(1);
    clock.advance(dayMs);
    await view(t, asha, "/science");
    await t.app.readers.flush();
    const salts = await runSql(t, "select day from reader_salts");
    expect(salts).toHaveLength(1);
    expect(salts[0]?.day).not.toBe(saltsBefore[0]?.day);

    // The first day is over: it is rolled up once, however many times it is asked.
    clock.advance(15 * 60_000);
    const first = await t.app.readers.maintain();
    expect(first.rolled).toHaveLength(1);
    expect((await t.app.readers.maintain()).rolled).toEqual([]);
    const owner = new Owner(t);
    await owner.signIn();
    const two = json(await owner.get("/api/admin/readers?period=week"), readersReportSchema);
    // Asha yesterday and today: two visitors of two days; Ravi; the CSV test's reader.
    expect(two.visitors).toBe(4);
    expect(two.pages.find((p) => p.value === "/science")?.views).toBe(2);

    // Past ANALYTICS_RAW_DAYS the raw rows go; the day's figures stay.
    clock.advance(31 * dayMs);
    await t.app.readers.maintain();
    const rolledDay = first.rolled[0] ?? "";
    expect(await runSql(t, "select * from reader_views where day = ?", [rolledDay])).toEqual([]);
    expect(await runSql(t, "select * from reader_visits where day = ?", [rolledDay])).toEqual([]);
    const month = await readersCli(t, "40d", clock.now);
    const kept = month.days.find((d) => d.day === rolledDay);
    expect(kept).toMatchObject({ visitors: 3, views: 5 });
    expect(month.conversions.byEntryPage).toEqual([
      expect.objectContaining({ value: "/science/pressure-cooker", enquiry: 1 }),
    ]);
  });

  it("keeps no e-mail address a link's utm_ values or the referrer carry, and counts the view", async () => {
    // A mailing tool that writes each subscriber's address into the links it sends.
    await view(t, { ip: "192.0.2.50", userAgent: chrome }, "/services", {
      referrer: "https://mail.example.net/read?to=meera.iyer%40example.net",
      query: `?utm_source=${encodeURIComponent("meera.iyer@example.net")}&utm_medium=email&utm_campaign=${encodeURIComponent("welcome meera.iyer+news@example.net")}`,
    });
    await t.app.readers.flush();
    expect(await tablesHolding(t, backend, "meera")).toEqual([]);
    const owner = new Owner(t);
    await owner.signIn();
    const today = json(await owner.get("/api/admin/readers?period=day"), readersReportSchema);
    expect(today.sources.map((s) => s.value)).toEqual(["mail.example.net"]);
    expect(today.campaigns).toEqual([]);
  });

  it("counts a comment as a conversion, but not one taken for spam", async () => {
    const comment = (browser: Browser, extra: Record<string, string> = {}) =>
      t.visitor({ ip: browser.ip }).request(
        "POST",
        "/api/items/science/soap/comments",
        {
          content: "Does the water's hardness change how well it works?",
          userName: "Meera",
          formToken: t.commentToken(),
          ...extra,
        },
        { "user-agent": browser.userAgent },
      );
    const reader: Browser = { ip: "192.0.2.60", userAgent: chrome };
    const program: Browser = { ip: "192.0.2.61", userAgent: firefox };
    const comments = async () =>
      Number(
        (
          await runSql(
            t,
            "select sum(count) as n from reader_conversion_days where kind = 'comment'",
          )
        )[0]?.n ?? 0,
      );
    const before = await comments();
    for (const browser of [reader, program]) await view(t, browser, "/science");
    const published = await comment(reader);
    expect(published.statusCode, published.body).toBe(201);
    // Only a program fills the field nobody sees: its comment is kept as spam, shown to no one.
    const spam = await comment(program, { website: "https://spam.example" });
    expect(spam.statusCode).toBe(201);
    expect(
      await runSql(t, "select status from science_comments where id = ?", [
        JSON.parse(spam.body).comment.id,
      ]),
    ).toEqual([{ status: "spam" }]);
    await t.app.readers.flush();
    expect(await comments()).toBe(before + 1);
  });

  it("counts no view of a page opened from the site's mails: a subscription confirmed there is no conversion of that page or of the newsletter", async () => {
    const reader: Browser = { ip: "192.0.2.70", userAgent: chrome };
    const email = "nina@example.org";
    const seen = new Set(outboxFiles(t.dataDir));
    expect((await requestSubscription(t, email, reader.ip)).statusCode).toBe(202);
    const token = await tokenFromOutboxFolder(t, email, seen);
    // The next morning, before reading anything that day, Nina opens the link in her web mail.
    await view(t, reader, "/newsletter/confirm", { referrer: "https://mail.google.com/" });
    const confirmed = await t.app.inject({
      method: "POST",
      url: "/api/subscribers/confirm",
      remoteAddress: reader.ip,
      headers: { origin: siteUrl, "user-agent": reader.userAgent },
      payload: { token },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    await view(t, reader, "/unsubscribe", { referrer: "https://mail.google.com/" });
    await t.app.readers.flush();
    expect(
      await runSql(
        t,
        "select entry_path, source, count from reader_conversion_days where kind = 'subscription'",
      ),
    ).toEqual([{ entry_path: "", source: "", count: 1 }]);
    const report = await todayOnScreen(t);
    expect(report.pages.map((each) => each.value)).not.toContain("/newsletter/confirm");
    expect(report.pages.map((each) => each.value)).not.toContain("/unsubscribe");
    expect(report.conversions.byEntryPage).toContainEqual(
      expect.objectContaining({ value: "(not counted)", subscription: 1 }),
    );
  });

  it("names a reader from Gmail's web mail as from the newsletter only by an edition's mark, else from mail, and one from Google's search as from Google", async () => {
    const visitorsBy = async () =>
      new Map((await todayOnScreen(t)).sources.map((each) => [each.value, each.visitors]));
    const before = await visitorsBy();
    // An edition's link, as its click redirect sends the reader on (server/newsletter/clicks.ts).
    await view(t, { ip: "192.0.2.79", userAgent: chrome }, "/science/pressure-cooker", {
      referrer: "https://mail.google.com/",
      query: "?utm_source=newsletter&utm_medium=email&utm_campaign=december",
    });
    // Links of other mails, unmarked and marked `email`, from web mail.
    await view(t, { ip: "192.0.2.80", userAgent: chrome }, "/services", {
      referrer: "https://mail.google.com/",
    });
    await view(t, { ip: "192.0.2.82", userAgent: firefox }, "/science", {
      referrer: "https://outlook.live.com/",
      query: "?utm_source=email",
    });
    await view(t, { ip: "192.0.2.81", userAgent: chrome }, "/science/pressure-cooker", {
      referrer: "https://www.google.com/",
    });
    await t.app.readers.flush();
    const after = await visitorsBy();
    expect(after.get("Newsletter")).toBe((before.get("Newsletter") ?? 0) + 1);
    expect(after.get("Mail")).toBe((before.get("Mail") ?? 0) + 2);
    expect(after.get("Google")).toBe((before.get("Google") ?? 0) + 1);
  });

  it("names a reader who follows a link of the site's own mail from a mail program, which sends no referrer, as from mail, the mail's kind its campaign", async () => {
    const sender = enquiryFrom("Kavya Nair");
    const seen = new Set(outboxFiles(t.dataDir));
    expect((await enquire(t, { ip: "192.0.2.90", userAgent: chrome }, sender)).statusCode).toBe(
      201,
    );
    // The acknowledgement's "Book a call", as the mail carries it.
    let call: URL | undefined;
    await expect
      .poll(
        async () => {
          const mails = await outboxMails(
            t.dataDir,
            (mail) => isAddressedTo(mail, sender.email),
            seen,
          );
          const link = /\S+\/book\?\S+/.exec(mails[0]?.text ?? "")?.[0];
          call = link ? new URL(link) : undefined;
          return call !== undefined;
        },
        { timeout: 15_000, interval: 50 },
      )
      .toBe(true);
    // The mail's kind and nothing of its reader.
    expect(Object.fromEntries(call?.searchParams ?? [])).toEqual({
      service: "dfmea",
      utm_source: "mail",
      utm_medium: "email",
      utm_campaign: "enquiry-acknowledgement",
    });
    await view(t, { ip: "192.0.2.91", userAgent: firefox }, call?.pathname ?? "", {
      query: call?.search ?? "",
    });
    await t.app.readers.flush();
    const report = await todayOnScreen(t);
    expect(report.pages).toContainEqual(expect.objectContaining({ value: "/book", visitors: 1 }));
    expect(report.campaigns.map((each) => each.value)).toContain(
      "enquiry-acknowledgement (Mail, email)",
    );
  });

  it("writes a CSV a spreadsheet reads as UTF-8, so a campaign in another alphabet arrives whole", async () => {
    await view(t, { ip: "192.0.2.41", userAgent: chrome }, "/services", {
      query: "?utm_source=linkedin&utm_campaign=दीवाली",
    });
    await t.app.readers.flush();
    const owner = new Owner(t);
    await owner.signIn();
    const csv = await owner.get("/api/admin/readers/export?period=day");
    // Without the byte-order mark, Excel reads the file in the system's legacy code page.
    expect(csv.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(csv.body).toContain("\r\nदीवाली (LinkedIn),1,");
  });

  it("cuts a long campaign's name to 60 characters between characters, never inside an emoji", async () => {
    const name = `${"a".repeat(59)}🎉 launch`;
    await view(t, { ip: "192.0.2.42", userAgent: chrome }, "/services", {
      query: `?utm_source=linkedin&utm_campaign=${encodeURIComponent(name)}`,
    });
    await t.app.readers.flush();
    const campaigns = (await todayOnScreen(t)).campaigns.map((each) => each.value);
    expect(campaigns).toContain(`${"a".repeat(59)} (LinkedIn)`);
    expect(campaigns.join()).not.toContain("\ufffd");
  });
});

describe.each(backends)("a flood of made-up sources on %s", (backend) => {
  it("keeps a day's 200 largest sources and campaigns by name and the rest as one row, so made-up utm_ values cannot grow the figures kept for good, nor the conversions' counts", async () => {
    const clock = movableClock();
    const t = await startReadersApp(backend, clock);
    try {
      // Three readers from LinkedIn, and 230 made-up sources and campaigns, each its own address.
      for (let i = 0; i < 3; i++) {
        await view(t, { ip: `198.51.100.${i + 1}`, userAgent: chrome }, "/science", {
          referrer: "https://www.linkedin.com/feed/",
        });
      }
      for (let i = 0; i < 230; i++) {
        const tag = `made-up-${String(i).padStart(3, "0")}`;
        await view(t, { ip: `203.0.113.${i}`, userAgent: chrome }, "/science", {
          query: `?utm_source=${tag}&utm_campaign=${tag}`,
        });
      }
      await t.app.readers.flush();
      // An enquiry from a LinkedIn reader, and from ten of the made-up sources.
      for (const ip of [
        "198.51.100.1",
        ...[220, 221, 222, 223, 224, 225, 226, 227, 228, 229].map((i) => `203.0.113.${i}`),
      ]) {
        const sent = await enquire(
          t,
          { ip, userAgent: chrome },
          {
            name: "Asha Rao",
            email: `asha-${ip}@example.org`,
            message:
              "Asha asks for a DFMEA workshop on a fuel pump module, for a team of five engineers.",
          },
        );
        expect(sent.statusCode).toBe(201);
      }
      await t.app.readers.flush();
      expect(await runSql(t, "select source from reader_conversion_days")).toHaveLength(11);
      // Today, before the roll-up, the screen already reads them as it will keep them.
      const early = new Owner(t);
      await early.signIn();
      const today = json(await early.get("/api/admin/readers?period=day"), readersReportSchema);
      expect(today.conversions.bySource.map((row) => [row.value, row.enquiry])).toEqual([
        ["(others)", 10],
        ["LinkedIn", 1],
      ]);
      clock.advance(dayMs + 15 * 60_000);
      expect((await t.app.readers.maintain()).rolled).toHaveLength(1);
      const conversions = await runSql(
        t,
        "select source, count from reader_conversion_days order by source",
      );
      expect(conversions.map((row) => [row.source, Number(row.count)])).toEqual([
        ["(others)", 10],
        ["LinkedIn", 1],
      ]);

      const kept = async (dimension: string) =>
        (
          await runSql(t, "select value, visitors from reader_days where dimension = ?", [
            dimension,
          ])
        )
          .map((row) => [String(row.value), Number(row.visitors)] as const)
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      const sources = await kept("source");
      expect(sources).toHaveLength(201);
      expect(sources.slice(0, 3)).toEqual([
        ["(others)", 31],
        ["LinkedIn", 3],
        ["made-up-000", 1],
      ]);
      expect(sources.map(([value]) => value)).not.toContain("made-up-199");
      const campaigns = await kept("campaign");
      expect(campaigns).toHaveLength(201);
      expect(campaigns[0]).toEqual(["(others)", 30]);

      // The day's figures still add up.
      const owner = new Owner(t);
      await owner.signIn();
      const week = json(await owner.get("/api/admin/readers?period=week"), readersReportSchema);
      expect(week.visitors).toBe(233);
      expect(week.sources[0]).toMatchObject({ value: "(others)", visitors: 31 });
      expect(week.conversions.bySource.map((row) => [row.value, row.enquiry])).toEqual([
        ["(others)", 10],
        ["LinkedIn", 1],
      ]);
    } finally {
      await t.close();
    }
  });
});

describe.each(backends)("one attacker's beacons on %s", (backend) => {
  let t: TestApp;
  const clock = movableClock();
  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: { COOKIE_SECRET: cookieSecret },
      clientFiles: { ...clientFiles, "index.html": page("Home") },
      readers: { flushMs: 3_600_000, clock: clock.now },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const read = (browser: Browser, path: string) =>
    t.app.inject({
      method: "POST",
      url: `/api/readers/read?${new URLSearchParams({ p: path })}`,
      remoteAddress: browser.ip,
      headers: { origin: siteUrl, "user-agent": browser.userAgent },
    });

  it("counts a page under its own address whatever name it is sent by", async () => {
    const reader: Browser = { ip: "192.0.2.70", userAgent: chrome };
    // A page's other names: its folder, its file.
    for (const name of ["/science/index.html", "/science/", "/science//index.html/", "/index.html"])
      expect((await view(t, reader, name)).statusCode).toBe(204);
    // No page: another case, a way up, a query, an encoded slash left encoded.
    for (const name of [
      "/Science",
      "/services/../science",
      "/science?x=1",
      "/science%2Findex.html",
    ])
      await view(t, reader, name);
    // A section's file is no article: a read of it counts nothing.
    await read(reader, "/science/index.html");
    await t.app.readers.flush();

    const owner = new Owner(t);
    await owner.signIn();
    const today = json(await owner.get("/api/admin/readers?period=day"), readersReportSchema);
    expect(today.pages).toEqual([
      { value: "/science", views: 3, visitors: 1, engaged: null },
      { value: "/", views: 1, visitors: 1, engaged: null },
    ]);
    expect(today.views).toBe(4);
  });

  it("counts no engaged read without a view of its page by its reader that day, today or rolled up", async () => {
    const reader: Browser = { ip: "192.0.2.72", userAgent: firefox };
    await view(t, reader, "/science/pressure-cooker");
    await read(reader, "/science/pressure-cooker");
    // Reads from made-up browsers that never viewed the article, or viewed another page.
    for (let i = 0; i < 5; i++) {
      const browser = { ip: "192.0.2.73", userAgent: `${chrome} ${i}` };
      if (i === 0) await view(t, browser, "/services");
      expect((await read(browser, "/science/pressure-cooker")).statusCode).toBe(204);
    }
    await t.app.readers.flush();

    const owner = new Owner(t);
    await owner.signIn();
    const article = async (period: string) =>
      json(await owner.get(`/api/admin/readers?period=${period}`), readersReportSchema).pages.find(
        (page) => page.value === "/science/pressure-cooker",
      );
    expect(await article("day")).toEqual({
      value: "/science/pressure-cooker",
      views: 1,
      visitors: 1,
      engaged: 1,
    });
    // The day rolled up keeps the same figures.
    const before = await article("day");
    clock.advance(dayMs + 15 * 60_000);
    expect((await t.app.readers.maintain()).rolled).toHaveLength(1);
    expect(await article("week")).toEqual(before);
  });
  it("keeps no e-mail address a link carries under escapes applied more than once", async () => {
    // The link's address as the browser has it, wrapped by one tracker after another.
    await view(t, { ip: "192.0.2.74", userAgent: chrome }, "/services", {
      query:
        "?utm_source=meera.iyer%252540example.net&utm_campaign=hello%2520meera.iyer%25252Bnews%252540example.net",
    });
    await t.app.readers.flush();
    expect(await tablesHolding(t, backend, "meera")).toEqual([]);
  });
  it("takes no utm_source that reads as the screen's (not counted), so no enquiry hides among those of no counted visit", async () => {
    const reader: Browser = { ip: "192.0.2.75", userAgent: firefox };
    await view(t, reader, "/services", {
      referrer: "https://www.linkedin.com/feed/",
      query: `?utm_source=${encodeURIComponent("(Not counted)")}`,
    });
    const sent = await enquire(t, reader, enquiryFrom("Ravi Menon"));
    expect(sent.statusCode).toBe(201);
    await t.app.readers.flush();
    const owner = new Owner(t);
    await owner.signIn();
    const today = json(await owner.get("/api/admin/readers?period=day"), readersReportSchema);
    expect(today.sources.map((source) => source.value)).not.toContain("(Not counted)");
    expect(today.conversions.bySource).toEqual([
      expect.objectContaining({ value: "LinkedIn", enquiry: 1 }),
    ]);
  });
});

describe("a period longer than the days listed one by one", () => {
  let t: TestApp;
  const clock = movableClock();
  beforeAll(async () => {
    t = await startReadersApp("sqlite", clock);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("lists its last 400 days, today's figures among them, on the screen, in the CSV and on the command line", async () => {
    await view(t, { ip: "192.0.2.90", userAgent: chrome }, "/services");
    await t.app.readers.flush();
    const today = clock.now().toISOString().slice(0, 10);
    const from = new Date(clock.now().getTime() - 500 * dayMs).toISOString().slice(0, 10);
    const owner = new Owner(t);
    await owner.signIn();
    const range = `period=range&from=${from}&to=${today}`;
    const screen = json(await owner.get(`/api/admin/readers?${range}`), readersReportSchema);
    expect(screen.views).toBe(1);
    expect(screen.days).toHaveLength(400);
    expect(screen.days.at(-1)).toEqual({ day: today, views: 1, visitors: 1 });
    const item = JSON.parse(
      (await owner.get(`/api/admin/readers/item?${range}&dimension=page&value=%2Fservices`)).body,
    );
    expect(item.days.at(-1)).toEqual({ day: today, views: 1, visitors: 1, engaged: null });
    const exported = await owner.get(`/api/admin/readers/export?${range}`);
    expect(exported.body).toContain(`\r\n${today},1,1\r\n`);
    // Its file named by its days: one period's export does not take another's name.
    expect(exported.headers["content-disposition"]).toBe(
      `attachment; filename="readers-${from}-to-${today}.csv"`,
    );
    const cli = await readersCli(t, from, clock.now);
    expect(cli.days.at(-1)).toEqual({ day: today, views: 1, visitors: 1 });
  });
});

describe("enquiries either side of midnight (UTC)", () => {
  let t: TestApp;
  // From yesterday's noon: the midnight it crosses is the one today began with.
  const clock = movableClock();
  clock.advance(-dayMs);
  beforeAll(async () => {
    t = await startReadersApp("sqlite", clock);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("count by the visit of their own day, one without a counted visit that day as (not counted), alike on the screen, in the CSV and on the command line", async () => {
    const asha: Browser = { ip: "192.0.2.100", userAgent: chrome };
    const ravi: Browser = { ip: "192.0.2.101", userAgent: firefox };
    const meera: Browser = { ip: "192.0.2.102", userAgent: chrome };
    // Asha reads just before midnight and enquires just after it.
    const yesterday = clock.now().toISOString().slice(0, 10);
    clock.advance(Date.parse(`${yesterday}T23:59:50Z`) - clock.now().getTime());
    await view(t, asha, "/science");
    await t.app.readers.flush();
    clock.advance(20_000);
    expect((await enquire(t, asha, enquiryFrom("Asha"))).statusCode).toBe(201);
    // Ravi's browser runs no JavaScript: no view is sent, his enquiry is.
    expect((await enquire(t, ravi, enquiryFrom("Ravi"))).statusCode).toBe(201);
    // Meera comes from LinkedIn after midnight.
    await view(t, meera, "/services", { query: "?utm_source=linkedin" });
    expect((await enquire(t, meera, enquiryFrom("Meera"))).statusCode).toBe(201);
    await t.app.readers.flush();

    const owner = new Owner(t);
    await owner.signIn();
    const week = json(await owner.get("/api/admin/readers?period=week"), readersReportSchema);
    const counts = (rows: { value: string; enquiry: number; total: number }[]) =>
      rows.map((row) => [row.value, row.enquiry, row.total]);
    expect(counts(week.conversions.byEntryPage)).toEqual([
      ["(not counted)", 2, 2],
      ["/services", 1, 1],
    ]);
    expect(counts(week.conversions.bySource)).toEqual([
      ["(not counted)", 2, 2],
      ["LinkedIn", 1, 1],
    ]);
    // Asha's visit stays on the day before, without the enquiry.
    expect(week.days.slice(-2).map((day) => day.visitors)).toEqual([1, 1]);
    const cli = await readersCli(t, "7d", clock.now);
    expect(cli.conversions).toEqual(week.conversions);
    expect(cli.days).toEqual(week.days);
    const csv = (await owner.get("/api/admin/readers/export?period=week")).body;
    expect(csv).toContain(
      "\r\nentry page,subscription,enquiry,booking,comment,question,total\r\n(not counted),0,2,0,0,0,2\r\n/services,0,1,0,0,0,1\r\n",
    );
    expect(csv).toContain(
      "\r\nsource of the visit,subscription,enquiry,booking,comment,question,total\r\n(not counted),0,2,0,0,0,2\r\nLinkedIn,0,1,0,0,0,1\r\n",
    );
  });
});

/** A clock the test sets to the instant it names. */
function settableClock(iso: string) {
  let at = Date.parse(iso);
  return { now: () => new Date(at), set: (next: string) => (at = Date.parse(next)) };
}

/** An app whose owner lives in `zone`, its readers' clock the test's. */
const startZonedApp = (
  backend: (typeof backends)[number],
  zone: string,
  clock: { now: () => Date },
) =>
  startTestApp(backend, {
    env: { COOKIE_SECRET: cookieSecret, BOOKING_TIMEZONE: zone },
    clientFiles,
    readers: { flushMs: 3_600_000, clock: clock.now },
  });

/** The owner sets another zone for the Bookings hours, and so for readers' days. */
const ownerMoves = (owner: Owner, timeZone: string) =>
  owner.request("PUT", "/api/admin/bookings/availability", { ...defaultAvailability, timeZone });

/** One reader's views at each instant (UTC), written. */
async function viewsAt(t: TestApp, clock: ReturnType<typeof settableClock>, instants: string[]) {
  const reader: Browser = { ip: "192.0.2.160", userAgent: chrome };
  for (const at of instants) {
    clock.set(at);
    expect((await view(t, reader, "/science")).statusCode).toBe(204);
  }
  await t.app.readers.flush();
}

/** The days' visitors and views, as the screen, the CSV and the command line give them. */
const dayRows = (days: { day: string; views: number; visitors: number }[]) =>
  days.filter((day) => day.views > 0).map((day) => [day.day, day.visitors, day.views]);

/*
 * Days in the owner's zone (docs/decisions/063-readers-days-in-the-owners-zone.md): views
 * either side of midnight UTC and of the owner's midnight, one reader throughout. The
 * command line reads the real time: the days are in the past, and `--since` names them.
 */
const zoneCases = [
  {
    zone: "Asia/Kolkata",
    zoneShown: "Asia / Kolkata",
    // 23:30 and 00:30 in Kolkata, then 23:30 and 00:30 UTC (05:00 and 06:00 in Kolkata).
    views: [
      "2026-12-01T18:00:00Z",
      "2026-12-01T19:00:00Z",
      "2026-12-01T23:30:00Z",
      "2026-12-02T00:30:00Z",
    ],
    days: [
      ["2026-12-01", 1, 1],
      ["2026-12-02", 1, 3],
    ],
    // Ten minutes and more after the owner's midnight that ends 2 December.
    rolledAt: "2026-12-02T18:45:00Z",
  },
  {
    zone: "America/New_York",
    zoneShown: "America / New York",
    // 23:30 and 00:30 UTC (18:30 and 19:30 in New York), then 23:30 and 00:30 in New York.
    views: [
      "2026-12-01T23:30:00Z",
      "2026-12-02T00:30:00Z",
      "2026-12-02T04:30:00Z",
      "2026-12-02T05:30:00Z",
    ],
    days: [
      ["2026-12-01", 1, 3],
      ["2026-12-02", 1, 1],
    ],
    rolledAt: "2026-12-03T05:15:00Z",
  },
];

describe.each(backends)("days in the owner's zone on %s", (backend) => {
  it.each(zoneCases)(
    "begin at midnight in $zone: the screen, the CSV, the command line and the roll-up agree, and a reader is one for the whole day",
    async ({ zone, zoneShown, views, days, rolledAt }) => {
      const clock = settableClock(views[0] as string);
      const t = await startZonedApp(backend, zone, clock);
      try {
        await viewsAt(t, clock, views);
        const owner = new Owner(t);
        await owner.signIn();
        const screen = (query: string) =>
          owner.get(`/api/admin/readers?${query}`).then((r) => json(r, readersReportSchema));
        const range = "period=range&from=2026-12-01&to=2026-12-02";

        // "Today" is the owner's day of the last view, from the owner's midnight.
        const today = await screen("period=day");
        const [, lastVisitors, lastViews] = days.at(-1) ?? [];
        expect(today).toMatchObject({
          from: "2026-12-02",
          to: "2026-12-02",
          today: "2026-12-02",
          zone,
          otherZones: [],
          visitors: lastVisitors,
          views: lastViews,
        });
        expect(dayRows((await screen(range)).days)).toEqual(days);
        const csv = (await owner.get(`/api/admin/readers/export?${range}`)).body;
        expect(csv).toContain(`\r\ndays from midnight in,${zone}\r\n`);
        for (const [day, visitors, viewsOfDay] of days)
          expect(csv).toContain(`\r\n${day},${visitors},${viewsOfDay}\r\n`);
        const env = { ...adminEnv(t), BOOKING_TIMEZONE: zone };
        const cli = await admin(env, "readers", "--since", "2026-12-01", "--json");
        expect(cli.code, cli.stderr).toBe(0);
        expect(dayRows(readersReportSchema.parse(JSON.parse(cli.stdout)).days)).toEqual(days);
        const printed = await admin(env, "readers", "--since", "2026-12-01");
        expect(printed.stdout).toContain(`(days from midnight in ${zoneShown})`);

        // Each day is rolled up once the owner's midnight that ends it is ten minutes past,
        // with its zone, and reads the same.
        clock.set(rolledAt);
        expect((await t.app.readers.maintain()).rolled).toEqual(["2026-12-01", "2026-12-02"]);
        expect(await runSql(t, "select day, zone from reader_rollups order by day")).toEqual([
          { day: "2026-12-01", zone },
          { day: "2026-12-02", zone },
        ]);
        expect(dayRows((await screen(range)).days)).toEqual(days);
        // The salt is the owner's day's, and the day before's is gone.
        expect(await runSql(t, "select day from reader_salts")).toEqual([{ day: "2026-12-03" }]);
      } finally {
        await t.close();
      }
    },
  );

  it("count a day the clocks go back as its 25 hours, one reader throughout", async () => {
    // New York, 1 November 2026: EDT until 06:00 UTC, EST after; the day is 04:00 UTC to
    // 05:00 UTC the next day.
    const clock = settableClock("2026-11-01T03:30:00Z");
    const t = await startZonedApp(backend, "America/New_York", clock);
    try {
      await viewsAt(t, clock, [
        "2026-11-01T03:30:00Z", // 23:30 EDT, 31 October
        "2026-11-01T04:30:00Z", // 00:30 EDT, 1 November
        "2026-11-02T04:30:00Z", // 23:30 EST, 1 November, 24 hours later
        "2026-11-02T05:30:00Z", // 00:30 EST, 2 November
      ]);
      const owner = new Owner(t);
      await owner.signIn();
      const report = json(
        await owner.get("/api/admin/readers?period=range&from=2026-10-31&to=2026-11-02"),
        readersReportSchema,
      );
      expect(dayRows(report.days)).toEqual([
        ["2026-10-31", 1, 1],
        ["2026-11-01", 1, 2],
        ["2026-11-02", 1, 1],
      ]);
    } finally {
      await t.close();
    }
  });

  it("never go back when the owner moves west: the day in progress runs on to the new zone's midnight, and is rolled up in it", async () => {
    const clock = settableClock("2026-12-01T20:00:00Z");
    const t = await startZonedApp(backend, "Asia/Kolkata", clock);
    try {
      const owner = new Owner(t);
      await owner.signIn();
      // 01:30 on 2 December in Kolkata.
      await viewsAt(t, clock, ["2026-12-01T20:00:00Z"]);
      expect((await ownerMoves(owner, "America/New_York")).statusCode).toBe(200);
      // 15:30 on 1 December in New York: still 2 December's views, one reader, until New
      // York's own midnight ends 2 December.
      await viewsAt(t, clock, [
        "2026-12-01T20:30:00Z",
        "2026-12-02T05:30:00Z",
        "2026-12-03T05:30:00Z",
      ]);
      clock.set("2026-12-02T20:30:00Z");
      const report = json(
        await owner.get("/api/admin/readers?period=range&from=2026-11-30&to=2026-12-03"),
        readersReportSchema,
      );
      expect(report.zone).toBe("America/New_York");
      expect(dayRows(report.days)).toEqual([
        ["2026-12-02", 1, 3],
        ["2026-12-03", 1, 1],
      ]);
      clock.set("2026-12-03T05:45:00Z");
      expect((await t.app.readers.maintain()).rolled).toEqual(["2026-12-02"]);
      expect(await runSql(t, "select zone from reader_rollups")).toEqual([
        { zone: "America/New_York" },
      ]);
    } finally {
      await t.close();
    }
  });
});

describe("days rolled up in UTC, before days were the owner's", () => {
  it("keep their figures, and the screen, the CSV and the command line say they were counted in UTC", async () => {
    const clock = settableClock("2026-12-01T12:00:00Z");
    const t = await startZonedApp("sqlite", "UTC", clock);
    try {
      await viewsAt(t, clock, ["2026-12-01T12:00:00Z"]);
      clock.set("2026-12-02T00:15:00Z");
      expect((await t.app.readers.maintain()).rolled).toEqual(["2026-12-01"]);
      const owner = new Owner(t);
      await owner.signIn();
      expect((await ownerMoves(owner, "Asia/Kolkata")).statusCode).toBe(200);
      const range = "period=range&from=2026-12-01&to=2026-12-02";
      const report = json(await owner.get(`/api/admin/readers?${range}`), readersReportSchema);
      expect(report).toMatchObject({
        zone: "Asia/Kolkata",
        otherZones: [{ from: "2026-12-01", to: "2026-12-01", zone: "UTC" }],
      });
      expect(dayRows(report.days)).toEqual([["2026-12-01", 1, 1]]);
      const csv = (await owner.get(`/api/admin/readers/export?${range}`)).body;
      expect(csv).toContain(
        "\r\ndays from midnight in,Asia/Kolkata\r\ncounted in,UTC,from,2026-12-01,to,2026-12-01\r\n",
      );
      const printed = await admin(adminEnv(t), "readers", "--since", "2026-12-01");
      expect(printed.stdout).toContain(
        "(days from midnight in Asia / Kolkata, but 2026-12-01 in UTC)",
      );
    } finally {
      await t.close();
    }
  });
});

describe("a page taken off the site", () => {
  const clock = movableClock();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-readers-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("keeps its figures under its old address, and counts no view of it once the site is built without it", async () => {
    const reader: Browser = { ip: "192.0.2.110", userAgent: chrome };
    const before = await startTestApp("sqlite", {
      dataDir,
      clientFiles,
      readers: { flushMs: 3_600_000, clock: clock.now },
    });
    await view(before, reader, "/science/pressure-cooker");
    await before.close();
    // The item is removed from content/ and the site built again.
    const { "science/pressure-cooker/index.html": _removed, ...rest } = clientFiles;
    const after = await startTestApp("sqlite", {
      dataDir,
      clientFiles: rest,
      readers: { flushMs: 3_600_000, clock: clock.now },
    });
    try {
      await view(after, reader, "/science/pressure-cooker");
      await view(after, reader, "/science");
      await after.app.readers.flush();
      const owner = new Owner(after);
      await owner.signIn();
      const today = json(await owner.get("/api/admin/readers?period=day"), readersReportSchema);
      expect(today.pages).toEqual([
        { value: "/science", views: 1, visitors: 1, engaged: null },
        { value: "/science/pressure-cooker", views: 1, visitors: 1, engaged: 0 },
      ]);
    } finally {
      await after.close();
    }
  });
});

describe.each(backends)("readers' writes on %s", (backend) => {
  // Today's noon: every view, the stop's write and the command line on one day, whatever the hour.
  const clock = movableClock();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-readers-"));
  let owner: TestApp | undefined;
  afterAll(async () => {
    await owner?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("writes every view of thousands of readers, a few thousand rows at a time, and a clean stop writes what it had not yet", async () => {
    // On PostgreSQL this instance owns the database, which outlives the writer.
    owner =
      backend === "postgres"
        ? await startTestApp("postgres", { clientFiles, readers: { clock: clock.now } })
        : undefined;
    const writer = await startTestApp(backend, {
      dataDir,
      ...(owner ? { databaseUrl: owner.databaseUrl } : {}),
      clientFiles,
      readers: { flushMs: 3_600_000, clock: clock.now },
    });
    const readers = Array.from({ length: 2100 }, (_, i) => ({
      ip: `10.${Math.floor(i / 250)}.${i % 250}.1`,
      userAgent: chrome,
    }));
    const viewAll = async (address: string) => {
      for (let start = 0; start < readers.length; start += 100) {
        const answers = await Promise.all(
          readers.slice(start, start + 100).map((reader) => view(writer, reader, address)),
        );
        expect(answers.every((answer) => answer.statusCode === 204)).toBe(true);
      }
    };
    await viewAll("/science");
    // More visits, views and readers' views than one step takes.
    await writer.app.readers.flush();
    await viewAll("/science/pressure-cooker");
    // Not flushed: the stop writes them.
    await writer.close();

    const report = await readersCli({ dataDir, databaseUrl: owner?.databaseUrl }, "1d", clock.now);
    expect(report.visitors).toBe(2100);
    expect(report.views).toBe(4200);
    expect(report.pages.map((p) => [p.value, p.views, p.visitors])).toEqual([
      ["/science", 2100, 2100],
      ["/science/pressure-cooker", 2100, 2100],
    ]);
    // Each visit holds both its views, the second added after its visit was written.
    expect(report.sources).toEqual([
      expect.objectContaining({ value: "Direct", visitors: 2100, views: 4200 }),
    ]);
  });
});

describe.each(backends)("a write the database refuses on %s", (backend) => {
  it("keeps its counts and adds them to the next write's: each view counted once, none lost", async () => {
    const clock = movableClock();
    const t = await startReadersApp(backend, clock);
    try {
      const asha: Browser = { ip: "203.0.113.70", userAgent: chrome };
      const ravi: Browser = { ip: "198.51.100.71", userAgent: firefox };
      for (const [browser, path] of [
        [asha, "/science"],
        [asha, "/science"],
        [asha, "/services"],
        [ravi, "/science"],
      ] as const)
        expect((await view(t, browser, path)).statusCode).toBe(204);
      // The views' table away: the write's transaction fails, its visits with it.
      await runSql(t, "alter table reader_views rename to reader_views_away");
      await expect(t.app.readers.flush()).rejects.toThrow();
      clock.advance(60_000);
      // Counted meanwhile: a page already held for its reader, and a new one.
      await view(t, asha, "/science");
      await view(t, ravi, "/services");
      await runSql(t, "alter table reader_views_away rename to reader_views");
      await t.app.readers.flush();
      await t.app.readers.flush();

      const screen = await todayOnScreen(t);
      expect([screen.visitors, screen.views]).toEqual([2, 6]);
      expect(screen.pages.map((p) => [p.value, p.views, p.visitors])).toEqual([
        ["/science", 4, 2],
        ["/services", 2, 2],
      ]);
      expect(screen.sources).toEqual([
        expect.objectContaining({ value: "Direct", visitors: 2, views: 6 }),
      ]);
      // Each reader's last view is reading now.
      expect(screen.readingNow).toBe(2);
    } finally {
      await t.close();
    }
  });
});

describe.each(backends)("conversions kept before on %s", (backend) => {
  it("keep their day and lose their time, then become counts by their visit's entry page and source", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { db } = scratch.store;
      await scratch.migrateTo("029_edition_schedules");
      await sql`insert into reader_conversions (day, at, reader, kind)
        values ('2026-12-01', '2026-12-01T09:41:07.123Z', 'a-reader', 'enquiry')`.execute(db);
      await scratch.migrateTo("030_conversion_days");
      await sql`insert into reader_visits (day, reader, started_at, entry_path, source, medium, campaign, country, device)
        values ('2026-12-02', 'b-reader', '2026-12-02T08:00:00Z', '/science', 'LinkedIn', '', '', 'GB', 'desktop'),
          ('2026-12-02', 'c-reader', '2026-12-02T09:00:00Z', '/science', 'LinkedIn', '', '', 'IN', 'mobile')`.execute(
        db,
      );
      await sql`insert into reader_conversions (day, reader, kind)
        values ('2026-12-02', 'b-reader', 'enquiry'), ('2026-12-02', 'c-reader', 'enquiry'),
          ('2026-12-02', 'c-reader', 'comment'), ('2026-11-30', 'd-reader', 'comment')`.execute(db);
      // A day rolled up already holds its counts; its raw rows are not counted twice.
      await sql`insert into reader_rollups (day, rolled_at) values ('2026-11-30', '2026-12-01T00:10:00Z')`.execute(
        db,
      );
      await sql`insert into reader_conversion_days (day, kind, entry_path, source, count)
        values ('2026-11-30', 'comment', '/services', 'Google', 1)`.execute(db);
      await migrateToLatest(scratch.store);
      const counts = await db
        .selectFrom("reader_conversion_days")
        .selectAll()
        .orderBy("day")
        .orderBy("kind")
        .execute();
      expect(counts.map((row) => ({ ...row, count: Number(row.count) }))).toEqual([
        { day: "2026-11-30", kind: "comment", entry_path: "/services", source: "Google", count: 1 },
        { day: "2026-12-01", kind: "enquiry", entry_path: "", source: "", count: 1 },
        {
          day: "2026-12-02",
          kind: "comment",
          entry_path: "/science",
          source: "LinkedIn",
          count: 1,
        },
        {
          day: "2026-12-02",
          kind: "enquiry",
          entry_path: "/science",
          source: "LinkedIn",
          count: 2,
        },
      ]);
      await expect(sql`select * from reader_conversions`.execute(db)).rejects.toThrow();
    } finally {
      await scratch.drop();
    }
  });
});

describe.each(backends)("views kept before on %s", (backend) => {
  it("become counts by day, page and reader, with no id or place that orders them", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { db } = scratch.store;
      await scratch.migrateTo("032_reading_now");
      await sql`insert into reader_views (day, reader, path)
        values ('2026-12-01', 'b-reader', '/science'), ('2026-12-01', 'a-reader', '/science'),
          ('2026-12-01', 'a-reader', '/services'), ('2026-12-01', 'a-reader', '/science'),
          ('2026-12-02', 'a-reader', '/science')`.execute(db);
      await migrateToLatest(scratch.store);
      const counts = await sql<Record<string, unknown>>`select * from reader_views`.execute(db);
      expect(counts.rows).toEqual([
        { day: "2026-12-01", path: "/science", reader: "a-reader", views: 2 },
        { day: "2026-12-01", path: "/science", reader: "b-reader", views: 1 },
        { day: "2026-12-01", path: "/services", reader: "a-reader", views: 1 },
        { day: "2026-12-02", path: "/science", reader: "a-reader", views: 1 },
      ]);
      if (backend === "sqlite")
        await expect(sql`select rowid from reader_views`.execute(db)).rejects.toThrow();
    } finally {
      await scratch.drop();
    }
  });
});

describe.each(backends)("visits and engaged reads on %s", (backend) => {
  it("kept before and written after lie in their key's order, with no rowid and no trace of the visits' start times", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { db } = scratch.store;
      // Before migration 032 dropped the visits' start times.
      await scratch.migrateTo("031_conversion_counts");
      const started = "2026-12-01T09:41:07.123Z";
      await sql`insert into reader_visits (day, reader, started_at, entry_path, source, medium, campaign, country, device, views)
        values ('2026-12-01', 'c-reader', ${started}, '/services', 'LinkedIn', '', '', 'IN', 'mobile', 1),
          ('2026-12-01', 'a-reader', ${started}, '/science', 'Direct', '', '', 'GB', 'desktop', 3)`.execute(
        db,
      );
      await sql`insert into reader_reads (day, reader, path)
        values ('2026-12-01', 'a-reader', '/science/soap'), ('2026-12-01', 'c-reader', '/science')`.execute(
        db,
      );
      await migrateToLatest(scratch.store);
      // The next day's, as an instance writes them: met in another order than the key's.
      const visit = (reader: string, entryPath: string) => ({
        day: "2026-12-02",
        reader,
        entryPath,
        source: "Direct",
        medium: "",
        campaign: "",
        country: "GB",
        device: "desktop",
      });
      await createReadersRepository(scratch.store).write({
        visits: [visit("z-reader", "/science"), visit("b-reader", "/services")],
        views: [],
        reads: [
          { day: "2026-12-02", reader: "z-reader", path: "/science" },
          { day: "2026-12-02", reader: "b-reader", path: "/science" },
        ],
        conversions: [],
      });

      // Read as stored, with no `order by`.
      const visits = await sql<Record<string, unknown>>`select * from reader_visits`.execute(db);
      const stored = (
        day: string,
        reader: string,
        entry: string,
        source: string,
        views: number,
      ) => ({
        day,
        reader,
        entry_path: entry,
        source,
        medium: "",
        campaign: "",
        country: source === "LinkedIn" ? "IN" : "GB",
        device: source === "LinkedIn" ? "mobile" : "desktop",
        views,
      });
      expect(visits.rows).toEqual([
        stored("2026-12-01", "a-reader", "/science", "Direct", 3),
        stored("2026-12-01", "c-reader", "/services", "LinkedIn", 1),
        stored("2026-12-02", "b-reader", "/services", "Direct", 0),
        stored("2026-12-02", "z-reader", "/science", "Direct", 0),
      ]);
      const reads = await sql<Record<string, unknown>>`select * from reader_reads`.execute(db);
      expect(reads.rows).toEqual([
        { day: "2026-12-01", reader: "c-reader", path: "/science" },
        { day: "2026-12-01", reader: "a-reader", path: "/science/soap" },
        { day: "2026-12-02", reader: "b-reader", path: "/science" },
        { day: "2026-12-02", reader: "z-reader", path: "/science" },
      ]);
      if (backend === "sqlite") {
        // SQLite's rowid would number them as first written.
        await expect(sql`select rowid from reader_visits`.execute(db)).rejects.toThrow();
        await expect(sql`select rowid from reader_reads`.execute(db)).rejects.toThrow();
      } else {
        // PostgreSQL's `drop column` left the start times' bytes in every row
        // on disk: none is there now. The rows as the pages hold them, each
        // found by its reader's hash.
        await sql`create extension if not exists pageinspect`.execute(db);
        const tuples = await sql<{ data: Buffer }>`select t_data as data
          from generate_series(0, pg_relation_size('reader_visits') / 8192 - 1) as page,
            heap_page_items(get_raw_page('reader_visits', page::int))
          where t_data is not null`.execute(db);
        expect(tuples.rows).toHaveLength(4);
        expect(tuples.rows.every((row) => row.data.includes("-reader"))).toBe(true);
        // A timestamptz on disk: microseconds since 2000, as the machine writes an int64.
        const time = Buffer.alloc(8);
        time.writeBigInt64LE(
          BigInt((Date.parse(started) - Date.parse("2000-01-01T00:00:00Z")) * 1000),
        );
        expect(tuples.rows.filter((row) => row.data.includes(time))).toEqual([]);
      }
    } finally {
      await scratch.drop();
    }
  });
});

describe.each(backends)("two enquiries of one day on %s", (backend) => {
  let t: TestApp;
  const clock = movableClock();
  beforeAll(async () => {
    t = await startReadersApp(backend, clock);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("are counted by their visits' entry pages and sources, and no table ties either to its reader or says which came first", async () => {
    const asha: Browser = { ip: "203.0.113.50", userAgent: chrome };
    const ravi: Browser = { ip: "198.51.100.51", userAgent: firefox };
    await view(t, asha, "/science", { referrer: "https://www.linkedin.com/feed/" });
    await view(t, ravi, "/services", { query: "?utm_source=newsletter" });
    await t.app.readers.flush();
    await view(t, asha, "/science");
    await t.app.readers.flush();
    for (const [browser, name] of [
      [asha, "Asha Rao"],
      [ravi, "Ravi Menon"],
    ] as const) {
      const sent = await enquire(t, browser, {
        name,
        email: `${name.split(" ")[0]?.toLowerCase()}@example.org`,
        message: `${name} asks for a DFMEA workshop on a fuel pump module, for a team of five engineers.`,
      });
      expect(sent.statusCode).toBe(201);
      // Each its own write, as minutes apart.
      await t.app.readers.flush();
    }

    const counts = await runSql(t, "select * from reader_conversion_days order by entry_path");
    const day = clock.now().toISOString().slice(0, 10);
    expect(counts).toEqual([
      { day, kind: "enquiry", entry_path: "/science", source: "LinkedIn", count: 1 },
      { day, kind: "enquiry", entry_path: "/services", source: "Newsletter", count: 1 },
    ]);
    // Nor a row's place: SQLite's rowid would number them as first written.
    if (backend === "sqlite")
      await expect(runSql(t, "select rowid from reader_conversion_days")).rejects.toThrow();
    // A view is one more in its reader's count of the page that day, whichever write it came in.
    const views = await runSql(t, "select day, path, views from reader_views order by path");
    expect(views).toEqual([
      { day, path: "/science", views: 2 },
      { day, path: "/services", views: 1 },
    ]);
    expect(Object.keys((await runSql(t, "select * from reader_views"))[0] ?? {}).sort()).toEqual([
      "day",
      "path",
      "reader",
      "views",
    ]);
    if (backend === "sqlite")
      await expect(runSql(t, "select rowid from reader_views")).rejects.toThrow();

    // The readers' hashes are in their visits, views and reads, and nowhere else
    // but "reading now" (its own test below).
    const hashes = (await runSql(t, "select reader from reader_visits")).map((row) =>
      String(row.reader),
    );
    expect(hashes).toHaveLength(2);
    const tables = await tableNames(t, backend);
    expect(tables).toContain("enquiries");
    for (const table of tables.filter(
      (name) => !["reader_visits", "reader_views", "reader_reads", "reader_now"].includes(name),
    )) {
      const rows = JSON.stringify(await runSql(t, `select * from ${table}`));
      for (const hash of hashes) expect(rows, table).not.toContain(hash);
    }

    const owner = new Owner(t);
    await owner.signIn();
    const screen = json(await owner.get("/api/admin/readers?period=day"), readersReportSchema);
    expect(screen.conversions.bySource).toEqual([
      expect.objectContaining({ value: "LinkedIn", enquiry: 1, total: 1 }),
      expect.objectContaining({ value: "Newsletter", enquiry: 1, total: 1 }),
    ]);
  });
});

describe.each(backends)("a view's time on %s", (backend) => {
  it("is kept with a reader's hash only for the 30 minutes of reading now, then deleted", async () => {
    const clock = movableClock();
    const t = await startReadersApp(backend, clock);
    try {
      const asha: Browser = { ip: "203.0.113.60", userAgent: chrome };
      const ravi: Browser = { ip: "198.51.100.61", userAgent: firefox };
      await view(t, asha, "/science", { referrer: "https://www.linkedin.com/feed/" });
      clock.advance(60_000);
      await view(t, ravi, "/services");
      await view(t, asha, "/science/pressure-cooker");
      await t.app.readers.flush();
      const hashes = (await runSql(t, "select reader from reader_visits")).map((row) =>
        String(row.reader),
      );
      expect(hashes).toHaveLength(2);
      /** The rows of every table that hold a reader's hash and a time of day. */
      const timed = async () => {
        const found: string[] = [];
        for (const table of await tableNames(t, backend)) {
          for (const row of await runSql(t, `select * from ${table}`)) {
            const text = JSON.stringify(row);
            if (hashes.some((hash) => text.includes(hash)) && /T\d\d:\d\d/.test(text))
              found.push(table);
          }
        }
        return found;
      };
      // A raw view or visit keeps its day alone; "reading now" each reader's last view.
      expect(await timed()).toEqual(["reader_now", "reader_now"]);
      const owner = new Owner(t);
      await owner.signIn();
      const readingNow = async () =>
        json(await owner.get("/api/admin/readers?period=day"), readersReportSchema).readingNow;
      expect(await readingNow()).toBe(2);

      // Asha's first view is 30 minutes old, her last is not: she still reads.
      clock.advance(29 * 60_000 + 30_000);
      await t.app.readers.flush();
      expect(await readingNow()).toBe(2);
      expect(await timed()).toHaveLength(2);
      // Past their 30 minutes, the next write (one of nothing new) deletes them.
      clock.advance(60_000);
      await t.app.readers.flush();
      expect(await timed()).toEqual([]);
      expect(await readingNow()).toBe(0);
      const day = json(await owner.get("/api/admin/readers?period=day"), readersReportSchema);
      expect([day.visitors, day.views]).toEqual([2, 3]);
    } finally {
      await t.close();
    }
  });
});

describe("readers' limit per address", () => {
  let t: TestApp;
  const clock = movableClock();
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      env: { ANALYTICS_VIEWS_PER_MINUTE_PER_IP: "5" },
      clientFiles,
      readers: { flushMs: 3_600_000, clock: clock.now },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("counts at most ANALYTICS_VIEWS_PER_MINUTE_PER_IP views a minute from one address, an IPv6 one by its /64, and answers the rest the same", async () => {
    const home = ["2001:db8:5:6::a", "2001:db8:5:6:ffff::b"];
    for (let i = 0; i < 8; i++) {
      const answer = await view(t, { ip: home[i % 2] ?? "", userAgent: chrome }, "/science");
      expect(answer.statusCode).toBe(204);
    }
    for (let i = 0; i < 7; i++) await view(t, { ip: "192.0.2.80", userAgent: chrome }, "/services");
    // Another /64 is another address.
    await view(t, { ip: "2001:db8:5:7::a", userAgent: chrome }, "/science");
    await t.app.readers.flush();
    const owner = new Owner(t);
    await owner.signIn();
    const first = json(await owner.get("/api/admin/readers?period=day"), readersReportSchema);
    expect(first.pages.map((p) => [p.value, p.views])).toEqual([
      ["/science", 6],
      ["/services", 5],
    ]);

    // The next minute counts afresh.
    clock.advance(60_000);
    await view(t, { ip: "192.0.2.80", userAgent: chrome }, "/services");
    await t.app.readers.flush();
    const next = json(await owner.get("/api/admin/readers?period=day"), readersReportSchema);
    expect(next.views).toBe(12);
  });

  it("counts at most ten addresses' worth a minute from one IPv6 network (its /48), whatever its /64s", async () => {
    clock.advance(60_000);
    const today = clock.now().toISOString().slice(0, 10);
    const before = await t.app.readers.repository.figures(today, today);
    const viewsOf = (rows: typeof before.rows) =>
      rows.filter((row) => row.dimension === "page" && row.value === "/services")[0]?.views ?? 0;
    // Sixty /64s of one /48, each within its own five: ten times five are counted, no more.
    for (let i = 0; i < 60; i++) {
      const answer = await view(
        t,
        { ip: `2001:db8:77:${i.toString(16)}::1`, userAgent: `${chrome} ${i}` },
        "/services",
      );
      expect(answer.statusCode).toBe(204);
    }
    // Another network is another allowance.
    await view(t, { ip: "2001:db8:78:1::1", userAgent: chrome }, "/services");
    await t.app.readers.flush();
    const after = await t.app.readers.repository.figures(today, today);
    expect(viewsOf(after.rows) - viewsOf(before.rows)).toBe(51);
  });
});

describe("the beacon over HTTP, answered before Fastify", () => {
  let t: TestApp;
  let origin: string;
  const clock = movableClock();
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      // Behind a proxy on loopback, which names each reader's address.
      env: { TRUST_PROXY: "loopback", LOG_SAMPLE_READS: "1000000" },
      clientFiles,
      readers: { flushMs: 3_600_000, clock: clock.now },
    });
    origin = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** What a browser's sendBeacon sends, through the proxy. */
  const send = (
    kind: "view" | "read",
    query: Record<string, string>,
    { ip = "203.0.113.7", userAgent = chrome, headers = {} as Record<string, string> } = {},
  ) =>
    fetch(`${origin}/api/readers/${kind}?${new URLSearchParams(query)}`, {
      method: "POST",
      headers: { origin: siteUrl, "user-agent": userAgent, "x-forwarded-for": ip, ...headers },
    });

  it("counts as the route does, with the route's headers, and leaves anything else to it", async () => {
    const first = await send("view", {
      p: "/science",
      r: "https://www.linkedin.com/feed/",
      z: "Europe/London",
    });
    expect(first.status).toBe(204);
    expect(await first.text()).toBe("");
    await send("view", { p: "/science/pressure-cooker/", z: "Europe/London" });
    await send("read", { p: "/science/pressure-cooker" });
    await send(
      "view",
      { p: "/services", z: "Asia/Kolkata" },
      { ip: "198.51.100.23", userAgent: firefox },
    );
    // Not counted, and answered the same: Do Not Track, a bot, no page of the site.
    for (const answer of [
      await send("view", { p: "/science" }, { ip: "192.0.2.2", headers: { dnt: "1" } }),
      await send("view", { p: "/science" }, { ip: "192.0.2.3", userAgent: "Googlebot/2.1" }),
      await send("view", { p: "/wp-login.php" }, { ip: "192.0.2.4" }),
    ]) {
      expect(answer.status).toBe(204);
    }

    // The same answer, header for header, as Fastify's route gives.
    const names = (headers: Iterable<string>) =>
      [...headers].filter((name) => !["date", "connection", "keep-alive"].includes(name)).sort();
    const routed = await t.app.inject({
      method: "POST",
      url: "/api/readers/view?p=%2Fservices",
      remoteAddress: "192.0.2.9",
      headers: { origin: siteUrl, "user-agent": "Googlebot/2.1" },
    });
    expect(routed.statusCode).toBe(204);
    expect(names(first.headers.keys())).toEqual(names(Object.keys(routed.headers)));
    for (const name of names(first.headers.keys()).filter((name) => name !== "x-request-id")) {
      expect(first.headers.get(name), name).toBe(String(routed.headers[name]));
    }
    // An answer without a body carries its id, not the headers that govern a body (decision 079).
    expect(first.headers.get("x-request-id")).toMatch(/^[\w.:-]{1,64}$/);
    const bodyOnly = ["content-security-policy", "cross-origin-resource-policy", "referrer-policy"];
    for (const name of [...bodyOnly, "x-content-type-options"]) {
      expect(first.headers.get(name), name).toBeNull();
    }

    // What the route refuses is still refused, in its words.
    const elsewhere = await send(
      "view",
      { p: "/science" },
      { headers: { origin: "https://evil.example" } },
    );
    expect(elsewhere.status).toBe(403);
    expect(await elsewhere.json()).toMatchObject({ error: { code: "cross_origin" } });
    // An answer with a body keeps them.
    expect(elsewhere.headers.get("x-content-type-options")).toBe("nosniff");
    expect(elsewhere.headers.get("content-security-policy")).toBe(
      "default-src 'none';frame-ancestors 'none'",
    );
    // A sandboxed frame's opaque origin decides, whatever the Referer says: not counted.
    const opaque = await send(
      "view",
      { p: "/science" },
      { ip: "192.0.2.5", headers: { origin: "null", referer: `${siteUrl}/science` } },
    );
    expect(opaque.status).toBe(403);
    expect(await opaque.json()).toMatchObject({ error: { code: "cross_origin" } });
    const twice = await fetch(`${origin}/api/readers/view?p=%2Fscience&p=%2Fservices`, {
      method: "POST",
      headers: { origin: siteUrl, "user-agent": chrome },
    });
    expect(twice.status).toBe(400);
    // Refused by the route, whose hook set an empty answer's headers: a body gets them all.
    expect(twice.headers.get("x-content-type-options")).toBe("nosniff");
    expect(twice.headers.get("cross-origin-resource-policy")).toBe("same-origin");
    const long = await send("view", { p: "a".repeat(400) });
    expect(long.status).toBe(400);
    // Queries read by hand before Fastify: answered as the route answers them
    // (a bot's, so that none is counted).
    for (const query of [
      "p=",
      "p",
      "r=x",
      "p=%2Fscience&x=1",
      "p=%2Fscience&&z=Europe%2FLondon",
      `p=%2Fscience&z=${"a".repeat(65)}`,
      `p=%2Fscience&z=${"%C3%A9".repeat(64)}`,
      "p=%E0%A4%A",
      "p=%2Fscience&r=a+b%2",
    ]) {
      const url = `/api/readers/view?${query}`;
      const headers = { origin: siteUrl, "user-agent": "Googlebot/2.1" };
      const fast = await fetch(`${origin}${url}`, { method: "POST", headers });
      const routed = await t.app.inject({ method: "POST", url, headers });
      expect(fast.status, query).toBe(routed.statusCode);
    }

    await t.app.readers.flush();
    const owner = new Owner(t);
    await owner.signIn();
    const report = json(await owner.get("/api/admin/readers?period=day"), readersReportSchema);
    expect(report.visitors).toBe(2);
    expect(report.pages).toEqual([
      { value: "/science", views: 1, visitors: 1, engaged: null },
      { value: "/science/pressure-cooker", views: 1, visitors: 1, engaged: 1 },
      { value: "/services", views: 1, visitors: 1, engaged: null },
    ]);
    expect(report.sources.map((source) => [source.value, source.views])).toEqual([
      ["LinkedIn", 2],
      ["Direct", 1],
    ]);
    expect(report.countries.map((country) => country.value).sort()).toEqual(["GB", "IN"]);
  });
});

describe("readers on PostgreSQL with two instances", () => {
  let a: TestApp;
  let b: TestApp;
  // Today's noon: the instances and the command line count on one day, whatever the hour.
  const clock = movableClock();
  beforeAll(async () => {
    a = await startTestApp("postgres", {
      clientFiles,
      readers: { flushMs: 3_600_000, clock: clock.now },
    });
    b = await startTestApp("postgres", {
      databaseUrl: a.databaseUrl,
      clientFiles,
      readers: { flushMs: 3_600_000, clock: clock.now },
    });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("merges the instances' counts, counts nothing twice and rolls a day up once", async () => {
    const browsers = Array.from({ length: 20 }, (_, i) => ({
      ip: `10.20.0.${i + 1}`,
      userAgent: chrome,
    }));
    // Every reader reaches both instances, as behind a load balancer.
    for (const browser of browsers) {
      await view(a, browser, "/science", { referrer: "https://mastodon.social/@someone" });
      await view(b, browser, "/science/pressure-cooker", { referrer: "https://www.google.com/" });
    }
    // Comments from three readers, one instance's each or both's, counted as the batches are written.
    const request = (browser: Browser) => ({
      ip: browser.ip,
      headers: { "user-agent": browser.userAgent },
    });
    for (const [instance, browser] of [
      [a, browsers[0]],
      [b, browsers[1]],
      [a, browsers[2]],
      [b, browsers[2]],
    ] as const) {
      if (browser) await instance.app.readers.attribute(request(browser), "comment");
    }
    await Promise.all([a.app.readers.flush(), b.app.readers.flush()]);
    // A second write of nothing new changes nothing.
    await Promise.all([a.app.readers.flush(), b.app.readers.flush()]);
    const comments = await runSql(
      a,
      "select sum(count) as n from reader_conversion_days where kind = 'comment' and source in ('Mastodon', 'Google')",
    );
    expect(Number(comments[0]?.n)).toBe(4);
    const report = await readersCli(a, "1d", clock.now);
    expect(report.visitors).toBe(20);
    expect(report.views).toBe(40);
    // Both instances saw each reader now: each counted once.
    expect(report.readingNow).toBe(20);
    // One visit each, begun on one instance or the other, never both.
    expect(report.sources.reduce((sum, s) => sum + s.visitors, 0)).toBe(20);
    // Each visit holds the views both instances saw of it.
    expect(report.sources.reduce((sum, s) => sum + s.views, 0)).toBe(40);
    const visits = await runSql(a, "select count(*) as n from reader_visits");
    expect(Number(visits[0]?.n)).toBe(20);
    const salts = await runSql(a, "select count(*) as n from reader_salts");
    expect(Number(salts[0]?.n)).toBe(1);

    // The rows of a day gone by, rolled up by both instances at once: written once.
    const past = new Date(clock.now().getTime() - 3 * dayMs).toISOString().slice(0, 10);
    await runSql(a, "update reader_views set day = ?", [past]);
    await runSql(a, "update reader_visits set day = ?", [past]);
    const [ra, rb] = await Promise.all([a.app.readers.maintain(), b.app.readers.maintain()]);
    const rolled = [...ra.rolled, ...rb.rolled];
    expect(rolled).toContain(past);
    expect(new Set(rolled).size).toBe(rolled.length);
    const total = await runSql(
      a,
      "select views, visitors from reader_days where day = ? and dimension = 'total'",
      [past],
    );
    expect(total.map((row) => [Number(row.views), Number(row.visitors)])).toEqual([[40, 20]]);
  });
});

describe("two instances adding views to the same visits on PostgreSQL", () => {
  it("take the visits in the key's order: one waits for the other, and neither deadlocks", async () => {
    const databaseUrl = await createDatabase(
      inject("postgresUrl"),
      "ewe_test",
      inject("postgresTemplate"),
    );
    const stores = [
      await openStore({ kind: "postgres", connectionString: databaseUrl }),
      await openStore({ kind: "postgres", connectionString: databaseUrl }),
    ];
    const holder = new pg.Client({ connectionString: databaseUrl });
    await holder.connect();
    try {
      const [a, b] = stores.map(createReadersRepository);
      if (!a || !b) throw new Error("two stores");
      const day = "2026-12-01";
      const visit = (reader: string) => ({
        day,
        reader,
        entryPath: "/science",
        source: "Direct",
        medium: "",
        campaign: "",
        country: "GB",
        device: "desktop",
      });
      await a.write({ visits: [visit("r1"), visit("r2")], views: [], reads: [], conversions: [] });
      // Analysed, as autovacuum leaves a table: PostgreSQL then finds these few
      // visits from the write's rows, in the order the write gives them.
      await holder.query("analyze reader_visits");
      /** Until `count` connections to the database wait for a lock (10 s at most). */
      const waiting = async (count: number) => {
        for (let tries = 0; tries < 1000; tries++) {
          // Read afresh: inside a transaction, the first read is kept until its end.
          await holder.query("select pg_stat_clear_snapshot()");
          const found = await holder.query(
            "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
          );
          if (found.rows[0]?.n >= count) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        throw new Error(`${count} connections never waited for a lock`);
      };
      /** Each reader's view of `path` in one write, met in the order given. */
      const write = (repository: typeof a, path: string, readers: string[]) =>
        repository
          .write({
            visits: [],
            views: readers.map((reader) => ({
              day,
              path,
              reader,
              views: 1,
              at: `${day}T12:00:00.000Z`,
            })),
            reads: [],
            conversions: [],
          })
          .then(
            () => "written",
            (error: unknown) => String(error),
          );
      // Another transaction holds r1's visit; instance a met r1 first, then b met r2 first.
      await holder.query("begin");
      await holder.query("select 1 from reader_visits where reader = 'r1' for update");
      const first = write(a, "/science", ["r1", "r2"]);
      await waiting(1);
      const second = write(b, "/services", ["r2", "r1"]);
      await waiting(2);
      // a goes first; b, which waits for r1 too, holds nothing a needs next.
      await holder.query("commit");
      expect(await Promise.all([first, second])).toEqual(["written", "written"]);
      const views = await holder.query("select reader, views from reader_visits order by reader");
      expect(views.rows).toEqual([
        { reader: "r1", views: 2 },
        { reader: "r2", views: 2 },
      ]);
    } finally {
      await holder.end();
      for (const store of stores) await store.close();
      await dropDatabase(databaseUrl);
    }
  });
});
