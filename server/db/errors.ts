import type { LostAtCommit, StoreFailure } from "../lib/action-page.ts";

/** Error shapes of node:sqlite (`errcode`) and pg (`code`), read without importing either. */
type DriverError = { code?: unknown; errcode?: unknown; message?: unknown };

function driverError(error: unknown): DriverError {
  return typeof error === "object" && error !== null ? (error as DriverError) : {};
}

const sqliteUnique = 2067; // SQLITE_CONSTRAINT_UNIQUE
const sqlitePrimaryKey = 1555; // SQLITE_CONSTRAINT_PRIMARYKEY

/** True when an insert or update broke a unique constraint, on either database. */
export function isUniqueViolation(error: unknown): boolean {
  const { code, errcode } = driverError(error);
  return code === "23505" || errcode === sqliteUnique || errcode === sqlitePrimaryKey;
}

// SQLite primary result codes meaning "the database cannot serve you now":
// BUSY, LOCKED, NOMEM, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, NOTADB.
const sqliteUnavailable = new Set([5, 6, 7, 8, 10, 11, 13, 14, 26]);

// Of those, the ones that mean the store cannot write: READONLY, IOERR
// (every SQLITE_IOERR_* shares its primary code), FULL ("database or disk is full").
const sqliteUnwritable = new Set([8, 10, 13]);

const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * A write refused before it waited for its turn (server/db/turns.ts): as many
 * of this process's transactions wait already as may hold the pool's
 * connections so. It changed nothing, and answers 503 as a database out of
 * connections does, saying what it is (`busy`): the database itself is well.
 */
export class TurnsFull extends Error {
  constructor() {
    super("too many transactions wait for their turn");
    this.name = "TurnsFull";
  }
}

/**
 * True when an error means the database is unreachable or unusable rather than
 * that a query was wrong: the API answers 503 and the client may retry.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof TurnsFull) return true;
  const { code, errcode, message } = driverError(error);
  if (typeof errcode === "number") return sqliteUnavailable.has(errcode & 0xff);
  if (typeof code === "string") {
    if (networkCodes.has(code)) return true;
    // PostgreSQL classes 08 (connection), 53 (resources), 57P (shutdown, crash
    // recovery); 57014, a statement cancelled by statement_timeout; 25006, a
    // write refused by a read-only server; 25P03, a transaction left idle too long.
    if (/^(08|53|57P)/.test(code)) return true;
    if (code === "57014" || code === "25006" || code === "25P03") return true;
  }
  if (typeof message === "string") {
    // "Query read timeout": the driver gave up on an answer (query_timeout, server/db/store.ts).
    // "… is not queryable": a connection lost before (server/db/store.ts ends it).
    return /Connection terminated|timeout exceeded when trying to connect|not queryable|database is not open|Cannot use a pool after calling end|Query read timeout/i.test(
      message,
    );
  }
  return false;
}

/**
 * True when a PostgreSQL connection was lost under a query (SQLite's errors
 * are never this): what the query did, a COMMIT, may or may not have happened.
 */
export function isConnectionLost(error: unknown): boolean {
  const { code, errcode, message } = driverError(error);
  if (typeof errcode === "number") return false;
  if (typeof code === "string") return networkCodes.has(code) || /^(08|57P)/.test(code);
  return (
    typeof message === "string" &&
    /Connection terminated|not queryable|connection error/i.test(message)
  );
}

/** True when pg gave up waiting for a query's answer (`query_timeout`, server/db/store.ts). */
export const isReadTimeout = (error: unknown): boolean =>
  error instanceof Error && error.message === "Query read timeout";

/**
 * True when the database was reached but answered too late: PostgreSQL
 * cancelled the statement at its `statement_timeout` (57014), or the driver
 * gave up waiting (`isReadTimeout`).
 */
const isTooLate = (error: unknown): boolean =>
  driverError(error).code === "57014" || isReadTimeout(error);

/**
 * True when a query sent to PostgreSQL got no answer: its connection was lost
 * (`isConnectionLost`), or the driver gave up waiting (`isReadTimeout`).
 * Either way, a COMMIT, or a write outside a transaction, may or may not have
 * been saved.
 */
export const isUnanswered = (error: unknown): boolean =>
  isConnectionLost(error) || isReadTimeout(error);

/**
 * True when a write failed because the store cannot write at all: its disk is
 * full, it fails to write, or it is read-only. SQLite: SQLITE_FULL,
 * SQLITE_IOERR*, SQLITE_READONLY*; PostgreSQL: class 53 (insufficient
 * resources, 53100 disk_full among them) but for too many connections, which
 * is a connection's failure, and 25006 (read_only_sql_transaction).
 */
export function isStoreUnwritable(error: unknown): boolean {
  const { code, errcode } = driverError(error);
  if (typeof errcode === "number") return sqliteUnwritable.has(errcode & 0xff);
  if (typeof code === "string") {
    return code === "25006" || (code.startsWith("53") && code !== "53300");
  }
  return false;
}

/** What a failure of the database means for the one who asked (`StoreFailure`), or undefined when it is not one (a bug of ours, a refused constraint). */
export function storeFailureOf(error: unknown): StoreFailure | undefined {
  if (error instanceof TurnsFull) return { kind: "unreachable", retryAfterSeconds: 5, busy: true };
  if (isStoreUnwritable(error)) return { kind: "unwritable", retryAfterSeconds: 300 };
  if (!isDatabaseUnavailable(error)) return undefined;
  const why = lostAtCommitBy(error);
  return {
    kind: "unreachable",
    retryAfterSeconds: 60,
    ...(why === "timeout" || isTooLate(error) ? { late: true } : {}),
    ...(why ? { lostAtCommit: why } : {}),
  };
}

const lostAtCommit = new WeakMap<object, LostAtCommit>();

/**
 * `error`, thrown by a transaction whose COMMIT got no answer for `why`, or
 * by a write outside one once sent (server/db/marking-dialect.ts).
 */
export function markLostAtCommit(error: unknown, why: LostAtCommit): unknown {
  if (typeof error === "object" && error !== null) lostAtCommit.set(error, why);
  return error;
}

/**
 * Why a transaction's COMMIT, or a write outside one once it was sent, got
 * no answer (`isUnanswered`) on PostgreSQL, when it did not: what it wrote
 * may or may not have been saved.
 */
export const lostAtCommitBy = (error: unknown): LostAtCommit | undefined =>
  typeof error === "object" && error !== null ? lostAtCommit.get(error) : undefined;

export const isLostAtCommit = (error: unknown): boolean => lostAtCommitBy(error) !== undefined;
