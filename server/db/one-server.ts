import { closeSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";

/**
 * Holds DATA_DIR's SQLite database for this server alone, or throws if
 * another server holds it: two would release each other's outbox claims and
 * send mail twice, and each would keep its own live events and caches
 * (docs/decisions/083-several-processes-on-one-port.md).
 *
 * The lock is SQLite's own, on an empty file of its own (`server.lock`): an
 * exclusive transaction kept open while the process lives, with its journal
 * in memory so no file is left beside it. The system lets go of it when the
 * process ends however it ends, kill -9 too, so none is ever stale. The
 * owner's command line does not take it: it works beside a running server.
 * Keep what is returned referenced; closing it lets go of the lock.
 */
export function holdForOneServer(dataDir: string): DatabaseSync {
  const folder = path.resolve(dataDir);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const file = path.join(folder, "server.lock");
  closeSync(openSync(file, "a", 0o600));
  const lock = new DatabaseSync(file, { timeout: 0 });
  try {
    lock.exec("pragma journal_mode = memory; begin exclusive");
  } catch (error) {
    lock.close();
    if ((error as { errcode?: number }).errcode !== 5) throw error;
    throw new Error(
      `another server is running on the SQLite database in DATA_DIR ${folder}: stop it first, or give this one a DATA_DIR of its own (several servers need PostgreSQL, docs/postgresql.md)`,
    );
  }
  return lock;
}
