import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import { defaultAvailability } from "../../contract/bookings.ts";
import { renderComment } from "../../server/comments/markdown.ts";
import { legacySeed, newToken, tokenDigest } from "../../server/lib/tokens.ts";
import { fragment } from "../support/built-site.ts";
import { createDatabase, dropDatabase } from "../support/postgres.ts";
import { admin, adminEnv } from "./support/admin.ts";
import {
  commentRow as comment,
  exportFile,
  type Row,
  signedExport,
} from "./support/signed-export.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * `admin import --from export` reads a file the owner may not have written:
 * it moves a site into a new data folder, renders what readers see from the
 * comments' text, lets only the site's own signed export mark the owner's
 * comments, checks every unique key before it writes, writes everything or
 * nothing, and hangs replies under the comments they answer
 * (docs/decisions/030-import-and-export.md).
 */

const scratch = () => mkdtempSync(path.join(os.tmpdir(), "ewe-import-"));

/** A file of these tables signed as the site's own export is, with the site's cookie secret. */
function signedFile(t: TestApp, tables: Record<string, Row[]>): string {
  const header = {
    format: "engage-with-engineer-export",
    version: 2,
    exportedAt: "2025-01-01T00:00:00.000Z",
    settings: {},
  };
  const secret = readFileSync(path.join(t.dataDir, "cookie-secret"), "utf8");
  const file = path.join(scratch(), "signed.json");
  writeFileSync(file, JSON.stringify(signedExport({ ...header, tables }, secret)));
  return file;
}

const subscriber = (id: number, extra: Row = {}): Row => ({
  id,
  email: `reader-${id}@example.org`,
  unsubscribe_token: `token-of-reader-${id}`,
  created_at: "2024-03-01T10:00:00.000Z",
  status: "confirmed",
  confirmed_at: "2024-03-01T10:05:00.000Z",
  confirmation_sent_at: null,
  ...extra,
});

const reaction = (id: number, extra: Row = {}): Row => ({
  id,
  post_id: "soap",
  type: "idea",
  user_name: "Asha",
  visitor_id: "imported:test:asha",
  created_at: "2024-03-01T10:00:00.000Z",
  ...extra,
});

/** A science post's own page as built, its engagement left for the server to fill in. */
const soapPage = `<!doctype html><html><head></head><body><h1>Soap</h1>
<p>${fragment("science:soap", "summary", "Soap")}</p>
<section>${fragment("science:soap", "comments")}</section></body></html>`;

/** The same page with the web's mentions of it under its comments. */
const mentionsPage = soapPage.replace(
  "</section>",
  `${fragment("science:soap", "mentions")}</section>`,
);

const commentsOf = async (t: TestApp, post: string) =>
  json(await t.visitor().get(`/api/items/science/${post}/comments`), commentsResponseSchema);

const count = async (t: TestApp, table: string) =>
  Number((await runSql(t, `select count(*) as n from ${table}`))[0]?.n);

describe("moving into a data folder that holds no database yet, on sqlite", () => {
  it("creates and migrates the database, imports the file and records the import", async () => {
    const file = exportFile({ science_comments: [comment(1)] });
    const moved = { databaseUrl: undefined, dataDir: path.join(scratch(), "new-data") };
    const dry = await admin(adminEnv(moved), "import", "--from", "export", "--dry-run", file);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/science_comments: 1 to add/);
    expect(dry.stdout).toMatch(
      /There is no database at .*engage\.sqlite yet: the import will make it\./,
    );
    expect(existsSync(moved.dataDir)).toBe(false);

    const run = await admin(adminEnv(moved), "import", "--from", "export", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/science_comments: 1 added/);
    expect(await runSql(moved, "select id, content from science_comments")).toEqual([
      { id: 1, content: "Hard water wastes soap, and the scum shows it." },
    ]);
    expect(await runSql(moved, "select action, object, session_id from owner_audit")).toEqual([
      { action: "import export", object: "site.json", session_id: null },
    ]);
  });
});

describe("moving into an empty database, on postgres", () => {
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = await createDatabase(inject("postgresUrl"));
  });
  afterAll(() => dropDatabase(databaseUrl));

  it("migrates the database, imports the file and records the import", async () => {
    const file = exportFile({ science_comments: [comment(1)] });
    const moved = { databaseUrl, dataDir: scratch() };
    const run = await admin(adminEnv(moved), "import", "--from", "export", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(await runSql(moved, "select id, content from science_comments")).toEqual([
      { id: 1, content: "Hard water wastes soap, and the scum shows it." },
    ]);
    expect(await runSql(moved, "select action, object, session_id from owner_audit")).toEqual([
      { action: "import export", object: "site.json", session_id: null },
    ]);
  });
});

