import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase, dropDatabase } from "../support/postgres.ts";
import { projectRoot } from "../support/server-process.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { runSql } from "./support/sql.ts";

/*
 * docs/backups.md's PostgreSQL backup and restore, run as the page writes
 * them, into an empty database: what a restore onto a new server is.
 */

const docs = readFileSync(path.join(projectRoot, "docs/backups.md"), "utf8");
/** The page's command that starts with `start`, from its code span. */
const documented = (start: string): string => {
  const command = new RegExp(`\`(\\(?${start}[^\`]*)\``).exec(docs)?.[1];
  if (!command) throw new Error(`docs/backups.md names no \`${start} …\` command`);
  return command;
};

const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-pg-backup-"));
const databases: string[] = [];
afterAll(async () => {
  await Promise.all(databases.map(dropDatabase));
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs one documented command in bash, in the scratch folder, on `databaseUrl`. */
function shell(command: string, databaseUrl: string) {
  return new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(
      "bash",
      ["--norc", "--noprofile", "-c", command],
      { cwd: scratch, env: { PATH: process.env.PATH ?? "", DATABASE_URL: databaseUrl } },
      (error, _stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stderr: stderr.toString() }),
    );
  });
}

describe("the PostgreSQL backup in docs/backups.md", () => {
  it("restores into an empty database without an error, and the subscribers are back", async () => {
    const site = await createDatabase(
      inject("postgresUrl"),
      "ewe_backup",
      inject("postgresTemplate"),
    );
    const empty = await createDatabase(inject("postgresUrl"), "ewe_restore");
    databases.push(site, empty);
    const dataDir = path.join(scratch, "data");
    await runSql(
      { databaseUrl: site, dataDir },
      "insert into subscribers (email, unsubscribe_token, created_at, status, confirmed_at) values (?, ?, now(), 'confirmed', now())",
      ["kept@example.com", "a-token-for-the-backup-test"],
    );

    expect(await shell(documented("\\(umask 077; pg_dump"), site)).toEqual({ code: 0, stderr: "" });
    expect(statSync(path.join(scratch, "ewe.dump")).mode & 0o777).toBe(0o600);
    expect(await shell(documented("pg_restore"), empty)).toEqual({ code: 0, stderr: "" });

    const listed = await admin(adminEnv({ databaseUrl: empty, dataDir }), "subscribers", "list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/kept@example\.com\tconfirmed/);
  });
});
