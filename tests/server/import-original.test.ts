import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reactionsResponseSchema } from "../../contract/api.ts";
import { fakeSciencePage, fragment } from "../support/built-site.ts";
import { projectRoot } from "../support/server-process.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { requestSubscription, tokenOfMail } from "./support/newsletter.ts";
import { header, type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { refuseAuditLines, runSql } from "./support/sql.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The original site's tables (docs/product.md, "Moving in and out"):
 * subscribers, reactions and comments as its hosted backend exports them, as
 * CSV or JSON; checked whole first, written once however often the import
 * runs, shown on open pages without a restart, and no address mailed until it
 * confirms here.
 */

/** The soap post's own page as built: its summary and its comments, filled in by the server. */
const soapPage = `<!doctype html><html><head></head><body><h1>How does soap clean?</h1>
<p>${fragment("science:soap", "summary", "How does soap clean?")}</p>
<section>${fragment("science:soap", "comments")}</section></body></html>`;

const fixture = (name: string) => path.resolve(import.meta.dirname, "../fixtures/import", name);

/** A folder of the original site's tables, written for one test. */
function tables(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-original-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

type Listed = { id: number; userName: string; content: string; html: string; createdAt: string };
const commentsOf = async (t: TestApp, postId: string) =>
  json(await t.visitor().get(`/api/items/science/${postId}/comments`)) as {
    comments: Listed[];
    total: number;
  };
const countsOf = async (t: TestApp, kind: "mythology" | "science", id: string) =>
  json(await t.visitor().get(`/api/items/${kind}/${id}/reactions`), reactionsResponseSchema)
    .counts as Record<string, number>;
const rowCount = async (t: TestApp, table: string) =>
  Number((await runSql(t, `select count(*) as n from ${table}`))[0]?.n);

describe.each(backends)("importing the original site on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp(backend, {
      clientFiles: { "science/index.html": fakeSciencePage, "science/soap/index.html": soapPage },
      env: { SMTP_URL: smtp.url },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it("brings comments with their names, text and times, reactions once per name, and subscribers pending, onto the open site", async () => {
    // Read once before, so the site holds the empty answers in memory.
    expect((await commentsOf(t, "soap")).total).toBe(0);
    expect(await countsOf(t, "mythology", "garuda")).toMatchObject({ love: 0, idea: 0 });
    const science = async () => (await t.app.inject({ method: "GET", url: "/science" })).body;
    const soap = async () => (await t.app.inject({ method: "GET", url: "/science/soap" })).body;
    expect(await science()).not.toContain("Chemistry Chitra");
    expect(await soap()).not.toContain("Chemistry Chitra");

    const dry = await admin(
      adminEnv(t),
      "import",
      "--from",
      "original",
      "--dry-run",
      fixture("original"),
    );
    expect(dry.stderr).toBe("");
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("comments: 3 to add");
    expect(dry.stdout).toContain("reactions: 4 to add");
    expect(dry.stdout).toContain("subscribers (pending): 3 to add");
    expect(await rowCount(t, "science_comments")).toBe(0);
    expect(await rowCount(t, "subscribers")).toBe(0);

    const run = await admin(adminEnv(t), "import", "--from", "original", fixture("original"));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("comments: 3 added");
    expect(run.stdout).toContain("reactions: 4 added");
    expect(run.stdout).toContain("subscribers (pending): 3 added");
    expect(run.stdout).toContain("Skipped 4:");
    expect(run.stdout).toMatch(
      /mythology_reactions_rows\.csv line 5: repeats .*line 2: counted once/,
    );
    expect(run.stdout).toMatch(/line 7: its story "retired-story" matches no story/);
    expect(run.stdout).toMatch(/\(id "104"\): its post "an-old-post" matches no science post/);
    expect(run.stdout).toMatch(/subscribers_rows\.csv line 4: repeats the address of .*line 3/);

    await expect.poll(async () => (await commentsOf(t, "soap")).total, { timeout: 15_000 }).toBe(2);
    const [question, answer] = (await commentsOf(t, "soap")).comments;
    expect(question).toMatchObject({
      userName: "Lathering Lakshmi",
      createdAt: "2024-02-10T08:30:00.000Z",
    });
    expect(answer?.content).toBe(
      "Hard water's calcium binds the soap first,\nso you need more of it before it lathers.",
    );
    const [wifi] = (await commentsOf(t, "wifi")).comments;
    expect(wifi?.html).toContain("&lt;script&gt;");
    expect(wifi?.html).not.toContain("<script");
    await expect
      .poll(() => countsOf(t, "mythology", "garuda"), { timeout: 15_000 })
      .toMatchObject({ love: 2, idea: 1 });
    expect(await countsOf(t, "mythology", "rama-duty")).toMatchObject({ like: 1 });

    // Nobody's browser owns what came in, and nothing was mailed to anyone.
    const owners = await runSql(t, "select visitor_id from science_comments");
    expect(owners.every((r) => String(r.visitor_id).startsWith("imported:original:"))).toBe(true);
    const subscribers = await runSql(t, "select email, status from subscribers order by email");
    expect(subscribers).toEqual([
      { email: "Kiran.Patel@example.net", status: "pending" },
      { email: "meera.iyer@example.org", status: "pending" },
      { email: "tanvir@example.com", status: "pending" },
    ]);
    expect(await rowCount(t, "outbox")).toBe(0);

    // The pages the site had filled in and kept are filled in again.
    expect(await soap()).toContain("Chemistry Chitra");
    expect(await soap()).toContain("Lathering Lakshmi");
    const page = await science();
    expect(page).toContain("Chemistry Chitra");
    const jsonLd = JSON.parse(
      /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(page)?.[1] ?? "{}",
    );
    const soapNode = jsonLd["@graph"].find((node: { headline?: string }) =>
      node.headline?.startsWith("How does soap clean"),
    );
    expect(soapNode.commentCount).toBe(2);
  });

  it("reads the same tables as JSON arrays of rows, one file or a folder", async () => {
    const run = await admin(adminEnv(t), "import", "--from", "original", fixture("original-json"));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("comments: 1 added");
    expect(run.stdout).toContain("reactions: 4 added");
    expect(run.stdout).toContain("subscribers (pending): 2 added");
    await expect
      .poll(() => countsOf(t, "science", "soap"), { timeout: 15_000 })
      .toMatchObject({ like: 2, idea: 1 });
    expect(await countsOf(t, "science", "wifi")).toMatchObject({ dislike: 1 });
    expect((await commentsOf(t, "ironing")).comments[0]).toMatchObject({
      userName: "Steam Sunil",
      createdAt: "2024-06-01T10:00:00.000Z",
    });

    const single = await admin(
      adminEnv(t),
      "import",
      "--from",
      "original",
      fixture("original-json/science_comments.json"),
    );
    expect(single.code).toBe(0);
    expect(single.stdout).toContain("comments: 0 added, 1 already there");
  });

  it("reads a table an editor saved with a byte order mark as the table it is", async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), "ewe-original-"));
    const saved = path.join(folder, "science_comments.json");
    writeFileSync(
      saved,
      `\ufeff${readFileSync(fixture("original-json/science_comments.json"), "utf8")}`,
    );
    const dryRun = (file: string) =>
      admin(adminEnv(t), "import", "--from", "original", "--dry-run", file);
    const run = await dryRun(saved);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("comments: ");
    expect(run.stdout).toBe((await dryRun(fixture("original-json/science_comments.json"))).stdout);
  });

  it("changes nothing when the same tables are imported again", async () => {
    const before = await Promise.all(
      ["science_comments", "science_reactions", "mythology_reactions", "subscribers"].map((table) =>
        rowCount(t, table),
      ),
    );
    for (const folder of ["original", "original-json"]) {
      const run = await admin(adminEnv(t), "import", "--from", "original", fixture(folder));
      expect(run.code).toBe(0);
      expect(run.stdout).not.toMatch(/[1-9]\d* added/);
      expect(run.stdout).toContain("already there");
    }
    const after = await Promise.all(
      ["science_comments", "science_reactions", "mythology_reactions", "subscribers"].map((table) =>
        rowCount(t, table),
      ),
    );
    expect(after).toEqual(before);
  });

  it("names a long post or story id cut short, as the other imports do", async () => {
    const folder = tables({
      "science_comments.csv": [
        "id,post_id,content,user_name,created_at",
        `401,${"p".repeat(100_000)},Fine words,Plain Priya,2024-01-01 10:00:00+00`,
      ].join("\n"),
      "mythology_reactions.csv": `story_id,type,user_name\n${"s".repeat(100_000)},love,Priya\n`,
    });
    const run = await admin(adminEnv(t), "import", "--from", "original", "--dry-run", folder);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toContain(
      `(id "401"): its post "${"p".repeat(60)}…" matches no science post`,
    );
    expect(run.stdout).toContain(`line 2: its story "${"s".repeat(60)}…" matches no story`);
    expect(run.stdout.length).toBeLessThan(5_000);
  });

  it("refuses the whole input when anything in it is wrong, naming each problem, and writes nothing", async () => {
    const before = await rowCount(t, "science_comments");
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const folder = tables({
      "science_comments.csv": [
        "id,post_id,content,user_name,created_at",
        `301,soap,Fine words,Plain Priya,2024-01-01 10:00:00+00`,
        `302,soap,"=HYPERLINK(""http://evil.example"",""x"")",Sly Sam,2024-01-01 10:00:00+00`,
        `303,soap,From tomorrow,Time Traveller,${future}`,
        `301,wifi,The same id again,Copy Cat,2024-01-01 10:00:00+00`,
        `304,soap,${"x".repeat(2001)},Long Lalit,2024-01-01 10:00:00+00`,
        `305,soap,A name that is a formula,@SUM(A1),2024-01-01 10:00:00+00`,
        `306,soap,Not a time,Odd Oscar,yesterday`,
        `307,soap,Before the calendar,Ancient Anu,0000-06-01 10:00:00+00`,
        `308,soap,Nice &#x202E;evil&#x202C; post,Rev Ravi,2024-01-01 10:00:00+00`,
      ].join("\n"),
      "science_reactions.csv": "post_id,type,user_name\nsoap,wow,Priya\n",
      "mythology_reactions.csv": "story_id,user_name\ngaruda,Priya\n",
      "subscribers.csv": 'email\nnot-an-address\n"+1 555 0100"\n',
      "subscribers.json": '{"email": "x@example.com"}',
    });
    const run = await admin(adminEnv(t), "import", "--from", "original", folder);
    expect(run.code).not.toBe(0);
    const said = run.stderr;
    expect(said).toContain("Nothing was imported");
    expect(said).toMatch(/science_comments\.csv line 3 \(id "302"\) content: starts with "="/);
    expect(said).toMatch(/line 4 \(id "303"\) date: .* is in the future/);
    expect(said).toMatch(/line 5 \(id "301"\): repeats an earlier comment's id$/m);
    expect(said).toMatch(/line 6 \(id "304"\) text: /);
    expect(said).toMatch(/line 7 \(id "305"\) user_name: starts with "@"/);
    expect(said).toMatch(/line 8 \(id "306"\) date: is not a date/);
    expect(said).toMatch(/line 9 \(id "307"\) date: is not a date/);
    expect(said).toMatch(/line 10 \(id "308"\) text: .*text-direction characters/);
    expect(said).toMatch(
      /science_reactions\.csv line 2 type: "wow" is not one of like, love, dislike, idea/,
    );
    expect(said).toMatch(/mythology_reactions\.csv: has no column "type"/);
    expect(said).toMatch(/subscribers\.csv line 2 email: /);
    expect(said).toMatch(/subscribers\.csv line 3 email: starts with "\+"/);
    expect(said).toContain("subscribers.json: must be a JSON array of row objects");
    expect(await rowCount(t, "science_comments")).toBe(before);

    const broken = tables({
      "science_comments.csv":
        'id,post_id,content,user_name,created_at\n1,soap,"unclosed,Ann,2024-01-01\n',
    });
    const malformed = await admin(adminEnv(t), "import", "--from", "original", broken);
    expect(malformed.code).not.toBe(0);
    expect(malformed.stderr).toMatch(/science_comments\.csv: cannot be read: .*quote/i);

    const unnamed = tables({ "comments.csv": "id\n1\n" });
    const none = await admin(adminEnv(t), "import", "--from", "original", unnamed);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain("holds none of the original site's tables");
  });

  it("names a comment id that one table's two files both hold, and a repeated reaction or address once", async () => {
    const before = await rowCount(t, "science_comments");
    const row = { post_id: "soap", user_name: "Twin Tara", created_at: "2024-01-01T10:00:00Z" };
    const folder = tables({
      "science_comments.csv": `id,post_id,content,user_name,created_at\n401,soap,The words kept,Twin Tara,2024-01-01T10:00:00Z\n`,
      "science_comments_rows.json": JSON.stringify([{ ...row, id: 401, content: "Other words" }]),
    });
    const run = await admin(adminEnv(t), "import", "--from", "original", "--dry-run", folder);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /science_comments_rows\.json row 1 \(id "401"\): repeats an earlier comment's id$/m,
    );
    expect(await rowCount(t, "science_comments")).toBe(before);

    const repeats = tables({
      "science_reactions.csv": "post_id,type,user_name\nsoap,like,Twin Tara\n",
      "science_reactions.json": JSON.stringify([
        { post_id: "soap", type: "like", user_name: "Twin Tara" },
      ]),
      "subscribers.csv": "email\ntwin@example.com\n",
      "subscribers.json": JSON.stringify([{ email: "twin@example.com" }]),
    });
    const counted = await admin(adminEnv(t), "import", "--from", "original", "--dry-run", repeats);
    expect(counted.stderr).toBe("");
    expect(counted.stdout).toMatch(/science_reactions\.json row 1: repeats .*counted once/);
    expect(counted.stdout).toMatch(/subscribers\.json row 1: repeats the address of/);
  });

  // Once, on SQLite: the input is refused as it is read, before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("stops at the 200th problem of a table of empty rows, listing those", async () => {
        const folder = tables({
          "science_comments.csv": `id,post_id,content,user_name,created_at\n${",,,,\n".repeat(20_000)}`,
        });
        const run = await admin(adminEnv(t), "import", "--from", "original", folder);
        const lines = run.stderr.trimEnd().split("\n");
        expect([run.code, lines[0], lines.length, lines.at(-1)]).toEqual([
          1,
          "Nothing was imported: the input has more than 200 problems.",
          202,
          "  … the check stopped there: correct these and import the file again",
        ]);
      });
    });
  }

  it("imports subscribers as confirmed only on a stated legal basis, which the audit trail keeps", async () => {
    const folder = tables({ "subscribers.csv": "email\nconsented@example.org\n" });
    const bare = await admin(
      adminEnv(t),
      "import",
      "--from",
      "original",
      "--subscribers",
      "confirmed",
      folder,
    );
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain("--legal-basis");
    expect(
      await runSql(t, "select email from subscribers where email = 'consented@example.org'"),
    ).toEqual([]);

    const basis = "Consent given on the old site's form, records kept until 2031";
    const run = await admin(
      adminEnv(t),
      "import",
      "--from",
      "original",
      "--subscribers",
      "confirmed",
      "--legal-basis",
      basis,
      folder,
    );
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("subscribers (confirmed): 1 added");
    expect(
      await runSql(t, "select status from subscribers where email = 'consented@example.org'"),
    ).toEqual([{ status: "confirmed" }]);
    const audit = await runSql(
      t,
      "select object from owner_audit where action = 'import original'",
    );
    expect(audit.map((row) => String(row.object))).toContainEqual(expect.stringContaining(basis));
    expect(JSON.stringify(audit)).not.toContain("consented@example.org");
  });

  it("asks each imported pending address once to confirm, in a mail of its own, and confirms by the site's link", async () => {
    const asked = await admin(adminEnv(t), "newsletter", "reconfirm");
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain("5 imported subscribers");
    expect(await rowCount(t, "outbox")).toBe(0);

    const run = await admin(adminEnv(t), "newsletter", "reconfirm", "--yes");
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("Queued a request to confirm for 5 imported subscribers.");
    const pending = [
      "Kiran.Patel@example.net",
      "meera.iyer@example.org",
      "tanvir@example.com",
      "asha.rao@example.org",
      "vikram@example.com",
    ];
    await smtp.waitFor((mails) => pending.every((to) => mails.some((m) => m.to.includes(to))));
    const mail = smtp.to("meera.iyer@example.org")[0]!;
    expect(header(mail, "Subject")).toBe("Do you still want the Engage with Engineer newsletter?");
    expect(mail.parsed.text).toContain("earlier version of Engage with Engineer");
    // The confirmed address of the legal-basis import is not asked again.
    expect(smtp.to("consented@example.org")).toEqual([]);

    const again = await admin(adminEnv(t), "newsletter", "reconfirm", "--yes");
    expect(again.stdout).toContain("No imported subscriber is waiting to be asked.");

    const confirmed = await t
      .visitor()
      .post("/api/subscribers/confirm", { token: tokenOfMail(mail) });
    expect(json(confirmed)).toEqual({ confirmed: true });
    expect(
      await runSql(t, "select status from subscribers where email = 'meera.iyer@example.org'"),
    ).toEqual([{ status: "confirmed" }]);
    const audit = await runSql(
      t,
      "select object from owner_audit where action = 'newsletter reconfirm'",
    );
    expect(audit).toEqual([{ object: "5 queued" }]);
  });

  it("says that part of a reconfirmation may be done when its line fails, and done again finishes it", async () => {
    // An address asked long ago, waiting to be asked again.
    const sentAt = () =>
      runSql(t, "select confirmation_sent_at from subscribers where email = 'tanvir@example.com'");
    await runSql(
      t,
      "update subscribers set confirmation_sent_at = null where email = 'tanvir@example.com'",
    );
    const allow = await refuseAuditLines(t, "newsletter reconfirm");
    try {
      const failed = await admin(adminEnv(t), "newsletter", "reconfirm", "--yes");
      expect(failed.code).not.toBe(0);
      expect(failed.stderr).toMatch(
        /^Failed: .+\. Part of it may be done already; doing it again finishes it\.\n$/,
      );
    } finally {
      await allow();
    }
    // Its batch had committed: the address was asked.
    expect((await sentAt())[0]?.confirmation_sent_at).not.toBeNull();
    const lines = async () =>
      (
        await runSql(
          t,
          "select object from owner_audit where action = 'newsletter reconfirm' order by id",
        )
      ).map((row) => row.object);
    // Done again, it asks no one twice, and its line counts what the failed run did.
    const again = await admin(adminEnv(t), "newsletter", "reconfirm", "--yes");
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(
      "Queued a request to confirm for 0 imported subscribers, after 1 asked since the last reconfirmation.\n",
    );
    expect(await lines()).toEqual(["5 queued", "0 queued, 1 before"]);
    // Once counted, there is nothing left to do or to write.
    const done = await admin(adminEnv(t), "newsletter", "reconfirm", "--yes");
    expect(done.stdout).toContain("No imported subscriber is waiting to be asked.");
    expect(await lines()).toEqual(["5 queued", "0 queued, 1 before"]);

    // A day later an imported reader asks through the footer's form: that request is theirs, not the reconfirmation's.
    await runSql(
      t,
      "update subscribers set confirmation_sent_at = '2020-01-01T00:00:00.000Z' where email = 'vikram@example.com'",
    );
    expect((await requestSubscription(t, "vikram@example.com")).statusCode).toBe(202);
    // Asked for through the form, the mail is the form's: not the reconfirmation's "earlier version".
    await smtp.waitFor(() => smtp.to("vikram@example.com").length === 2);
    const asked = smtp.to("vikram@example.com")[1]!;
    expect(header(asked, "Subject")).toBe("Confirm your subscription to Engage with Engineer");
    expect(asked.parsed.text).not.toContain("earlier version");
    const after = await admin(adminEnv(t), "newsletter", "reconfirm", "--yes");
    expect(after.stdout).toBe("No imported subscriber is waiting to be asked.\n");
    expect(await lines()).toEqual(["5 queued", "0 queued, 1 before"]);
  });
});