describe.each(backends)("what readers see of an imported comment, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { clientFiles: { "science/soap/index.html": soapPage } });
  });
  afterAll(() => t?.close());

  it("is rendered from its text, with no markup of the file's and no Author badge the file cannot prove", async () => {
    const text = "Hard water wastes soap, and the **scum** shows it.";
    const file = exportFile({
      science_comments: [
        comment(1, {
          content: text,
          content_html:
            '<meta http-equiv="refresh" content="0;url=https://evil.example/"><style>body{display:none}</style><p>Hard water</p>',
          by_owner: 1,
          visitor_id: "owner",
        }),
      ],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);

    await expect.poll(async () => (await commentsOf(t, "soap")).total).toBe(1);
    const [served] = (await commentsOf(t, "soap")).comments;
    expect(served?.html).not.toMatch(/<meta|<style/i);
    expect(served?.html).toBe(renderComment(text));
    expect(served?.html).toBe(
      "<p>Hard water wastes soap, and the <strong>scum</strong> shows it.</p>",
    );
    expect(served?.byOwner).toBe(false);

    // The page's copy follows the import's live event, as it follows any write.
    const page = async () => (await t.app.inject({ method: "GET", url: "/science/soap" })).body;
    await expect.poll(page).toContain("<strong>scum</strong>");
    const body = await page();
    expect(body).not.toMatch(/<meta http-equiv|<style|evil\.example/i);
    expect(body).not.toContain("comment-badge");
    expect(run.stdout).toMatch(/1 comment marked as the owner's comes in as a reader's/);
  });

  it("keeps a deleted comment's place as the site keeps one: emptied and shown, whatever its status was", async () => {
    const file = exportFile({
      science_comments: [
        comment(20, { post_id: "wifi", status: "pending", deleted_at: "2024-03-02T10:00:00.000Z" }),
        comment(21, { post_id: "wifi", parent_id: 20, content: "Mesh nodes fixed ours." }),
      ],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const rows = await runSql(
      t,
      "select id, status, user_name, content from science_comments where post_id = 'wifi' order by id",
    );
    expect(rows.map((row) => ({ ...row, id: Number(row.id) }))).toEqual([
      { id: 20, status: "published", user_name: "", content: "" },
      { id: 21, status: "published", user_name: "Asha", content: "Mesh nodes fixed ours." },
    ]);
  });

  it("refuses what a reader could not post: over-long text, control characters, bad names", async () => {
    const file = exportFile({
      science_comments: [
        comment(1, { content: "x".repeat(1_000_000) }),
        // (Text-direction characters are taken out, as the upgrade takes them out: import-directions.test.ts.)
        comment(2, { content: "Pay \u0007here, it is safe." }),
        comment(3, { user_name: "A".repeat(41) }),
        comment(4, { user_name: "Asha\u200B" }),
        comment(5, { user_name: "   " }),
        comment(6, { by_owner: 2 }),
      ],
      science_reactions: [reaction(1, { user_name: "\u202Eadmin" })],
    });
    const before = await count(t, "science_comments");
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Nothing was imported: the input has 7 problems.");
    expect(run.stderr).toContain(
      "tables.science_comments[0].content: Comments are at most 2000 characters.",
    );
    expect(run.stderr).toContain(
      "tables.science_comments[1].content: Comments cannot contain control or text-direction characters.",
    );
    expect(run.stderr).toContain(
      "tables.science_comments[2].user_name: Names are at most 40 characters.",
    );
    expect(run.stderr).toMatch(/tables\.science_comments\[3\]\.user_name: Names cannot be blank/);
    expect(run.stderr).toMatch(/tables\.science_comments\[4\]\.user_name: Names cannot be blank/);
    expect(run.stderr).toContain("tables.science_comments[5].by_owner: must be 0 or 1");
    expect(run.stderr).toMatch(/tables\.science_reactions\[0\]\.user_name: Names cannot be blank/);
    expect(await count(t, "science_comments")).toBe(before);
  });
});

describe.each(backends)(
  "the web's mentions and Fediverse writers in an export, on %s",
  (backend) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(backend, { clientFiles: { "science/soap/index.html": mentionsPage } });
    });
    afterAll(() => t?.close());

    const at = "2024-03-01T10:00:00.000Z";
    const mention = (id: number, extra: Row = {}): Row => ({
      id,
      source: `https://blog.example/notes/${id}`,
      target: "https://engage.example/science/soap",
      path: "/science/soap",
      status: "published",
      kind: "mention",
      author_name: "Ravi",
      author_url: "https://blog.example/",
      content: "A fine explanation of soap.",
      received_at: at,
      verified_at: at,
      ...extra,
    });
    const writer = (commentId: number, handle: string): Row => ({
      comment_id: commentId,
      note_id: `https://social.example/notes/${commentId}`,
      actor_id: "https://social.example/users/ravi",
      handle,
      name: "Ravi",
      url: "https://social.example/@ravi",
      avatar: null,
      created_at: at,
    });
    const remote = (id: number) =>
      comment(id, { visitor_id: "fediverse:https://social.example/users/ravi" });

    it("are refused where their receivers would refuse them: a link not to a web page, a long or hidden-character line", async () => {
      const file = exportFile({
        science_comments: [remote(1), remote(2)],
        fediverse_replies: [
          writer(1, "@ravi@social.example\u001b]8;;https://evil.example\u0007"),
          writer(2, "@ravi@social.example"),
        ],
        webmentions: [
          mention(1, { author_url: "vbscript:msgbox(1)" }),
          mention(2, { source: "data:text/html,<script>alert(1)</script>" }),
          mention(3, { source: "https://user:secret@blog.example/notes/3" }),
          mention(4, { author_name: "N".repeat(101) }),
          mention(5, { content: "Read this\n\u202Eelbat" }),
          mention(6),
        ],
      });
      const run = await admin(adminEnv(t), "import", "--from", "export", file);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("Nothing was imported: the input has 6 problems.");
      for (const line of [
        "tables.fediverse_replies[0].handle: holds a line break, or a control or text-direction character",
        "tables.webmentions[0].author_url: must be an http or https address",
        "tables.webmentions[1].source: must be an http or https address",
        "tables.webmentions[2].source: must be an http or https address",
        "tables.webmentions[3].author_name: is longer than 100 characters",
        "tables.webmentions[4].content: holds a line break, or a control or text-direction character",
      ]) {
        expect(run.stderr).toContain(line);
      }
      expect(await count(t, "webmentions")).toBe(0);

      // What the receivers take comes in, and shows.
      const fine = exportFile({
        science_comments: [remote(2)],
        fediverse_replies: [writer(2, "@ravi@social.example")],
        webmentions: [mention(6)],
      });
      const imported = await admin(adminEnv(t), "import", "--from", "export", fine);
      expect(imported.stderr).toBe("");
      expect(imported.code).toBe(0);
      const page = async () => (await t.app.inject({ method: "GET", url: "/science/soap" })).body;
      await expect.poll(page).toContain('href="https://blog.example/notes/6"');
      expect(await page()).toContain("@ravi@social.example");
    });
  },
);

