import { type CompiledQuery, type DatabaseConnection, type Driver, PostgresDialect } from "kysely";
import type { LostAtCommit } from "../lib/action-page.ts";
import { isReadTimeout, isUnanswered, markLostAtCommit } from "./errors.ts";

/** Statements that change rows: a query builder's, or raw SQL that starts so. */
const writeNodes = new Set([
  "InsertQueryNode",
  "UpdateQueryNode",
  "DeleteQueryNode",
  "MergeQueryNode",
]);
const isWrite = (query: CompiledQuery) =>
  writeNodes.has(query.query.kind) ||
  (query.query.kind === "RawNode" && /^\s*(insert|update|delete|merge)\b/i.test(query.sql));
/** A statement that got no answer once sent: not one pg refused to send on a connection lost before ("not queryable"). */
const unansweredOnceSent = (error: unknown) =>
  isUnanswered(error) && error instanceof Error && !/not queryable/.test(error.message);
/** Why it got none: the driver gave up waiting, or the connection was lost. */
const why = (error: unknown): LostAtCommit => (isReadTimeout(error) ? "timeout" : "connection");

/**
 * PostgreSQL's dialect, whose transaction whose COMMIT got no answer (its
 * connection lost, or the driver's `query_timeout` past: `isUnanswered`)
 * throws an error marked so (`isLostAtCommit`), whether the COMMIT's or the
 * ROLLBACK's that follows it: what it wrote may or may not have been saved.
 * So does a write outside a transaction (it commits as it ends) that got no
 * answer once it was sent; not a read, and not a statement (a COMMIT either)
 * pg refused to send on a connection already lost ("not queryable").
 */
export class MarkingDialect extends PostgresDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    const begin = driver.beginTransaction.bind(driver);
    const commit = driver.commitTransaction.bind(driver);
    const rollback = driver.rollbackTransaction.bind(driver);
    const lost = new WeakMap<DatabaseConnection, LostAtCommit>();
    // Connections in a transaction; and those whose statements are watched.
    const inTransaction = new WeakSet<DatabaseConnection>();
    const watched = new WeakSet<DatabaseConnection>();
    driver.acquireConnection = async (options) => {
      const connection = await acquire(options);
      if (watched.has(connection)) return connection;
      watched.add(connection);
      const execute = connection.executeQuery.bind(connection) as (...args: unknown[]) => unknown;
      connection.executeQuery = (async (query: CompiledQuery, ...rest: unknown[]) => {
        try {
          return await execute(query, ...rest);
        } catch (error) {
          if (inTransaction.has(connection) || !isWrite(query)) throw error;
          throw unansweredOnceSent(error) ? markLostAtCommit(error, why(error)) : error;
        }
      }) as typeof connection.executeQuery;
      return connection;
    };
    driver.beginTransaction = async (connection, settings) => {
      await begin(connection, settings);
      inTransaction.add(connection);
    };
    driver.commitTransaction = async (connection) => {
      try {
        await commit(connection);
      } catch (error) {
        // A COMMIT never sent saved nothing: the server rolls back a session that ends.
        if (!unansweredOnceSent(error)) throw error;
        lost.set(connection, why(error));
        throw markLostAtCommit(error, why(error));
      } finally {
        inTransaction.delete(connection);
      }
    };
    driver.rollbackTransaction = async (connection) => {
      try {
        await rollback(connection);
      } catch (error) {
        const after = lost.get(connection);
        throw after ? markLostAtCommit(error, after) : error;
      } finally {
        lost.delete(connection);
        inTransaction.delete(connection);
      }
    };
    return driver;
  }
}
