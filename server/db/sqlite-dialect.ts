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

class CachedStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #statement: StatementSync;

  constructor(statement: StatementSync) {
    this.#statement = statement;
    this.reader = statement.columns().length > 0;
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.#statement.all(...(parameters as SQLInputValue[]));
  }

  run(parameters: ReadonlyArray<unknown>) {
    return this.#statement.run(...(parameters as SQLInputValue[]));
  }

  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.#statement.iterate(...(parameters as SQLInputValue[]));
  }
}

class NodeSqliteDatabase implements SqliteDatabase {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, CachedStatement>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  prepare(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      // Queries built from user data never reach here as SQL text (they are
      // parameters), so the set of strings is small; the bound is a safeguard.
      if (this.#statements.size >= statementCacheSize) this.#statements.clear();
      statement = new CachedStatement(this.#db.prepare(sql));
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
 * does not linger in the file's free pages (docs/product.md, "Privacy and Terms").
 */
export function createSqliteDialect(file: string): SqliteDialect {
  const db = new DatabaseSync(file, { timeout: 5000 });
  db.exec(`
    pragma journal_mode = wal;
    pragma synchronous = full;
    pragma foreign_keys = on;
    pragma secure_delete = on;
  `);
  return new SqliteDialect({ database: new NodeSqliteDatabase(db) });
}
