import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely";

/**
 * Kysely's SqliteDialect expects a better-sqlite3-like object. node:sqlite is
 * close, but has no `stmt.reader` and reads a single array argument as named
 * parameters, so this adapts both. Preparing a statement costs about as much as
 * running a small query, and the API issues the same few SQL strings over and
 * over, so prepared statements are cached.
 */
const statementCacheSize = 200;

/**
 * How long a statement waits for another process's lock before SQLITE_BUSY:
 * the server's, which answers 503 then (server/db/errors.ts). The command
 * line waits longer (`StoreOptions.busyTimeoutMs`): its owner would rather
 * wait for a busy server than run the command again.
 */
export const busyTimeoutMs = 5000;

/** What the store hears of the statements it runs (server/db/store.ts). */
type SqliteWatch = {
  /** Every error SQLite raises, before Kysely passes it on. */
  onError(error: unknown): void;
  /** A statement deleted or overwrote rows of a table that holds what people wrote or gave. */
  onErasure(): void;
};

/**
 * The tables whose deleted or overwritten rows must not outlive their
 * deletion in the write-ahead log: comments and what the spam filter kept of
 * them, enquiries, subscribers, reply addresses, reactions (with their names)
 * and the live-update journal; and the deleted rows of booked calls and of
 * questions to the assistant, whose updates overwrite nothing a reader gave.
 * Kysely writes `delete from "t"` and `update "t"`.
 */
const erasing =
  /^(?:(?:delete from|update) "(?:science_comments|spam_examples|spam_screening|enquiries|enquiry_answers|enquiry_acknowledgements|subscribers|confirmation_requests|reply_addresses|reply_watches|science_reactions|mythology_reactions|events)"|delete from "(?:bookings|assistant_questions)")/;

class CachedStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #statement: StatementSync;
  readonly #watch: SqliteWatch;
  readonly #erases: boolean;

  constructor(statement: StatementSync, sql: string, watch: SqliteWatch) {
    this.#statement = statement;
    this.reader = statement.columns().length > 0;
    this.#watch = watch;
    this.#erases = erasing.test(sql);
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    try {
      const rows = this.#statement.all(...(parameters as SQLInputValue[]));
      if (this.#erases && rows.length > 0) this.#watch.onErasure();
      return rows;
    } catch (error) {
      this.#watch.onError(error);
      throw error;
    }
  }

  run(parameters: ReadonlyArray<unknown>) {
    try {
      const result = this.#statement.run(...(parameters as SQLInputValue[]));
      if (this.#erases && Number(result.changes) > 0) this.#watch.onErasure();
      return result;
    } catch (error) {
      this.#watch.onError(error);
      throw error;
    }
  }

  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.#statement.iterate(...(parameters as SQLInputValue[]));
  }
}

/**
 * ROLLBACK when there is nothing to roll back. SQLite ends a transaction
 * itself when a write in it fails for want of space or on an I/O error
 * (SQLITE_FULL, SQLITE_IOERR…); Kysely's ROLLBACK would then fail ("no
 * transaction is active") and its error would replace the one that explains
 * the failure, which answers 503 (server/db/errors.ts).
 */
class SettledRollback implements SqliteStatement {
  readonly reader = false;
  all(): unknown[] {
    return [];
  }
  run() {
    return { changes: 0, lastInsertRowid: 0 };
  }
  *iterate(): IterableIterator<unknown> {}
}

const settledRollback = new SettledRollback();

/**
 * Kysely begins every transaction with a plain `begin`, which takes SQLite's
 * write lock only at the first write. A transaction that reads, then writes
 * after another process (the server, a command) has committed, is refused at
 * once ("database is locked": its snapshot is stale, and no busy timeout waits
 * that out). `begin immediate` takes the lock at the start, waiting for it as
 * long as the busy timeout allows; within one process the store's single
 * connection already runs one transaction at a time.
 */
const begin = "begin immediate";

class NodeSqliteDatabase implements SqliteDatabase {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, CachedStatement>();
  readonly #watch: SqliteWatch;

  constructor(db: DatabaseSync, watch: SqliteWatch) {
    this.#db = db;
    this.#watch = watch;
  }

  prepare(sql: string): SqliteStatement {
    if (sql.startsWith("rollback") && !this.#db.isTransaction) return settledRollback;
    if (sql === "begin") sql = begin;
    let statement = this.#statements.get(sql);
    if (!statement) {
      // Queries built from user data never reach here as SQL text (they are
      // parameters), so the set of strings is small; the bound is a safeguard.
      if (this.#statements.size >= statementCacheSize) this.#statements.clear();
      let prepared: StatementSync;
      try {
        prepared = this.#db.prepare(sql);
      } catch (error) {
        this.#watch.onError(error);
        throw error;
      }
      statement = new CachedStatement(prepared, sql, this.#watch);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  close(): void {
    this.#statements.clear();
    this.#db.close();
  }
}

/**
 * Opens (creating if needed) a SQLite file in WAL mode for one server process.
 * `secure_delete` overwrites what a deletion frees, so a deleted comment's text
 * does not linger in the file's free pages (docs/product.md, "Privacy and Terms");
 * `watch.onErasure` lets the store empty the write-ahead log, which still
 * holds the pages as they were, soon after (server/db/store.ts).
 */
export function createSqliteDialect(
  file: string,
  watch: SqliteWatch,
  timeout: number,
): SqliteDialect {
  const db = new DatabaseSync(file, { timeout });
  db.exec(`
    pragma journal_mode = wal;
    pragma synchronous = full;
    pragma foreign_keys = on;
    pragma secure_delete = on;
  `);
  return new SqliteDialect({ database: new NodeSqliteDatabase(db, watch) });
}
