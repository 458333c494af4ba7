import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/*
 * A new SQLite database, made once by the build and copied at a first start
 * (docs/decisions/055-what-a-start-no-longer-does.md): migrating an empty
 * file statement by statement was a tenth of a first start's CPU. The copy is
 * the file the same migrations made, checkpointed and closed; the migrations
 * still run at every start and find nothing to do.
 */

/** Its name beside the server's bundle (scripts/build-server.ts). */
export const newDatabaseName = "new-database.sqlite";

/**
 * Puts a copy of `template` at `file` when there is no database there at all
 * (nor a write-ahead log or journal of one), readable by its owner alone;
 * false when it did not (then SQLite makes an empty file, which the
 * migrations fill). The copy appears whole or not at all: it is written
 * under another name and linked into place, which fails if another process
 * made the database meanwhile.
 */
export function copyNewDatabase(file: string, template: string | undefined): boolean {
  if (!template || !existsSync(template)) return false;
  if (["", "-wal", "-journal"].some((suffix) => existsSync(`${file}${suffix}`))) return false;
  const partial = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.new`);
  try {
    writeFileSync(partial, readFileSync(template), { mode: 0o600, flag: "wx" });
    linkSync(partial, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    rmSync(partial, { force: true });
  }
}