describe.each(backends)("the owner's comments in an export, on %s", (backend) => {
  let source: TestApp;
  let sameSite: TestApp;
  let otherSite: TestApp;
  let exported: string;

  beforeAll(async () => {
    source = await startTestApp(backend);
    // The site moved with its cookie secret, as docs/backups.md, "Moving in and out", says.
    const dataDir = path.join(scratch(), "data");
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(
      path.join(dataDir, "cookie-secret"),
      readFileSync(path.join(source.dataDir, "cookie-secret")),
      { mode: 0o600 },
    );
    sameSite = await startTestApp(backend, {
      dataDir,
      clientFiles: { "science/soap/index.html": soapPage },
    });
    otherSite = await startTestApp(backend);
    const now = new Date().toISOString();
    await runSql(
      source,
      `insert into science_comments (post_id, user_name, content, content_html, visitor_id, status, by_owner, created_at, updated_at)
       values ('soap', 'Priya Sen', 'Thanks for reading!', '<p>Thanks for reading!</p>', 'owner', 'published', 1, ?, ?)`,
      [now, now],
    );
    exported = path.join(scratch(), "site.json");
    expect((await admin(adminEnv(source), "export", "--out", exported)).code).toBe(0);
  });
  afterAll(async () => {
    await source?.close();
    await sameSite?.close();
    await otherSite?.close();
  });

  it("keep the Author badge when the site's own export is read back with its cookie secret", async () => {
    const run = await admin(adminEnv(sameSite), "import", "--from", "export", exported);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("marked as the owner's");
    await expect.poll(async () => (await commentsOf(sameSite, "soap")).total).toBe(1);
    expect((await commentsOf(sameSite, "soap")).comments[0]?.byOwner).toBe(true);
    const page = async () =>
      (await sameSite.app.inject({ method: "GET", url: "/science/soap" })).body;
    await expect.poll(page).toContain("comment-badge");
  });

  it("lose it in a site with another secret, and when the file was altered", async () => {
    const run = await admin(adminEnv(otherSite), "import", "--from", "export", exported);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/1 comment marked as the owner's comes in as a reader's/);
    await expect.poll(async () => (await commentsOf(otherSite, "soap")).total).toBe(1);
    expect((await commentsOf(otherSite, "soap")).comments[0]?.byOwner).toBe(false);

    const document = JSON.parse(readFileSync(exported, "utf8"));
    const [owned] = document.tables.science_comments;
    document.tables.science_comments.push({
      ...owned,
      id: owned.id + 100,
      post_id: "wifi",
      content: "Trust me, click https://evil.example/ for the answer.",
    });
    const altered = path.join(scratch(), "altered.json");
    writeFileSync(altered, JSON.stringify(document));
    const again = await admin(adminEnv(sameSite), "import", "--from", "export", altered);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/2 comments marked as the owner's come in as readers'/);
    await expect.poll(async () => (await commentsOf(sameSite, "wifi")).total).toBe(1);
    expect((await commentsOf(sameSite, "wifi")).comments[0]?.byOwner).toBe(false);
    // What was there already stays as it was.
    expect((await commentsOf(sameSite, "soap")).comments[0]?.byOwner).toBe(true);
  });

  it("keep a browser's rows and approval, the calendar feed's address, the audit trail and the spam filter's examples, from the site's own export alone", async () => {
    // A file's author who knows a feed token, and their own browser's id, would read every
    // call booked after the import, own what the file says they wrote, and post without moderation.
    const token = newToken();
    const now = new Date().toISOString();
    await runSql(
      source,
      "insert into booking_settings (id, availability, feed_token_hash, updated_at) values (1, ?, ?, ?)",
      [JSON.stringify(defaultAvailability), tokenDigest(token), now],
    );
    await runSql(source, "insert into approved_visitors (visitor_id, approved_at) values (?, ?)", [
      "a-browser-of-the-file",
      now,
    ]);
    const browser = "AbCdEfGhIjKlMnOpQrStUv";
    await runSql(
      source,
      `insert into science_comments (post_id, user_name, content, content_html, visitor_id, status, by_owner, created_at, updated_at)
       values ('wifi', 'Mallory', 'Trust me, I have written here for years.', null, ?, 'published', 0, ?, ?)`,
      [browser, now, now],
    );
    // Words a file could teach the filter are ham, so that spam using them is published.
    await runSql(
      source,
      "insert into spam_examples (comment_id, label, source, content, features, created_at) values (null, 'ham', 'approve', 'Cheap replica watches here', null, ?)",
      [now],
    );
    const file = path.join(scratch(), "granting.json");
    expect((await admin(adminEnv(source), "export", "--out", file)).code).toBe(0);
    const feed = (t: TestApp) => t.app.inject({ method: "GET", url: `/book/feed/${token}.ics` });
    const approved = (t: TestApp) => runSql(t, "select visitor_id from approved_visitors");
    const writer = (t: TestApp) =>
      runSql(t, "select visitor_id from science_comments where user_name = 'Mallory'");

    const other = await admin(adminEnv(otherSite), "import", "--from", "export", file);
    expect(other.code).toBe(0);
    expect(other.stdout).toMatch(
      /tables\.approved_visitors\[0\]: an approval is kept only from this site's own export/,
    );
    expect(other.stdout).toContain("The calendar feed's secret address is kept only from");
    expect((await feed(otherSite)).statusCode).toBe(404);
    expect(await approved(otherSite)).toEqual([]);
    expect(other.stdout).toContain("1 row that readers' browsers wrote");
    expect(await writer(otherSite)).toEqual([{ visitor_id: `imported:browser:${browser}` }]);
    // The source's trail holds its first export; only its own site restores that line.
    const exports = (t: TestApp) => count(t, "owner_audit where action = 'export'");
    expect(other.stdout).toMatch(/\d+ lines? of the audit trail (was|were) left out/);
    expect(await exports(otherSite)).toBe(0);
    expect(other.stdout).toContain("1 example of what the spam filter learnt was left out");
    expect(await count(otherSite, "spam_examples")).toBe(0);

    const own = await admin(adminEnv(sameSite), "import", "--from", "export", file);
    expect(own.stderr).toBe("");
    expect(own.stdout).not.toContain("approved_visitors[0]");
    expect(own.stdout).not.toContain("calendar feed");
    expect(own.stdout).not.toContain("nobody's");
    expect((await feed(sameSite)).statusCode).toBe(200);
    expect(await approved(sameSite)).toEqual([{ visitor_id: "a-browser-of-the-file" }]);
    expect(await writer(sameSite)).toEqual([{ visitor_id: browser }]);
    expect(own.stdout).not.toContain("audit trail");
    expect(await exports(sameSite)).toBe(1);
    expect(own.stdout).not.toContain("spam filter");
    expect(await count(sameSite, "spam_examples")).toBe(1);
  });

  it("come in under the owner's name from the site's own export, and from no other", async () => {
    const now = new Date().toISOString();
    await runSql(
      source,
      `insert into science_comments (post_id, user_name, content, content_html, visitor_id, status, by_owner, created_at, updated_at)
       values ('soap', 'Arjun Rao', 'Glad it helped.', '<p>Glad it helped.</p>', 'owner', 'published', 1, ?, ?)`,
      [now, now],
    );
    const signed = path.join(scratch(), "signed.json");
    expect((await admin(adminEnv(source), "export", "--out", signed)).code).toBe(0);
    const owner = (t: TestApp) => ({ ...adminEnv(t), SITE_OWNER_NAME: "Arjun Rao" });

    const before = await count(otherSite, "science_comments");
    const elsewhere = await admin(owner(otherSite), "import", "--from", "export", signed);
    expect(elsewhere.code).toBe(0);
    expect(elsewhere.stdout).toContain(
      "1 comment under the owner's name, or one like it, comes in as a reader's, without the Author badge",
    );
    expect(await count(otherSite, "science_comments")).toBeGreaterThan(before);
    const theirs = await runSql(
      otherSite,
      "select by_owner from science_comments where user_name = 'Arjun Rao'",
    );
    expect(theirs.map((row) => Number(row.by_owner))).toEqual([0]);

    const run = await admin(owner(sameSite), "import", "--from", "export", signed);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("under the owner's name");
    await expect.poll(async () => (await commentsOf(sameSite, "soap")).total).toBe(2);
    const mine = (await commentsOf(sameSite, "soap")).comments.find(
      (c) => c.userName === "Arjun Rao",
    );
    expect(mine?.byOwner).toBe(true);
  });
});

