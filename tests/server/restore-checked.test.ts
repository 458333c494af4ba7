import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Migrator } from "kysely/migration";
import { expect, it } from "vitest";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import { migrations } from "../../server/db/migrations.ts";
import { openStore } from "../../server/db/store.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { requestSubscription } from "./support/newsletter.ts";
import { json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * What a restore does on a bad day (docs/backups.md, "Backups"): a backup whose tables are
 * not what its migrations say is refused before anything changes (it was put in place,
 * and the restore failed half way on it, the console's sessions not ended), and so is one
 * holding what the site never writes (a broken CHECK, a time that is none, a value of
 * another type, a row that refers to none); one an older
 * version made is migrated and served; one cut short is refused; a comment's HTML is
 * rendered again from its text; what was deleted since the backup is named.
 */

const folder = () => mkdtempSync(path.join(os.tmpdir(), "ewe-restore-checked-"));
const env = { COOKIE_SECRET: "restore-checked-tests-cookie-secret-0123456" };

const commentsOn = async (site: TestApp, post: string) =>
  json(
    await site.visitor().get(`/api/items/science/${post}/comments`),
    commentsResponseSchema,
  ).comments.map((c) => c.content);

/** The comments on soap the site serves when started again on its DATA_DIR. */
async function commentsOnceStarted(site: TestApp): Promise<string[]> {
  const again = await startTestApp("sqlite", { dataDir: site.dataDir, env });
  try {
    return await commentsOn(again, "soap");
  } finally {
    await again.close();
  }
}

/** A site with a comment in its backup and one after; the backup's file. */
async function siteWithBackup(): Promise<{ site: TestApp; backup: string }> {
  const site = await startTestApp("sqlite", { dataDir: path.join(folder(), "data"), env });
  await site.visitor().comment("soap", "before the backup");
  const backup = path.join(folder(), "b.sqlite");
  expect((await admin({ ...adminEnv(site), ...env }, "backup", "--out", backup)).code).toBe(0);
  await site.visitor().comment("soap", "after the backup");
  await site.close();
  return { site, backup };
}

it.each([
  [
    "a table remade without its columns",
    "drop table owner_sessions; create table owner_sessions (id text primary key)",
    "lacks table owner_sessions: column token_hash TEXT not null",
  ],
  [
    "a table the site never makes",
    "create table planted (x text)",
    "holds table planted: column x",
  ],
  [
    "an index dropped",
    "drop index science_comments_by_post",
    "lacks index science_comments_by_post on science_comments",
  ],
])(
  "refuses a backup with %s under its migrations' names, and changes nothing",
  async (_, change, said) => {
    const { site, backup } = await siteWithBackup();
    using planted = new DatabaseSync(backup);
    planted.exec(change);
    const run = await admin({ ...adminEnv(site), ...env }, "restore", "--from", backup);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      "The backup is not made as this version of the site makes its database, whatever its migrations say (it ",
    );
    expect(run.stderr).toContain(said);
    expect(run.stderr).toMatch(
      /: it was changed by hand, or is not one of its backups; nothing was changed\.\n$/,
    );
    // Nothing put aside, nothing half-made left beside the database.
    expect(readdirSync(site.dataDir).filter((name) => name.startsWith("engage."))).toEqual([
      "engage.sqlite",
    ]);
    expect(await commentsOnceStarted(site)).toEqual(["before the backup", "after the backup"]);
  },
);

it.each([
  [
    "a status its CHECK refuses",
    "pragma ignore_check_constraints = on; update science_comments set status = 'weird'",
    "it fails SQLite's integrity check (CHECK constraint failed in science_comments)",
  ],
  [
    "a time that is none",
    "update science_comments set created_at = 'yesterday'",
    "science_comments row 1 holds no time in created_at",
  ],
  [
    "text where a number goes",
    "update science_comments set parent_id = 'the first'",
    "science_comments row 1 holds a value that is not integer in parent_id",
  ],
  [
    "bytes where text goes",
    "update science_comments set content = x'00ff00'",
    "science_comments row 1 holds a value that is not text in content",
  ],
  [
    "a row that refers to none",
    "pragma foreign_keys = off; insert into confirmation_tokens (token_hash, subscriber_id, expires_at) values ('planted', 4242, '2030-01-01T00:00:00.000Z')",
    "confirmation_tokens row 1 refers to a row of subscribers that it does not hold",
  ],
  // Checked by the comments' step of the restore (server/comments/restored.ts): no key keeps them.
  [
    "a reply whose comment it does not hold",
    "insert into science_comments (post_id, content, user_name, visitor_id, created_at, updated_at, parent_id) values ('soap', 'an answer', 'Ravi', 'v2', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', 4242)",
    "science_comments row 2 answers comment 4242, which it does not hold",
    "comments",
  ],
  [
    "a reply on another post than its comment",
    "insert into science_comments (post_id, content, user_name, visitor_id, created_at, updated_at, parent_id) values ('wifi', 'an answer', 'Ravi', 'v2', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', 1)",
    "science_comments row 2 answers comment 1, a comment on another post",
    "comments",
  ],
  [
    "a reply to a reply",
    "insert into science_comments (post_id, content, user_name, visitor_id, created_at, updated_at, parent_id) values ('soap', 'an answer', 'Ravi', 'v2', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z', 1), ('soap', 'an answer to it', 'Mei', 'v3', '2026-01-03T00:00:00.000Z', '2026-01-03T00:00:00.000Z', 2)",
    "science_comments row 3 answers comment 2, itself a reply: replies are one level deep",
    "comments",
  ],
])(
  "refuses a backup holding %s, saying so, and changes nothing",
  async (_, change, said, step?: string) => {
    const { site, backup } = await siteWithBackup();
    using planted = new DatabaseSync(backup);
    planted.exec(change);
    const run = await admin({ ...adminEnv(site), ...env }, "restore", "--from", backup);
    expect(run.stdout).toBe("");
    const readied = step ? `The backup could not be readied in ${site.dataDir}: ` : "";
    expect(run.stderr).toBe(
      `${readied}The backup holds what this site never writes: ${said}; nothing was changed.\n`,
    );
    expect(run.code).toBe(1);
    expect(readdirSync(site.dataDir).filter((name) => name.startsWith("engage."))).toEqual([
      "engage.sqlite",
    ]);
    expect(await commentsOnceStarted(site)).toEqual(["before the backup", "after the backup"]);
  },
);

it("restores a backup an older version made: migrated, it serves its comments", async () => {
  const old = path.join(folder(), "old.sqlite");
  const store = await openStore({ kind: "sqlite", file: old });
  try {
    const migrator = new Migrator({
      db: store.db,
      provider: { getMigrations: async () => migrations(store.kind) },
    });
    expect((await migrator.migrateTo("010_comment_threads")).error).toBeUndefined();
  } finally {
    await store.close();
  }
  using db = new DatabaseSync(old);
  const at = new Date(Date.now() - 86_400_000).toISOString();
  db.prepare(
    "insert into science_comments (post_id, content, user_name, visitor_id, created_at, updated_at) values ('wifi', 'from an older version', 'Asha', 'v1', ?, ?)",
  ).run(at, at);
  const dataDir = path.join(folder(), "data");
  const run = await admin(
    { ...adminEnv({ dataDir, databaseUrl: undefined }), ...env },
    "restore",
    "--from",
    old,
  );
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const site = await startTestApp("sqlite", { dataDir, env });
  try {
    expect(await commentsOn(site, "wifi")).toEqual(["from an older version"]);
  } finally {
    await site.close();
  }
});

it("names the comments and subscribers deleted since the backup, which it brings back", async () => {
  const dataDir = path.join(folder(), "data");
  let site = await startTestApp("sqlite", { dataDir, env });
  const at = { ...adminEnv(site), ...env };
  await site.visitor().comment("soap", "erase me later");
  await site.visitor().comment("soap", "kept");
  // Kept as spam when the backup was taken, and deleted since: back, but not for readers.
  const junk = json(
    await site.visitor().comment("soap", "cheap watches here", "Spammer"),
    commentResponseSchema,
  ).comment.id;
  expect((await admin(at, "comments", "spam", String(junk))).code).toBe(0);
  await requestSubscription(site, "leaving@example.org");
  await requestSubscription(site, "staying@example.org");
  await requestSubscription(site, "back@example.org");
  const backup = path.join(folder(), "b.sqlite");
  expect((await admin(at, "backup", "--out", backup)).code).toBe(0);
  const [erased] = json(
    await site.visitor().get("/api/items/science/soap/comments"),
    commentsResponseSchema,
  ).comments;
  expect((await admin(at, "comments", "delete", String(erased?.id))).code).toBe(0);
  expect((await admin(at, "comments", "delete", String(junk))).code).toBe(0);
  expect((await admin(at, "subscribers", "remove", "leaving@example.org")).code).toBe(0);
  // Gone and back since, under a new id: still there.
  expect((await admin(at, "subscribers", "remove", "back@example.org")).code).toBe(0);
  await requestSubscription(site, "Back@example.org");
  await site.close();

  const run = await admin(at, "restore", "--from", backup);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(
    `1 comment the backup holds was deleted since, in the database it replaced (by its writer, or by you): restored, it is on the site again. Delete again each that was not deleted by mistake (\`comments delete ID\`), above all a reader's who asked for it:\n  ${erased?.id}  ${erased?.userName}\n`,
  );
  expect(run.stdout).toContain(
    `1 comment the backup holds was deleted since, in the database it replaced (by its writer, or by you): restored, it is kept again as held or spam, which readers do not see. Delete again each that was not deleted by mistake (\`comments delete ID\`), above all a reader's who asked for it:\n  ${junk}  Spammer\n`,
  );
  expect(run.stdout).toContain(
    "1 subscriber the backup holds was unsubscribed or removed since, in the database it replaced: restored, it is mailed the newsletter again. Before the start, remove each that did not leave by mistake (`subscribers remove EMAIL`):\n  leaving@example.org\n",
  );
  expect(run.stdout).not.toMatch(/staying@|back@/i);
  site = await startTestApp("sqlite", { dataDir, env });
  try {
    expect(await commentsOn(site, "soap")).toEqual(["erase me later", "kept"]);
  } finally {
    await site.close();
  }
  expect(existsSync(path.join(dataDir, "engage.sqlite.restoring"))).toBe(false);
});

it("refuses a backup cut short, by half or by one byte, saying so, and changes nothing", async () => {
  const { site, backup } = await siteWithBackup();
  const whole = readFileSync(backup);
  for (const size of [Math.floor(whole.length / 2), whole.length - 1]) {
    const cut = path.join(folder(), "cut.sqlite");
    writeFileSync(cut, whole.subarray(0, size));
    const run = await admin({ ...adminEnv(site), ...env }, "restore", "--from", cut);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `The backup ${cut} is cut short: it has ${size} bytes of the ${whole.length} its pages take (a copy or download stopped half way?). Restore a whole copy of it.\n`,
    );
  }
  expect(await commentsOnceStarted(site)).toEqual(["before the backup", "after the backup"]);
});

it("renders a restored comment's HTML again from its text: a backup's own is shown as it is", async () => {
  const { site, backup } = await siteWithBackup();
  {
    using planted = new DatabaseSync(backup);
    planted.exec(
      `update science_comments set content_html = '<p>before the backup</p><form action="https://elsewhere.example/"><input name="password"></form><img src=x onerror="alert(1)">'`,
    );
  }
  const run = await admin({ ...adminEnv(site), ...env }, "restore", "--from", backup);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(
    "1 comment in the backup had HTML other than its text renders to (rendered by an earlier version, changed by hand, or not one of the site's backups): rendered again from its text.\n",
  );
  const again = await startTestApp("sqlite", { dataDir: site.dataDir, env });
  try {
    const { comments } = json(
      await again.visitor().get("/api/items/science/soap/comments"),
      commentsResponseSchema,
    );
    expect(comments.map((c) => c.html)).toEqual(["<p>before the backup</p>"]);
  } finally {
    await again.close();
  }
});
