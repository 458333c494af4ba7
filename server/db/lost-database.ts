import { statSync } from "node:fs";

/** The database was lost: the server must not start on an empty one in its place. */
class LostDatabaseError extends Error {
  override name = "LostDatabaseError";
}

function sizeOf(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Refuses a SQLite database of zero bytes beside `markerFile`, a file the
 * server writes only once its database exists (the cookie secret): that
 * database held the site's data and was truncated or lost, and opening it
 * would start the site empty, as if new, without a word. SQLite itself never
 * leaves a database file empty once it has been opened. A missing database is
 * not refused: deleting it is the owner's own way to start afresh.
 */
export function refuseLostDatabase(file: string, markerFile: string): void {
  if (sizeOf(file) !== 0 || sizeOf(markerFile) === undefined) return;
  throw new LostDatabaseError(
    `The database ${file} is empty (0 bytes), but ${markerFile} shows that this data folder held the site's database before: it was lost or truncated (a full disk, a failed copy or restore, a mistaken command). The server does not start, so as not to run the site empty in its place. To restore it, put the latest backup in place with \`npm run admin -- restore --from FILE\` (docs/backups.md), then start the server. To start with an empty database on purpose, delete the empty file (and its -wal and -shm files, if any), then start the server.`,
  );
}
