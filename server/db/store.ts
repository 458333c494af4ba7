import { chmodSync, closeSync, mkdirSync, openSync, type Stats, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Kysely, sql } from "kysely";
import { Migrator } from "kysely/migration";
import type pg from "pg";
import type { Log } from "../lib/log.ts";
import { isConnectionLost, isReadTimeout, isStoreUnwritable } from "./errors.ts";
import { MarkingDialect } from "./marking-dialect.ts";
import { migrations } from "./migrations.ts";
import { copyNewDatabase } from "./new-database.ts";
import type { Database, DatabaseKind } from "./schema.ts";
import { busyTimeoutMs, createSqliteDialect } from "./sqlite-dialect.ts";

export type StoreOptions =
  | {
      kind: "sqlite";
      file: string;
      /** How long a statement waits for another process's write (`busyTimeoutMs`, 5 s, by default). */
      busyTimeoutMs?: number;
      /**
       * A migrated empty database to copy when there is none at `file`
       * (server/db/new-database.ts): the server's bundle carries one.
       */
      newDatabase?: string;
    }
  | {
      kind: "postgres";
      connectionString: string;
      /** How long a query waits for a free connection before failing (503); 5 s by default. */
      connectionWaitMs?: number;
      senders?: number;
      /**
       * How long one statement may run, and a transaction sit idle, before
       * PostgreSQL ends it (503); the driver gives up on an answer one second
       * later, so a connection that stopped answering fails too instead of
       * hanging. None by default: the server sets it (server/startup.ts);
       * migrations and the command line go without.
       */
      statementTimeoutMs?: number;
    };

/** The engagement database, whichever engine holds it. */
export type Store = {
  kind: DatabaseKind;
  db: Kysely<Database>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /**
   * False while the database refuses writes: its disk is full, it fails to
   * write, or it is read-only (`isStoreUnwritable`). Costs nothing until a
   * write has failed so; from then on each call tries a tiny write, and the
   * first that succeeds ends it.
   */
  writable(): Promise<boolean>;
  close(): Promise<void>;
};

/**
 * Whether `column`, in lower case, contains `text` in lower case: `%`, `_`
 * and the escape itself stand for themselves, not for LIKE's wildcards.
 */
