import { chmodSync, closeSync, mkdirSync, openSync, statSync } from "node:fs";
import path from "node:path";
import { Kysely, PostgresDialect, sql } from "kysely";
import { Migrator } from "kysely/migration";
import { migrations } from "./migrations.ts";
import type { Database, DatabaseKind } from "./schema.ts";
import { createSqliteDialect } from "./sqlite-dialect.ts";

export type StoreOptions =
  | { kind: "sqlite"; file: string }
  | {
      kind: "postgres";
      connectionString: string;
      poolSize?: number;
      /** How long a query waits for a free connection before failing (503); 5 s by default. */
      connectionWaitMs?: number;
    };

/** The engagement database, whichever engine holds it. */
export type Store = {
  kind: DatabaseKind;
  db: Kysely<Database>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
};

export type Logger = { error(object: unknown, message: string): void };

/**
 * The database holds emails and visitors' ids: only its owner may read it. Its
 * folder is created 0700 (an existing one keeps its mode: README, Backups), and
 * the file 0600 before SQLite opens it, because SQLite gives the -wal and -shm
 * files it creates the mode of the database file. Files left by an older
 * version are tightened; one the current user does not own is left as it is.
 */
function createPrivately(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, "a", 0o600));
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      const { mode } = statSync(`${file}${suffix}`);
      if (mode & 0o077) chmodSync(`${file}${suffix}`, mode & 0o700);
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      if (code !== "ENOENT" && code !== "EPERM") throw error;
    }
  }
}

/** Opens the database; the PostgreSQL driver is loaded only when it is used. */
export async function openStore(options: StoreOptions, log?: Logger): Promise<Store> {
  let db: Kysely<Database>;
  if (options.kind === "sqlite") {
    createPrivately(options.file);
    db = new Kysely<Database>({ dialect: createSqliteDialect(options.file) });
  } else {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? 10,
      // Fail fast while the database is down, so requests answer 503 instead of hanging.
      connectionTimeoutMillis: options.connectionWaitMs ?? 5000,
      application_name: "ewe",
    });
    // A connection lost while idle, or while checked out between queries, must
    // not crash the process: pg emits it as an 'error' event. The pool discards
    // the client; a query in flight fails on its own and answers 503.
    const logLost = (error: Error) => log?.error({ err: error }, "database connection lost");
    pool.on("error", logLost);
    pool.on("connect", (client) => client.on("error", logLost));
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  return {
    kind: options.kind,
    db,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

/**
 * Applies every pending migration; safe to run from several instances at once.
 *
 * On SQLite the migrations' statements commit one by one (three migrations
 * open transactions of their own, so they cannot share one), and at
 * `synchronous = full` every commit waits for the disk: a first start spent
 * most of its time in a hundred such waits. They run at `normal` instead,
 * which in WAL mode keeps the file consistent whatever happens and only
 * defers the waiting, and a checkpoint at `full` then writes them all to the
 * database file, durably, at once (docs/decisions/039-server-bundle.md).
 */
export async function migrateToLatest(store: Store): Promise<void> {
  if (store.kind === "sqlite") await sql`pragma synchronous = normal`.execute(store.db);
  try {
    await migrate(store);
  } finally {
    if (store.kind === "sqlite") {
      await sql`pragma synchronous = full`.execute(store.db);
      await sql`pragma wal_checkpoint(truncate)`.execute(store.db);
    }
  }
}

async function migrate(store: Store): Promise<void> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations(store.kind) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === "Error");
    throw new Error(
      `Database migration ${failed ? `"${failed.migrationName}" ` : ""}failed: ${String(error)}`,
      { cause: error },
    );
  }
}
