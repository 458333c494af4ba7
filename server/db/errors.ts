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

const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * True when an error means the database is unreachable or unusable rather than
 * that a query was wrong: the API answers 503 and the client may retry.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, errcode, message } = driverError(error);
  if (typeof errcode === "number") return sqliteUnavailable.has(errcode & 0xff);
  if (typeof code === "string") {
    if (networkCodes.has(code)) return true;
    // PostgreSQL classes 08 (connection), 53 (resources), 57P (shutdown, crash recovery).
    if (/^(08|53|57P)/.test(code)) return true;
  }
  if (typeof message === "string") {
    return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|database is not open|Cannot use a pool after calling end/i.test(
      message,
    );
  }
  return false;
}