describe("tables larger than Node's heap holds as the import reads them", () => {
  const dataDir = tables({});
  /** `npm run admin -- import …` as its own process, as npm runs it but in a heap of 128 MB. */
  const importIn128MB = (...argv: string[]) =>
    spawnSync(
      process.execPath,
      [
        "--max-old-space-size=128",
        "--max-semi-space-size=1",
        path.join(projectRoot, "server/cli/admin.ts"),
        "import",
        ...argv,
      ],
      {
        env: { ...process.env, NODE_OPTIONS: "", NODE_ENV: "test", DATA_DIR: dataDir },
        encoding: "utf8",
      },
    );

  it("are refused before they are read, naming the limit, the heap and what to do", () => {
    // 400,000 reactions in 10 MB of CSV, each held as its cells: about 35 times the file.
    const rows = Array.from({ length: 400_000 }, (_, i) => `soap,idea,reader ${i}`);
    const csv = (count: number) => ({
      "science_reactions.csv": `post_id,type,user_name\n${rows.slice(0, count).join("\n")}\n`,
    });
    const dir = tables(csv(rows.length));
    const run = importIn128MB("--from", "original", "--dry-run", dir);
    expect(run.stderr).toMatch(
      /^\S+ is 10 MB, more than the [12] MB an import of this kind reads in the 1\d\d MB Node gives it: split it, or give Node the memory it needs \(about 70 times the file\): NODE_OPTIONS=--max-old-space-size=\d+ before npm run admin\.\n$/,
    );
    expect(run.stderr.startsWith(`${dir} is`)).toBe(true);
    expect(run.status).toBe(1);
    // Split, each part is read (into a database made by an empty export's import).
    const empty = { format: "engage-with-engineer-export", version: 3, tables: {} };
    const made = tables({ "empty.json": JSON.stringify(empty) });
    expect(importIn128MB("--from", "export", path.join(made, "empty.json")).status).toBe(0);
    const read = importIn128MB("--from", "original", "--dry-run", tables(csv(5000)));
    expect([read.status, read.stderr]).toEqual([0, ""]);
    expect(read.stdout).toContain("reactions: 5000 to add");
  });
});
