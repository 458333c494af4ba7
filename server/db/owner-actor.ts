import { type Kysely, Transaction } from "kysely";
import type { Database } from "./schema.ts";

/** A line of the audit trail: what was done, and to what. */
export type AuditLine = [action: string, object?: string];

/**
 * Who takes one of the owner's actions (docs/architecture.md, "Owner
 * actions"): a console session, the command line, or a notification mail's
 * link. The action writes its line of the audit trail through its actor,
 * which signs it with the session, or with none.
 */
export type OwnerActor = {
  /**
   * An action whose change is database writes: `change` makes them in the
   * transaction it is given (every query there, none on the store's own
   * connection), and the line `line` draws from its outcome is written in the
   * same transaction, or none when it names none (nothing changed). Both
   * commit, or neither.
   */
  act<T>(
    change: (trx: Transaction<Database>) => Promise<T>,
    line: (outcome: T) => AuditLine | false | null,
  ): Promise<T>;
  /**
   * The line alone: for an action whose change is not the database's (a file,
   * a mail sent), or in `within`, a transaction a repository opened itself.
   */
  audit(action: string, object?: string, within?: Kysely<Database>): Promise<void>;
};

/** The failures of owner actions that rolled back whole (`rolledBack`). */
const unchanged = new WeakSet<object>();

/**
 * `error`, the failure of an owner action's transaction, marked as one that
 * changed nothing when `whole`: the transaction held the whole action, its
 * line with it, and nothing of the action had committed before. The API then
 * tells the owner so (`changedNothing`); not `whole` takes a mark back.
 */
export function rolledBack(error: unknown, whole = true): unknown {
  if (typeof error === "object" && error !== null) {
    if (whole) unchanged.add(error);
    else unchanged.delete(error);
  }
  return error;
}

/** Whether `error` failed an owner action that changed nothing (`rolledBack`). */
export const changedNothing = (error: unknown) =>
  typeof error === "object" && error !== null && unchanged.has(error);

/**
 * Runs `work` in a transaction of `db`; with `line` (an owner action's line
 * of the audit trail, which `work` writes in it) it holds the whole action,
 * and a failure is `rolledBack`.
 */
export async function withLine<T>(
  db: Kysely<Database>,
  line: unknown,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction().execute(work);
  } catch (error) {
    throw rolledBack(error, line !== undefined);
  }
}

/** Runs `work` in a transaction, or in `db` itself when that is one already (an owner action's). */
export const transact = <T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
) => (db instanceof Transaction ? work(db) : db.transaction().execute(work));