export function containsText(column: string, text: string) {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

/** The database, or a transaction on it: where a repository's statements run. */
export type Db = Store["db"];

type Logger = { error(object: unknown, message: string): void };

/**
 * The database holds emails and visitors' ids: only its owner may read it. Its
 * folder is created 0700 (an existing one: `tightenDataDir`), and
 * the file 0600 before SQLite opens it, because SQLite gives the -wal and -shm
 * files it creates the mode of the database file. Files left by an older
 * version are tightened; one the current user does not own is left as it is.
 */
function createPrivately(file: string, newDatabase?: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  if (!copyNewDatabase(file, newDatabase)) closeSync(openSync(file, "a", 0o600));
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

/**
 * DATA_DIR holds the database, the cookie secret, the outbox's mails and the
 * backups: only its owner may list it. One an older version made readable by
 * others (0755) is tightened to 0700 when the server or the command line opens
 * it, and said once (the next start finds it 0700); one another user owns is
 * left as it is, and said. A folder not yet made is the store's to make, 0700.
 */
export function tightenDataDir(dir: string, log: Pick<Log, "info" | "warn">): void {
  let stats: Stats;
  try {
    stats = statSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if ((stats.mode & 0o077) === 0) return;
  const was = (stats.mode & 0o7777).toString(8).padStart(4, "0");
  const fields = { dataDir: dir, mode: was };
  // A folder others share (a sticky one as /tmp, "/", the home folder) is not the site's to close.
  const where = path.resolve(dir);
  if (stats.mode & 0o1000 || [path.parse(where).root, os.homedir()].includes(where)) {
    log.warn(
      fields,
      `DATA_DIR ${dir} is shared by other users (${was}): make it a folder of its own, chmod 700`,
    );
    return;
  }
  // Not even root changes another user's folder.
  if (stats.uid === process.getuid?.()) {
    try {
      chmodSync(dir, 0o700);
      log.info(fields, `DATA_DIR ${dir} was readable by other users (${was}): made 0700`);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EPERM") throw error;
    }
  }
  log.warn(
    fields,
    `DATA_DIR ${dir} is readable by other users (${was}) and is not this user's to change: its owner should chmod 700 it`,
  );
}

/**
 * The token of the readiness check's write: a spent form token no form can
 * hold (theirs are `time.nonce.signature`), inserted and deleted again in one
 * transaction, so it is never seen.
 */
const probeToken = "store write probe";

/**
 * How soon after a deletion SQLite's write-ahead log is emptied into the
 * database file; deletions within it share one checkpoint.
 */
const erasureCheckpointMs = 1000;
/** When the log could not be emptied (another process was reading it), the next try. */
const erasureRetryMs = 5000;

/**
 * A query the driver gave up on (`query_timeout`) leaves its connection
 * waiting for an answer that may never come: end it, so the pool opens a new
 * one rather than handing that one out again. So is a connection the server
 * ended under a query (`isConnectionLost`): it is given back to the pool
 * before its socket closes, and the next query on it would fail too. Every
 * failed query is reported to `failed`.
 */
function watchQueries(client: pg.PoolClient, failed: (error: unknown) => void): void {
  const query = client.query as (...args: unknown[]) => unknown;
  client.query = function watched(this: pg.PoolClient, ...args: unknown[]) {
    const result = query.apply(this, args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        failed(error);
        if (isReadTimeout(error)) {
          this.connection.stream.destroy();
        } else if (isConnectionLost(error)) this.end().catch(() => {});
      });
    }
    return result;
  } as typeof client.query;
}

/** The PostgreSQL connections one store opens for its requests; `senders` more for mails in flight. */
export const poolSize = 10;

/** Opens the database; the PostgreSQL driver is loaded only when it is used. */
export async function openStore(options: StoreOptions, log?: Logger): Promise<Store> {
  let db: Kysely<Database>;
  // Since when writes fail because the store cannot write; undefined while they do not.
  let unwritableSince: number | undefined;
  const noteFailure = (error: unknown) => {
    if (isStoreUnwritable(error)) unwritableSince ??= Date.now();
  };
  // SQLite: the checkpoint that empties the write-ahead log after a deletion.
  let erasureTimer: ReturnType<typeof setTimeout> | undefined;
  let erasurePending = false;
  let emptying: Promise<void> | undefined;
  let erasureFailing = false;
  let closed = false;
  const waitMs = (options.kind === "sqlite" && options.busyTimeoutMs) || busyTimeoutMs;

  /**
   * Copies the write-ahead log into the database file and truncates it, so
   * that what a deletion removed (overwritten in the file by `secure_delete`)
   * is in neither file any more. On the store's one connection, between its
   * transactions; without waiting for another process that reads the log
   * (a backup): then it is tried again a little later.
   */
  const emptyLog = async (): Promise<void> => {
    erasurePending = false;
    let again = false;
    try {
      await db.connection().execute(async (connection) => {
        await sql`pragma busy_timeout = 0`.execute(connection);
        try {
          const { rows } = await sql<{
            busy: number;
          }>`pragma wal_checkpoint(truncate)`.execute(connection);
          again = Number(rows[0]?.busy ?? 0) !== 0;
        } finally {
          await sql.raw(`pragma busy_timeout = ${waitMs}`).execute(connection);
        }
      });
      erasureFailing = false;
    } catch (error) {
      if (!erasureFailing && !closed) {
        log?.error({ err: error }, "the write-ahead log could not be emptied after a deletion");
      }
      erasureFailing = true;
      again = true;
    }
    if (again) scheduleErasure(erasureRetryMs);
  };
  const scheduleErasure = (delayMs: number) => {
    erasurePending = true;
    if (erasureTimer || closed) return;
    erasureTimer = setTimeout(() => {
      erasureTimer = undefined;
      emptying = emptyLog().finally(() => {
        emptying = undefined;
      });
    }, delayMs);
    erasureTimer.unref();
  };

  if (options.kind === "sqlite") {
    createPrivately(options.file, options.newDatabase);
    db = new Kysely<Database>({
      dialect: createSqliteDialect(
        options.file,
        { onError: noteFailure, onErasure: () => scheduleErasure(erasureCheckpointMs) },
        waitMs,
      ),
    });
  } else {
    const { default: pg } = await import("pg");
    const timeouts =
      options.statementTimeoutMs === undefined
        ? {}
        : {
            statement_timeout: options.statementTimeoutMs,
            idle_in_transaction_session_timeout: options.statementTimeoutMs,
            query_timeout: options.statementTimeoutMs + 1000,
          };
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: poolSize + (options.senders ?? 0),
      // Fail fast while the database is down, so requests answer 503 instead of hanging.
      connectionTimeoutMillis: options.connectionWaitMs ?? 5000,
      application_name: "ewe",
      ...timeouts,
    });
    // A connection lost while idle, or while checked out between queries, must
    // not crash the process: pg emits it as an 'error' event. The pool discards
    // the client; a query in flight fails on its own and answers 503.
    const logLost = (error: Error) => log?.error({ err: error }, "database connection lost");
    pool.on("error", logLost);
    pool.on("connect", (client) => {
      client.on("error", logLost);
      watchQueries(client, noteFailure);
    });
    db = new Kysely<Database>({ dialect: new MarkingDialect({ pool }) });
  }

  /** The readiness check's tiny write (`probeToken`). */
  const probe = () =>
    db.transaction().execute(async (trx) => {
      await trx
        .insertInto("spent_form_tokens")
        .values({ token: probeToken, expires_at: new Date(0).toISOString() })
        .onConflict((conflict) => conflict.column("token").doNothing())
        .execute();
      await trx.deleteFrom("spent_form_tokens").where("token", "=", probeToken).execute();
    });

  return {
    kind: options.kind,
    db,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async writable() {
      if (unwritableSince === undefined) return true;
      try {
        await probe();
      } catch (error) {
        noteFailure(error);
        return false;
      }
      unwritableSince = undefined;
      return true;
    },
    async close() {
      closed = true;
      clearTimeout(erasureTimer);
      await emptying;
      // The log of a deletion a moment ago is emptied before the store closes
      // (the command line's deletions: the server keeps the file open).
      if (erasurePending) await emptyLog();
      await db.destroy();
    },
  };
}