describe.each(backends)(
  "the owner's name in a file that is not the site's signed export, on %s",
  (backend) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(backend);
    });
    afterAll(() => t?.close());

    it("comes in as a reader's, counted, in any spelling the comment form refuses, and on one the file marks as the owner's", async () => {
      const file = exportFile({
        science_comments: [
          comment(1, { user_name: "ARJUN RAO" }),
          // Cyrillic А, а and о.
          comment(2, { user_name: "\u0410rjun R\u0430\u043e" }),
          comment(3, { user_name: "Arjun R." }),
          comment(4, { user_name: "Arjun Rao, guest" }),
          comment(5, { user_name: "Arjun Rao", by_owner: 1, visitor_id: "owner" }),
          // Another name, the first name alone, a deleted comment's place: as the form takes them.
          comment(6, { user_name: "Arjun" }),
          comment(7, { user_name: "Arjun Raorane" }),
          comment(8, { user_name: "Arjun Rao", deleted_at: "2024-03-02T10:00:00.000Z" }),
        ],
      });
      const env = { ...adminEnv(t), SITE_OWNER_NAME: "Arjun Rao" };
      const run = await admin(env, "import", "--from", "export", file);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        "5 comments under the owner's name, or one like it, come in as a reader's, without the Author badge",
      );
      const owned = await runSql(t, "select by_owner from science_comments where by_owner = 1");
      expect(owned).toEqual([]);
      expect(await count(t, "science_comments")).toBe(8);
    });
  },
);

describe.each(backends)("scheduled editions in an export, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  it("come in to go at their time from the site's own export, but one whose time passed before the import, which the dry run names too", async () => {
    const edition = (id: number, slug: string): Row => ({
      id,
      slug,
      subject: `Edition ${id}`,
      html: "<p>Pressure in numbers.</p>",
      text: "Pressure in numbers.",
      created_at: "2025-01-01T00:00:00.000Z",
    });
    const schedule = (edition_id: number, send_at: string, extra: Row = {}): Row => ({
      edition_id,
      send_at,
      created_at: "2025-01-01T00:00:00.000Z",
      started_at: null,
      queued_at: null,
      ...extra,
    });
    const ahead = new Date(Date.now() + 30 * 86_400_000).toISOString();
    // An edition goes to every subscriber: it is scheduled from the site's own export alone.
    const unsigned = exportFile({
      editions: [edition(3, "03-ahead")],
      edition_schedules: [schedule(3, ahead)],
      outbox: [
        {
          id: 1,
          kind: "edition",
          edition_id: 3,
          email: "stranger@example.org",
          token: null,
          status: "queued",
          attempts: 0,
          next_attempt_at: "2025-01-01T00:00:00.000Z",
          last_error: null,
          created_at: "2025-01-01T00:00:00.000Z",
          sent_at: null,
          feedback: null,
        },
      ],
    });
    const refused = await admin(adminEnv(t), "import", "--from", "export", "--dry-run", unsigned);
    expect(refused.code).toBe(0);
    expect(refused.stdout).toContain(
      "tables.edition_schedules[0]: an edition is scheduled only from this site's own export",
    );
    expect(refused.stdout).toContain(
      "tables.outbox[0]: an edition's mail still to go is sent only from this site's own export",
    );
    expect(refused.stdout).not.toMatch(/edition_schedules: 1|outbox: 1/);
    // The site's own signature of no comments vouches for no edition.
    const own = path.join(scratch(), "own.json");
    expect((await admin(adminEnv(t), "export", "--out", own)).code).toBe(0);
    const { commentsSignature } = JSON.parse(readFileSync(own, "utf8"));
    const commentsOnly = exportFile(
      { editions: [edition(3, "03-ahead")], edition_schedules: [schedule(3, ahead)] },
      { commentsSignature },
    );
    const vouched = await admin(
      adminEnv(t),
      "import",
      "--from",
      "export",
      "--dry-run",
      commentsOnly,
    );
    expect(vouched.stdout).toContain(
      "tables.edition_schedules[0]: an edition is scheduled only from this site's own export",
    );
    const file = signedFile(t, {
      editions: [edition(1, "01-sent"), edition(2, "02-missed"), edition(3, "03-ahead")],
      edition_schedules: [
        // Sent on the old site: history.
        schedule(1, "2025-01-02T07:00:00.000Z", {
          started_at: "2025-01-02T07:00:01.000Z",
          queued_at: "2025-01-02T07:00:09.000Z",
        }),
        // Its time came while the site moved.
        schedule(2, "2025-01-09T07:00:00.000Z"),
        schedule(3, ahead),
      ],
    });
    const missed =
      'tables.edition_schedules[1]: the edition "02-missed" was to go out at 2025-01-09T07:00:00.000Z, which has passed: it is not scheduled here.';

    const dry = await admin(adminEnv(t), "import", "--from", "export", "--dry-run", file);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/edition_schedules: 2 to add/);
    expect(dry.stdout).toContain(missed);
    expect(await count(t, "edition_schedules")).toBe(0);

    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/editions: 3 added/);
    expect(run.stdout).toMatch(/edition_schedules: 2 added/);
    expect(run.stdout).toContain(missed);
    // The owner sees the one ahead waiting for its time; the missed edition is kept, unscheduled.
    const status = await admin(adminEnv(t), "newsletter", "status", "--json");
    const { scheduled } = JSON.parse(status.stdout) as {
      scheduled: { slug: string; sendAt: string; started: boolean }[];
    };
    expect(scheduled).toEqual([{ slug: "03-ahead", sendAt: ahead, started: false }]);
    expect(await runSql(t, "select slug from editions order by id")).toEqual([
      { slug: "01-sent" },
      { slug: "02-missed" },
      { slug: "03-ahead" },
    ]);
  });
});

