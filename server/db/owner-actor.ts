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
   * commit, or neither; what the change left to run after the commit (its
   * live events, `afterCommit`) runs once they have.
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

/** What each open transaction of `withLine` runs once it has committed (`afterCommit`). */
const afterCommits = new WeakMap<Kysely<Database>, (() => void)[]>();

/**
 * Runs `publish` (a write's live events) once the writes made in `db` have
 * committed: at once when `db` is the store itself, after the commit when it
 * is a transaction of `withLine` (an owner action's), which then runs it.
 */
export function afterCommit(db: Kysely<Database>, publish: () => void): void {
  const waiting = afterCommits.get(db);
  if (waiting) waiting.push(publish);
  else if (db instanceof Transaction)
    throw new Error("This transaction runs nothing after its commit.");
  else publish();
}

/**
 * Runs `work` in a transaction of `db`, then what `work` left to run after
 * its commit (`afterCommit`); with `line` (an owner action's line of the
 * audit trail, which `work` writes in it) it holds the whole action, and a
 * failure is `rolledBack`.
 */
export async function withLine<T>(
  db: Kysely<Database>,
  line: unknown,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  const after: (() => void)[] = [];
  let result: T;
  try {
    result = await db.transaction().execute((trx) => {
      afterCommits.set(trx, after);
      return work(trx);
    });
  } catch (error) {
    throw rolledBack(error, line !== undefined);
  }
  for (const publish of after) publish();
  return result;
}

/** Runs `work` in a transaction, or in `db` itself when that is one already (an owner action's). */
export const transact = <T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
) => (db instanceof Transaction ? work(db) : db.transaction().execute(work));