/**
 * Applies every pending migration; safe to run from several instances at once.
 * `addressKey` (server/outbox/suppressions.ts) converts the suppressed
 * addresses a database holds and digests the others (migrations 048, 049).
 *
 * On SQLite the migrations' statements commit one by one (some migrations
 * open transactions of their own, so they cannot share one), and at
 * `synchronous = full` every commit waits for the disk: a first start spent
 * most of its time in a hundred such waits. They run at `normal` instead,
 * which in WAL mode keeps the file consistent whatever happens and only
 * defers the waiting, and a checkpoint at `full` then writes them all to the
 * database file, durably, at once (docs/decisions/039-server-bundle.md).
 */
export async function migrateToLatest(
  store: Store,
  addressKey?: (email: string) => string,
): Promise<void> {
  if (await isMigrated(store)) return;
  if (store.kind === "sqlite") await sql`pragma synchronous = normal`.execute(store.db);
  try {
    await migrate(store, addressKey);
  } finally {
    if (store.kind === "sqlite") {
      await sql`pragma synchronous = full`.execute(store.db);
      await sql`pragma wal_checkpoint(truncate)`.execute(store.db);
    }
  }
}

/**
 * Whether every migration of this version, and none other, has run: one read
 * of the migrations' table, where Kysely's migrator reads the catalogue of
 * every table to find it and takes a lock, at each start. Any doubt (no such
 * table yet, a migration not run, one this version does not know, a database
 * that cannot be read) is left to the migrator, which applies what is missing
 * under its lock, one instance at a time, and refuses a newer database.
 */
export async function isMigrated(store: Store): Promise<boolean> {
  const names = new Set(Object.keys(migrations(store.kind)));
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(
      store.db,
    );
    return rows.length === names.size && rows.every((row) => names.has(row.name));
  } catch {
    return false;
  }
}

async function migrate(store: Store, addressKey?: (email: string) => string): Promise<void> {
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations(store.kind, addressKey) },
    // Features built side by side take their numbers in advance, so one can
    // land after a higher number has run (021 after 022): it still runs.
    // Releases keep the order (docs/decisions/044-readers-without-cookies.md,
    // "Migrations that land out of order").
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  // Kysely's words for a database a newer release migrated (an upgrade rolled back).
  const newer = /previously executed migration (\S+) is missing/.exec(String(error));
  if (newer) {
    throw new Error(
      `This database was migrated by a newer version of the site (its migration "${newer[1]}" is not in this version), so this one cannot run on it. Start the newer version again, or restore the backup taken before the upgrade (docs/upgrading.md). Nothing was changed.`,
      { cause: error },
    );
  }
  const failed = results?.find((result) => result.status === "Error");
  if (error && !failed && store.kind === "postgres") {
    // No migration ran: the database itself could not be reached or opened.
    throw new Error(
      `Database migration failed: the database of DATABASE_URL could not be opened (${String(error)}). Check that PostgreSQL runs there and that the URL's address, user, password and database name are right: the database must exist. Nothing was changed.`,
      { cause: error },
    );
  }
  if (error) {
    throw new Error(
      `Database migration ${failed ? `"${failed.migrationName}" ` : ""}failed: ${String(error)}`,
      { cause: error },
    );
  }
}