describe.each(backends)("an import that cannot finish, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  it("is refused by the dry run when a unique key repeats in the file, naming both rows, and writes nothing", async () => {
    const subscribers = Array.from({ length: 600 }, (_, i) => subscriber(i + 1));
    subscribers[559] = subscriber(560, { unsubscribe_token: "token-of-reader-10" });
    const file = exportFile({
      subscribers,
      science_reactions: [reaction(1), reaction(2, { user_name: "Asha again" })],
    });
    const dry = await admin(adminEnv(t), "import", "--from", "export", "--dry-run", file);
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain(
      "tables.subscribers[559].unsubscribe_token: repeats the unsubscribe_token of tables.subscribers[9] (id 10)",
    );
    expect(dry.stderr).toContain(
      "tables.science_reactions[1]: repeats the post_id, type, visitor_id of tables.science_reactions[0] (id 1)",
    );
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/UNIQUE|duplicate key/i);
    expect(await count(t, "subscribers")).toBe(0);
    expect(await count(t, "science_reactions")).toBe(0);
  });

  it("gives a file's subscribers new links: the file's writer knows none of them", async () => {
    // Its writer made these: a token in the clear, as an older version's file holds it,
    // and the seed such a token is kept under.
    const [known, seeded] = [newToken(), newToken()];
    const file = exportFile({
      subscribers: [
        subscriber(501, { unsubscribe_token: known }),
        subscriber(502, { unsubscribe_token: legacySeed(seeded) }),
      ],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("2 unsubscribe or stop links of the file were made anew");
    for (const token of [known, seeded]) {
      expect((await t.visitor().post("/api/unsubscribe", { token })).statusCode).toBe(404);
    }
    expect(await count(t, "subscribers")).toBe(2);
    await runSql(t, "delete from import_sources");
    await runSql(t, "delete from subscribers");
  });

  it("is refused by the dry run when a row would take a key a row of this site holds", async () => {
    // (A file not this site's own gives its unsubscribe links new seeds: an enquiry's digest is kept.)
    const first = await admin(
      adminEnv(t),
      "import",
      "--from",
      "export",
      exportFile({ enquiries: [enquiry(1)] }),
    );
    expect(first.code, first.stderr).toBe(0);
    const file = exportFile({
      enquiries: [enquiry(2), enquiry(77, { deletion_token_hash: "deletion-hash-1" })],
    });
    const dry = await admin(adminEnv(t), "import", "--from", "export", "--dry-run", file);
    expect(dry.code).toBe(1);
    expect(dry.stderr).toMatch(
      /tables\.enquiries\[1\]\.deletion_token_hash: is the deletion_token_hash of enquiries \d+ on this site already/,
    );
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.code).toBe(1);
    expect(await count(t, "enquiries")).toBe(1);
  });

  it("is refused when an address the site would mail is not one address: a list, a header, no address", async () => {
    const file = exportFile({
      subscribers: [
        subscriber(1, { email: "reader-1@example.org, stranger@example.net" }),
        subscriber(2, { email: "reader-2@example.org\r\nBcc: stranger@example.net" }),
        subscriber(3, { email: "not an address" }),
        subscriber(4),
      ],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Nothing was imported: the input has 3 problems.");
    for (const at of [0, 1, 2]) {
      expect(run.stderr).toContain(`tables.subscribers[${at}].email: Enter a valid email address.`);
    }
    expect(await count(t, "subscribers where email like 'reader-%'")).toBe(0);
  });

  it("is refused, naming the row, when a time is in the year 0000, which PostgreSQL has not", async () => {
    const file = exportFile({
      science_comments: [comment(1, { created_at: "0000-06-01T00:00:00.000Z" })],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "tables.science_comments[0].created_at: must be an ISO-8601 UTC time such as 2025-06-01T12:00:00.000Z",
    );
    expect(await count(t, "science_comments")).toBe(0);
  });

  it("is refused, naming the row, when a comment was written in the future, deleted or not, past a clock's minute", async () => {
    const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();
    const [later, deleted] = [ahead(10 * 60_000), "2100-01-01T00:00:00.000Z"];
    const file = exportFile({
      science_comments: [
        comment(1, { created_at: later, updated_at: later }),
        comment(2, { created_at: deleted, updated_at: deleted, deleted_at: deleted }),
        comment(3, { created_at: ahead(20_000) }),
      ],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect([run.code, run.stderr]).toEqual([
      1,
      [
        "Nothing was imported: the input has 2 problems.",
        `  tables.science_comments[0].created_at: ${later} is in the future`,
        `  tables.science_comments[1].created_at: ${deleted} is in the future`,
        "\n",
      ].join("\n"),
    ]);
    expect(await count(t, "science_comments")).toBe(0);
    // A clock a few seconds ahead of this site's is not the future.
    const near = exportFile({ science_comments: [comment(3, { created_at: ahead(20_000) })] });
    const dry = await admin(adminEnv(t), "import", "--from", "export", "--dry-run", near);
    expect([dry.code, dry.stderr]).toEqual([0, ""]);
  });

  it("is refused, naming the row, when a value an index holds is longer than the site writes there", async () => {
    const mention = {
      id: 1,
      source: `https://example.net/${"a".repeat(2000)}`,
      target: "http://localhost/science/soap",
      path: "/science/soap",
      status: "published",
      kind: "mention",
      author_name: null,
      author_url: null,
      content: null,
      received_at: "2024-03-01T10:00:00.000Z",
      verified_at: null,
    };
    const file = exportFile({
      // PostgreSQL's index takes no row of 3,000 bytes; 150 "é" are 300 bytes.
      science_comments: [comment(1, { visitor_id: `imported:test:${"x".repeat(3000)}` })],
      science_reactions: [reaction(1, { visitor_id: "é".repeat(150) })],
      webmentions: [mention],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect([run.code, run.stderr]).toEqual([
      1,
      [
        "Nothing was imported: the input has 3 problems.",
        "  tables.science_comments[0].visitor_id: is longer than 200 bytes",
        "  tables.science_reactions[0].visitor_id: is longer than 200 bytes",
        "  tables.webmentions[0].source: is longer than 2000 bytes",
        "\n",
      ].join("\n"),
    ]);
    expect(await count(t, "science_comments")).toBe(0);
  });

  // Once, on SQLite: the file is refused as it is read, before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("is refused, naming them, when its settings are more than texts and numbers: one nested without end", async () => {
        const file = path.join(scratch(), "site.json");
        // 200 kB of arrays, each in the last: JSON reads it, and the signature's check over it
        // (with the site's cookie secret) overflowed the stack.
        const nested = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
        writeFileSync(
          file,
          `{"format":"engage-with-engineer-export","version":1,"exportedAt":"2025-01-01T00:00:00.000Z","settings":{"SITE_URL":${nested}},"tables":{}}`,
        );
        const run = await admin(adminEnv(t), "import", "--from", "export", file);
        expect([run.code, run.stderr]).toEqual([
          1,
          "Nothing was imported: the input has 1 problem.\n  settings: must be an object of settings, each a text, a number, true, false or null\n\n",
        ]);
      });
    });
  }

  it("is refused, naming the row, when a number is beyond what PostgreSQL's real keeps", async () => {
    const screening = (score: number) => ({
      comment_id: 1,
      outcome: "published",
      reason: null,
      score,
      created_at: "2024-03-01T10:00:00.000Z",
    });
    const file = exportFile({ science_comments: [comment(1)], spam_screening: [screening(1e300)] });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect([run.code, run.stderr]).toEqual([
      1,
      "Nothing was imported: the input has 1 problem.\n  tables.spam_screening[0].score: must be between -3.4e+38 and 3.4e+38\n\n",
    ]);
    expect(await count(t, "science_comments")).toBe(0);
  });
});

describe.each(backends)("an export read into a site with comments of its own, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  it("hangs each imported reply under its imported comment, and a second run adds nothing", async () => {
    const local = json(
      await t.visitor().comment("wifi", "Brick walls slow my signal a lot, I find.", "Ravi"),
      commentResponseSchema,
    );
    const file = exportFile({
      science_comments: [
        comment(local.comment.id),
        comment(local.comment.id + 1, {
          parent_id: local.comment.id,
          user_name: "Meera",
          content: "Calcium ions bind the surfactant first.",
          visitor_id: "imported:test:meera",
          created_at: "2024-03-01T11:00:00.000Z",
          updated_at: "2024-03-01T11:00:00.000Z",
        }),
      ],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/science_comments: 2 added/);

    await expect.poll(async () => (await commentsOf(t, "soap")).total).toBe(2);
    const [first, reply] = (await commentsOf(t, "soap")).comments;
    expect(first?.content).toBe("Hard water wastes soap, and the scum shows it.");
    expect(first?.id).not.toBe(local.comment.id);
    expect(reply?.parentId).toBe(first?.id);
    const wifi = await commentsOf(t, "wifi");
    expect(wifi.total).toBe(1);
    expect(wifi.comments.map((c) => c.id)).toEqual([local.comment.id]);

    const again = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/science_comments: 0 added, 2 already there/);
    expect(await count(t, "science_comments")).toBe(3);
  });

  it("keeps no record of earlier imports from a file not its own, so none stands in for a later file's row", async () => {
    // This file's writer read comment 70 and its time off the old site's public page, and
    // says the site brought it in before as their own comment 60.
    const taken = {
      created_at: "2024-04-01T10:00:00.000Z",
      updated_at: "2024-04-01T10:00:00.000Z",
    };
    const run = await admin(
      adminEnv(t),
      "import",
      "--from",
      "export",
      exportFile({
        science_comments: [comment(60, { user_name: "Mallory", content: "Soap is a scam." })],
        import_sources: [
          {
            source: "export",
            source_id: `science_comments:70:${taken.created_at}`,
            row_table: "science_comments",
            row_id: 60,
            imported_at: "2024-05-01T10:00:00.000Z",
          },
        ],
      }),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      "1 record of an earlier import was left out: the site keeps what it imported before only from its own export",
    );
    // Then the old site's own export, with comment 70 and a reply to it.
    const move = await admin(
      adminEnv(t),
      "import",
      "--from",
      "export",
      signedFile(t, {
        science_comments: [
          comment(70, { user_name: "Anjali", content: "Soap lifts the grease.", ...taken }),
          comment(71, { parent_id: 70, user_name: "Kiran", content: "Thanks, Anjali." }),
        ],
      }),
    );
    expect(move.code, move.stderr).toBe(0);
    expect(move.stdout).toMatch(/science_comments: 2 added/);
    const [anjali] = await runSql(t, "select id from science_comments where user_name = 'Anjali'");
    expect(
      await runSql(t, "select parent_id from science_comments where user_name = 'Kiran'"),
    ).toEqual([{ parent_id: anjali?.id }]);
  });
});

