import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { migrateToLatest, openStore } from "../../../server/db/store.ts";
import { admin } from "../support/admin.ts";
import { siteUrl } from "../support/test-app.ts";

/*
 * The owner's command runs while the server writes (docs/command-line.md):
 * on SQLite a command's write waits for another process's write to end
 * instead of failing after the server's five seconds ("database is locked").
 */

it("a command's write waits out another process's write that lasts longer than the server's wait", async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-command-line-waits-"));
  const file = path.join(dataDir, "engage.sqlite");
  const store = await openStore({ kind: "sqlite", file });
  await migrateToLatest(store);
  await store.close();
  const env = { NODE_ENV: "test", SITE_URL: siteUrl, DATA_DIR: dataDir };
  // Another process (a busy server) holds SQLite's write lock for 12 s: longer
  // than the command's two waits on it at the server's 5 s (its start's
  // checkpoint, then its write).
  const holder = spawn(
    process.execPath,
    [
      "-e",
      `const { DatabaseSync } = require("node:sqlite");
       const db = new DatabaseSync(${JSON.stringify(file)});
       db.exec("begin immediate");
       console.log("holding");
       setTimeout(() => { db.exec("commit"); db.close(); }, 12_000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const [first] = (await once(holder.stdout, "data")) as [Buffer];
  expect(first.toString()).toContain("holding");
  const started = Date.now();
  const run = await admin(env, "sessions", "revoke", "--all");
  expect(run.code, run.stderr).toBe(0);
  // It did wait: the write went in once the other process's had ended.
  expect(Date.now() - started).toBeGreaterThan(10_000);
  await once(holder, "exit");
  const trail = JSON.parse((await admin(env, "audit", "--json")).stdout) as { action: string }[];
  expect(trail.map((entry) => entry.action)).toContain("session revoke");
}, 60_000);

it("a transaction that reads, then writes, is not refused because another process wrote between", async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-command-line-snapshot-"));
  const file = path.join(dataDir, "engage.sqlite");
  const store = await openStore({ kind: "sqlite", file, busyTimeoutMs: 60_000 });
  await migrateToLatest(store);
  const token = (name: string) => ({ token: name, expires_at: new Date(0).toISOString() });
  let other: { code: number | null; stderr: string } | undefined;
  await store.db.transaction().execute(async (trx) => {
    await trx.selectFrom("spent_form_tokens").select("token").execute();
    // Another process (the server) writes after this one has read: a
    // transaction that took no write lock at its start would now be refused
    // at once (SQLite's stale snapshot, which no busy timeout waits out).
    const writer = spawn(
      process.execPath,
      [
        "-e",
        `const { DatabaseSync } = require("node:sqlite");
         const db = new DatabaseSync(${JSON.stringify(file)}, { timeout: 500 });
         db.prepare("insert into spent_form_tokens (token, expires_at) values (?, ?)").run("other", "1970-01-01T00:00:00.000Z");`,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    writer.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = (await once(writer, "exit")) as [number | null];
    other = { code, stderr };
    await trx.insertInto("spent_form_tokens").values(token("ours")).execute();
  });
  // The other process waited for this one's write lock, and gave up after its
  // half second: the writes did not interleave.
  expect(other?.stderr).toContain("database is locked");
  const rows = await store.db.selectFrom("spent_form_tokens").select("token").execute();
  expect(rows.map((row) => row.token)).toEqual(["ours"]);
  await store.close();
}, 30_000);
