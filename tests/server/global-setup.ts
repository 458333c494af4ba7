import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { ensureSpamModel } from "../../scripts/spam-model.ts";
import { migrateToLatest, openStore, type Store } from "../../server/db/store.ts";
import { keyPairsOf } from "../../server/fediverse/federation.ts";
import { createDatabase, dropDatabase, startPostgres } from "../support/postgres.ts";

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
    /** A database with every migration applied, that test apps start from a copy of. */
    postgresTemplate: string;
    /** The same on SQLite: a migrated database file, copied into a new app's data folder. */
    sqliteTemplate: string;
  }
}

/**
 * One PostgreSQL server for the whole run; every test file makes its own
 * databases on it. What the run writes goes to a folder in memory where there
 * is one: SQLite's commits then cost no disk flush (the durability tests
 * check the settings, not the disk), and the folder goes with the run.
 */
export default async function setup(project: TestProject) {
  // The spam classifier's model, as the build writes it, when its corpus changed.
  ensureSpamModel();
  const scratch = mkdtempSync(
    path.join(existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir(), "ewe-server-tests-"),
  );
  // mkdtemp makes it 0700: the `postgres` user must pass through to its
  // cluster's folder inside (tests/support/postgres.ts), not list it.
  chmodSync(scratch, 0o711);
  // Read by os.tmpdir() here and in the test workers, which start after this.
  const tmpdir = process.env.TMPDIR;
  process.env.TMPDIR = scratch;
  // No autovacuum: the databases live for one file's tests, and its wake-ups
  // across dozens of them cost CPU the browser tests beside need.
  const server = await startPostgres({ settings: { autovacuum: "off" } });
  project.provide("postgresUrl", server.url);
  const template = await migratedTemplate(server.url);
  project.provide("postgresTemplate", new URL(template).pathname.slice(1));
  project.provide("sqliteTemplate", await migratedSqliteFile(scratch));
  return async () => {
    try {
      // On a server of TEST_DATABASE_URL's, which outlives the run.
      await dropDatabase(template);
    } finally {
      await server.stop();
      rmSync(scratch, { recursive: true, force: true });
      if (tmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdir;
    }
  };
}

/**
 * Every migration applied, and the site's Fediverse account given its key
 * pairs as on its first use: an RSA key of 4096 bits takes about half a
 * CPU-second to make, and every Fediverse test app made its own. Each
 * template has its own pairs, so the two sites of
 * `fediverse-two-sites.test.ts` (one on each database) still sign with
 * different keys; an app on an empty database (`emptyDatabase`, a `dataDir`
 * of its own, a server process) makes its keys on first use, and one whose
 * keys the owner rotates makes new ones (`fediverse-new-keys.test.ts`).
 */
async function migrated(store: Store): Promise<void> {
  await migrateToLatest(store);
  await keyPairsOf(store);
}

/** A SQLite database file with every migration applied, closed (its log checkpointed into it). */
async function migratedSqliteFile(folder: string): Promise<string> {
  const file = path.join(folder, "template.sqlite");
  const store = await openStore({ kind: "sqlite", file });
  try {
    await migrated(store);
  } finally {
    await store.close();
  }
  return file;
}

/**
 * Migrates one database, which each test app's new database copies
 * (`create database … template`) instead of migrating its own: the
 * migrations run on an empty PostgreSQL database here, in `app.test.ts` and
 * in every test that starts a server process.
 */
async function migratedTemplate(serverUrl: string): Promise<string> {
  const url = await createDatabase(serverUrl, "ewe_template");
  const store = await openStore({ kind: "postgres", connectionString: url });
  try {
    await migrated(store);
  } finally {
    await store.close();
  }
  return url;
}