describe.each(backends)("ids in an export, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  it("are refused at the top of the range, at 0 and below, in a row or a reference, so new comments still get ids", async () => {
    const file = exportFile({
      science_comments: [comment(2_147_483_647), comment(0), comment(-5)],
      spam_screening: [
        {
          comment_id: 1_500_000_000,
          outcome: "published",
          reason: null,
          score: null,
          created_at: "2024-03-01T10:00:00.000Z",
        },
      ],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.code).toBe(1);
    const idMessage =
      "must be an id from 1 to 1000000000, so that the site has ids left for its new rows";
    expect(run.stderr).toContain("Nothing was imported: the input has 4 problems.");
    for (const place of [
      "tables.science_comments[0].id",
      "tables.science_comments[1].id",
      "tables.science_comments[2].id",
      "tables.spam_screening[0].comment_id",
    ]) {
      expect(run.stderr).toContain(`${place}: ${idMessage}`);
    }
    expect(await count(t, "science_comments")).toBe(0);

    // The site's next comment has an id its reader can edit it by.
    const reader = t.visitor();
    const posted = json(
      await reader.comment("soap", "Soft water rinses away more easily.", "Ravi"),
      commentResponseSchema,
    );
    const edited = await reader.patch(`/api/comments/${posted.comment.id}`, {
      content: "Soft water rinses away far more easily.",
      userName: "Ravi",
    });
    expect(edited.statusCode).toBe(200);
  });
});

