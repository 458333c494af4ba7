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

/** Runs `work` in a transaction, or in `db` itself when that is one already (an owner action's). */
export const transact = <T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
) => (db instanceof Transaction ? work(db) : db.transaction().execute(work));
