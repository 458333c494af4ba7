import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fakeBuiltSite } from "../../support/built-site.ts";
import {
  generousLimits,
  processSiteUrl,
  projectRoot,
  type ServerProcess,
  startServerProcess,
} from "../../support/server-process.ts";
import { httpVisitor } from "../../support/visitor.ts";
import { admin } from "../support/admin.ts";
import { json, readinessSchema, startTestApp } from "../support/test-app.ts";

/*
 * A SQLite database of zero bytes beside the cookie secret of an earlier
 * start was lost or truncated (docs/backups.md): the server refuses to start
 * on it, saying what happened, how to restore the backup and how to start
 * afresh on purpose, rather than run the site empty without a word.
 */

/** An answer's JSON body, as the test reads it. */

const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-lost-database-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const clientRoot = fakeBuiltSite();

/**
 * Starts `node server/main.ts` on `dataDir` and reports how that went: its
 * exit (code and output), or that it started listening (then it is stopped).
 */
function startOnce(
  dataDir: string,
): Promise<{ started: boolean; code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(projectRoot, "server/main.ts")], {
      env: {
        PATH: process.env.PATH ?? "",
        HOST: "127.0.0.1",
        PORT: "0",
        SITE_URL: processSiteUrl,
        CLIENT_ROOT: clientRoot,
        DATA_DIR: dataDir,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let started = false;
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (!started && output.includes("Server listening at")) {
        started = true;
        child.kill("SIGKILL");
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code) => resolve({ started, code, output }));
  });
}

describe("a database of zero bytes beside an earlier start's cookie secret", () => {
  const dataDir = path.join(scratch, "data");
  const database = path.join(dataDir, "engage.sqlite");
  const backup = path.join(scratch, "engage-backup.sqlite");
  let server: ServerProcess | undefined;
  afterAll(() => server?.stop("SIGKILL"));

  it("refuses to start, saying what happened and what to do, and starts once restored", async () => {
    // A site with a comment, backed up.
    server = await startServerProcess({
      env: { CLIENT_ROOT: clientRoot, DATA_DIR: dataDir, ...generousLimits },
    });
    expect((await httpVisitor(server.url).comment("wifi", "Kept in the backup")).statusCode).toBe(
      201,
    );
    await server.stop("SIGTERM");
    server = undefined;
    const env = { NODE_ENV: "test", SITE_URL: processSiteUrl, DATA_DIR: dataDir };
    expect((await admin(env, "backup", "--out", backup)).code).toBe(0);

    // The database is lost: its file truncated, the cookie secret beside it.
    truncateSync(database, 0);
    for (const suffix of ["-wal", "-shm"]) rmSync(`${database}${suffix}`, { force: true });
    expect(existsSync(path.join(dataDir, "cookie-secret"))).toBe(true);

    const refused = await startOnce(dataDir);
    expect(refused.started).toBe(false);
    expect(refused.code).toBe(1);
    const message = JSON.parse(refused.output.trim()) as { level: number; msg: string };
    expect(message.level).toBe(60);
    expect(message.msg).toContain(`could not start: The database ${database} is empty (0 bytes)`);
    expect(message.msg).toContain("lost or truncated");
    expect(message.msg).toContain("npm run admin -- restore --from FILE");
    expect(message.msg).toContain(
      "To start with an empty database on purpose, delete the empty file",
    );
    // Nothing was written in its place.
    expect(statSync(database).size).toBe(0);
    expect(existsSync(`${database}-wal`)).toBe(false);

    // Restored from the backup, the site starts with its comment.
    expect((await admin(env, "restore", "--from", backup)).code).toBe(0);
    server = await startServerProcess({
      env: { CLIENT_ROOT: clientRoot, DATA_DIR: dataDir, ...generousLimits },
    });
    const comments = await httpVisitor(server.url).get("/api/items/science/wifi/comments");
    expect(comments.body).toContain("Kept in the backup");
  });

  it("starts afresh when the owner deletes the empty file", async () => {
    const fresh = path.join(scratch, "fresh");
    mkdirSync(fresh, { mode: 0o700 });
    writeFileSync(path.join(fresh, "cookie-secret"), "s".repeat(43), { mode: 0o600 });
    writeFileSync(path.join(fresh, "engage.sqlite"), "", { mode: 0o600 });
    expect((await startOnce(fresh)).code).toBe(1);

    rmSync(path.join(fresh, "engage.sqlite"));
    const started = await startOnce(fresh);
    expect(started.started).toBe(true);
    expect(statSync(path.join(fresh, "engage.sqlite")).size).toBeGreaterThan(0);
  });

  it("writes the cookie secret only once the database is in place", async () => {
    // A start that fails on its database leaves no secret, so the next is no earlier start's.
    const broken = path.join(scratch, "broken");
    mkdirSync(broken, { mode: 0o700 });
    writeFileSync(path.join(broken, "engage.sqlite"), "not a database, but not empty either");
    await expect(startTestApp("sqlite", { dataDir: broken })).rejects.toThrow();
    expect(existsSync(path.join(broken, "cookie-secret"))).toBe(false);

    // An empty file and no secret: a first start that stopped early, and this one goes on.
    const first = path.join(scratch, "first");
    mkdirSync(first, { mode: 0o700 });
    writeFileSync(path.join(first, "engage.sqlite"), "", { mode: 0o600 });
    const t = await startTestApp("sqlite", { dataDir: first });
    try {
      const ready = await t.app.inject({ method: "GET", url: "/readyz" });
      expect(json(ready, readinessSchema)).toMatchObject({ status: "ready" });
      expect(existsSync(path.join(first, "cookie-secret"))).toBe(true);
    } finally {
      await t.close();
    }
  });
});