const recently = new Date(Date.now() - 10 * 86_400_000).toISOString();
const enquiry = (id: number, extra: Row = {}): Row => ({
  id,
  name: "Priya Raman",
  email: `priya-${id}@example.org`,
  service: "dfmea",
  organisation: null,
  timeline: null,
  message: "A DFMEA workshop for six engineers, please.",
  status: "new",
  kept: 0,
  ip_hash: "hash-of-address",
  thread_id: `<ack-${id}@ewe.test>`,
  deletion_token_hash: `deletion-hash-${id}`,
  // Within ENQUIRY_RETENTION_DAYS: the running site's hourly retention, whose first round
  // may come late on a busy machine, would delete an older one between two imports.
  created_at: recently,
  updated_at: recently,
  ...extra,
});

const booking = (id: number, extra: Row = {}): Row => ({
  id,
  starts_at: `2024-03-0${id}T10:00:00.000Z`,
  ends_at: `2024-03-0${id}T10:30:00.000Z`,
  name: "Meera Iyer",
  email: `meera-${id}@example.org`,
  service: "dfmea",
  note: "A second opinion on our DFMEA.",
  reader_zone: "Asia/Kolkata",
  status: "booked",
  uid: `booking.${id}@ewe.test`,
  sequence: 0,
  meeting_url: null,
  token_hash: `token-hash-${id}`,
  visitor_id: null,
  ip_hash: "hash-of-address",
  address_hash: `hash-of-mailbox-${id}`,
  cancelled_by: null,
  cancel_message: null,
  created_at: "2024-03-01T10:00:00.000Z",
  updated_at: "2024-03-01T10:00:00.000Z",
  ...extra,
});

