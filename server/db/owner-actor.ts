import { type Kysely, Transaction } from "kysely";
import { databaseFailed, type StoreFailure } from "../lib/action-page.ts";
import { isLostAtCommit, lostAtCommitBy } from "./errors.ts";
import type { Database } from "./schema.ts";

/** A line of the audit trail: what was done, and to what. */
type AuditLine = [action: string, object?: string];

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
  /** Whether the audit trail holds a line of `action` on `object`, by any actor. */
  wrote(action: string, object: string): Promise<boolean>;
  /**
   * When the audit trail's newest line of one of `actions` was written (ISO
   * 8601), of those whose object starts with `about` when it is given; null when none was.
   */
  lastWrote(actions: readonly string[], about?: string): Promise<string | null>;
};

/**
 * The count in the line of an action that queues in parts (an edition's send,
 * a reconfirmation): what it queued, and what was queued `before` it since the
 * trail's last line of it (`lastWrote`), by a run whose line failed.
 */
export const queuedSaid = (queued: number, before: number) =>
  before > 0 ? `${queued} queued, ${before} before` : `${queued} queued`;

/**
 * What an owner action's failure left of it, when that is known: `nothing`
 * (its one transaction, its line with it, rolled back), `part` (it commits in
 * parts, and some may have committed: doing it again finishes it) or
 * `unknown` (its COMMIT got no answer: it may or may not have been saved).
 * The API and the command line tell the owner so (`leftSaid`).
 */
type Left = "nothing" | "part" | "unknown";
const lefts = new WeakMap<object, Left>();

/** What the owner is told the failure `error` left of the action, `left`. */
export function leftSaid(left: Left, error: unknown): string {
  if (left === "nothing") return "Nothing was changed; try again.";
  if (left === "part") return "Part of it may be done already; doing it again finishes it.";
  const happened =
    lostAtCommitBy(error) === "timeout"
      ? "the database did not answer in time as it saved"
      : "the connection to the database was lost as it saved";
  return `It may or may not have been saved: ${happened}; look before you try again.`;
}

/**
 * What a failure of the database (`storeFailureOf`) is told to the owner, and to
 * a reader whose write was not lost at its COMMIT, in the API's answer and on
 * the command line: which failure, in the words every answer shares
 * (`databaseFailed`: away, too slow, or busy), then what it left of an owner's
 * action (`leftSaid`).
 */
export function storeFailureSaid(failure: StoreFailure, error: unknown): string {
  const left = leftBy(error);
  const leftNothing = !left || left === "nothing";
  if (failure.kind === "unwritable") {
    return leftNothing
      ? `${databaseFailed(failure)}, so nothing was saved or changed; try again in a few minutes.`
      : `${databaseFailed(failure)}; try again in a few minutes. ${leftSaid(left, error)}`;
  }
  if (left === "unknown" && failure.late) {
    return `${databaseFailed({ late: true })}, so it may or may not have been saved; look before you try again.`;
  }
  const again = `try again in ${failure.busy ? "a moment" : "a minute"}.`;
  // An owner's action rolled back whole: doing it again is safe, and the owner is told so.
  if (left === "nothing") return `${databaseFailed(failure)}. Nothing was changed; ${again}`;
  const first = `${databaseFailed(failure)}; ${again}`;
  return left ? `${first} ${leftSaid(left, error)}` : first;
}

/** `error`, marked with what it left of the action (`Left`); undefined takes a mark back. */
function leaving(error: unknown, left: Left | undefined): unknown {
  if (typeof error === "object" && error !== null) {
    if (left) lefts.set(error, left);
    else lefts.delete(error);
  }
  return error;
}

/** What the owner action `error` failed left of it (`leaving`), when known. */
export const leftBy = (error: unknown): Left | undefined =>
  typeof error === "object" && error !== null ? lefts.get(error) : undefined;

/**
 * An action whose parts commit one by one (an edition's send, an erased
 * Fediverse account, a reader's "Your data"): its failure is marked `part`,
 * whatever a transaction within it said of itself.
 */
export const inParts =
  <A extends unknown[], T>(action: (...args: A) => Promise<T>) =>
  async (...args: A): Promise<T> => {
    try {
      return await action(...args);
    } catch (error) {
      throw leaving(error, "part");
    }
  };

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
 * its commit (`afterCommit`). With `line` (an owner action's line of the
 * audit trail, which `work` writes in it) it holds the whole action: a
 * failure left `nothing` of it, but for a connection lost at its COMMIT
 * (`isLostAtCommit`), whose outcome is `unknown`.
 */
export async function withLine<T>(
  db: Kysely<Database>,
  line: unknown,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  const after: (() => void)[] = [];
  let result: T;
  try {
    result = await db.transaction().execute(async (trx) => {
      afterCommits.set(trx, after);
      return work(trx);
    });
  } catch (error) {
    const lost = isLostAtCommit(error);
    throw leaving(error, line === undefined ? undefined : lost ? "unknown" : "nothing");
  }
  for (const publish of after) publish();
  return result;
}

/** Runs `work` in a transaction, or in `db` itself when that is one already (an owner action's). */
export const transact = <T>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
) => (db instanceof Transaction ? work(db) : db.transaction().execute(work));