describe.each(backends)("enquiries and booked calls in an export, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    // The calls imported here are of 2024, past the default 180 days: the
    // clean-up an app runs as it starts, one of several in turn, deleted the
    // call the last test finds whenever it ran after that call's import.
    t = await startTestApp(backend, { env: { BOOKING_RETENTION_DAYS: "3650" } });
  });
  afterAll(() => t?.close());

  it("are refused where the forms would refuse them: hidden or text-direction characters, lengths, blank names, a room not on https", async () => {
    const file = exportFile({
      enquiries: [
        enquiry(1, { name: "Priya \u202Eraman" }),
        enquiry(2, { organisation: "Acme\r\nBcc: stranger@example.net" }),
        enquiry(3, { timeline: "T".repeat(121) }),
        enquiry(4, { message: "Call me \u2067back\u2069 soon, about the DFMEA." }),
        enquiry(5, { name: "   " }),
        enquiry(6, { organisation: "Acme Gears", timeline: "Spring" }),
      ],
      bookings: [
        booking(1, { name: "M".repeat(101) }),
        booking(2, { note: "Agenda:\u0007 the \u202Ebell\u202C" }),
        booking(3),
        // The console links to a call's room, and the reader's mails carry it.
        booking(4, { meeting_url: "javascript:alert(document.cookie)" }),
        booking(5, { meeting_url: "http://room.example/call" }),
        // The owner's moves are some of the changes its sequence counts, never more.
        booking(6, { sequence: 1, owner_moves: 2 }),
        booking(7, { owner_moves: -1 }),
      ],
    });
    const dry = await admin(adminEnv(t), "import", "--from", "export", "--dry-run", file);
    expect(dry.code).toBe(1);
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Nothing was imported: the input has 11 problems.");
    for (const line of [
      "tables.enquiries[0].name: Your name must be one line, without control or invisible characters.",
      "tables.enquiries[1].organisation: Organisation must be one line, without control or invisible characters.",
      "tables.enquiries[2].timeline: Timeline is at most 120 characters.",
      "tables.enquiries[3].message: The message cannot contain control or text-direction characters.",
      "tables.enquiries[4].name: Enter your name.",
      "tables.bookings[0].name: Your name is at most 100 characters.",
      "tables.bookings[1].note: The note cannot contain control or text-direction characters.",
      "tables.bookings[3].meeting_url: The meeting address must start with https://.",
      "tables.bookings[4].meeting_url: The meeting address must start with https://.",
      "tables.bookings[5].owner_moves: must be from 0 to the call's sequence: the owner's moves are some of its changes",
      "tables.bookings[6].owner_moves: must be from 0 to the call's sequence: the owner's moves are some of its changes",
    ]) {
      expect(dry.stderr).toContain(line);
      expect(run.stderr).toContain(line);
    }
    expect(await count(t, "enquiries")).toBe(0);
    expect(await count(t, "bookings")).toBe(0);

    // What the forms take comes in.
    const fine = exportFile({
      enquiries: [enquiry(6, { organisation: "Acme Gears", timeline: "Spring" })],
      bookings: [
        booking(3, {
          meeting_url: "https://meet.jit.si/EngageWithEngineer-abc",
          sequence: 2,
          owner_moves: 1,
        }),
        // A file of a version before the owner could move a call: none of its moves were the owner's.
        booking(5),
      ],
    });
    const imported = await admin(adminEnv(t), "import", "--from", "export", fine);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    expect(await runSql(t, "select name, organisation, timeline from enquiries")).toEqual([
      { name: "Priya Raman", organisation: "Acme Gears", timeline: "Spring" },
    ]);
    expect(await runSql(t, "select id, owner_moves from bookings order by id")).toEqual([
      { id: 3, owner_moves: 1 },
      { id: 5, owner_moves: 0 },
    ]);
  });

  it("are refused, naming the rows, when two calls still booked are at one time, in the file or with one of the site's", async () => {
    const at = (id: number, starts_at: string, extra: Row = {}) =>
      booking(id, { starts_at, ends_at: starts_at.replace("T10:00", "T10:30"), ...extra });
    const file = exportFile({
      bookings: [
        at(11, "2024-05-01T10:00:00.000Z"),
        at(12, "2024-05-01T10:00:00.000Z"),
        // A cancelled call leaves its time free.
        at(13, "2024-05-01T10:00:00.000Z", { status: "cancelled", cancelled_by: "reader" }),
        // The time of the call the site has (imported above).
        at(14, "2024-03-03T10:00:00.000Z"),
      ],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/UNIQUE|duplicate key/i);
    expect(run.stderr).toContain(
      "tables.bookings[1].starts_at: repeats the starts_at of tables.bookings[0] (id 11)",
    );
    const dry = await admin(
      adminEnv(t),
      "import",
      "--from",
      "export",
      "--dry-run",
      exportFile({
        bookings: [at(13, "2024-05-01T10:00:00.000Z"), at(14, "2024-03-03T10:00:00.000Z")],
      }),
    );
    expect(dry.code).toBe(1);
    expect(dry.stderr).toMatch(
      /tables\.bookings\[1\]\.starts_at: is the starts_at of bookings 3 on this site already/,
    );
    expect(dry.stderr).not.toContain("tables.bookings[0]");
    expect(await count(t, "bookings")).toBe(2);
  });
});

describe.each(backends)(
  "comments and reactions on items the site does not have, on %s",
  (backend) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(backend);
    });
    afterAll(() => t?.close());

    it("are left out with their replies and writers, each listed in the report, and the rest comes in", async () => {
      const unknown = "p".repeat(150);
      const onStory = (id: number, story_id: string): Row => {
        const { post_id: _, ...rest } = reaction(id, { type: "love" });
        return { ...rest, story_id };
      };
      const file = exportFile({
        science_comments: [
          comment(1),
          comment(2, { post_id: "no-such-post" }),
          // A reply, before the comment it answers, which is on a post id too long to quote whole.
          comment(3, { parent_id: 4 }),
          comment(4, { post_id: unknown }),
          comment(5, { parent_id: 1, user_name: "Meera" }),
        ],
        fediverse_replies: [
          {
            comment_id: 2,
            note_id: "https://social.example/notes/2",
            actor_id: "https://social.example/users/asha",
            handle: "@asha@social.example",
            name: "Asha",
            url: "https://social.example/@asha/2",
            avatar: null,
            created_at: "2024-03-01T10:00:00.000Z",
          },
        ],
        science_reactions: [reaction(1), reaction(2, { post_id: "no-such-post" })],
        mythology_reactions: [onStory(1, "garuda"), onStory(2, "no-such-story")],
      });
      const dry = await admin(adminEnv(t), "import", "--from", "export", "--dry-run", file);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(/science_comments: 2 to add/);
      expect(dry.stdout).toContain("Skipped 6:");

      const run = await admin(adminEnv(t), "import", "--from", "export", file);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/science_comments: 2 added/);
      expect(run.stdout).toMatch(/fediverse_replies: 0 added/);
      expect(run.stdout).toMatch(/science_reactions: 1 added/);
      expect(run.stdout).toMatch(/mythology_reactions: 1 added/);
      const shown = `"${"p".repeat(60)}…"`;
      for (const line of [
        "Skipped 6:",
        'tables.science_comments[1]: its post "no-such-post" matches no science post',
        "tables.science_comments[2]: it refers to science_comments 4, which is not imported",
        `tables.science_comments[3]: its post ${shown} matches no science post`,
        "tables.fediverse_replies[0]: it refers to science_comments 2, which is not imported",
        'tables.science_reactions[1]: its post "no-such-post" matches no science post',
        'tables.mythology_reactions[1]: its story "no-such-story" matches no story',
      ]) {
        expect(run.stdout).toContain(line);
      }
      expect(run.stdout.length).toBeLessThan(5_000);
      expect(await runSql(t, "select id, post_id from science_comments order by id")).toEqual([
        { id: 1, post_id: "soap" },
        { id: 5, post_id: "soap" },
      ]);
      expect(await count(t, "fediverse_replies")).toBe(0);
      await expect.poll(async () => (await commentsOf(t, "soap")).total).toBe(2);
    });
  },
);
