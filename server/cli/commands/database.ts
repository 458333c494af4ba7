import path from "node:path";
import type { Config } from "../../config.ts";
import { sqliteFileOf } from "../../db/store-config.ts";
import { audited, type Command, exitCodes, usageError } from "../command.ts";
import { backupDatabase, restoreDatabase } from "../sqlite-files.ts";

function sqliteOnly(config: Config, what: string): string {
  if (config.databaseKind !== "sqlite") {
    throw usageError(
      `${what} works on the SQLite database; on PostgreSQL use pg_dump and pg_restore (README, Operating).`,
    );
  }
  return sqliteFileOf(config);
}

/** Copies of the SQLite database: a backup while the site runs, a restore while it is stopped. */
export const databaseCommands: Command[] = [
  {
    name: "backup",
    usage: "--out FILE",
    summary: "copy the SQLite database, while the site runs",
    help: `Writes a consistent copy of the SQLite database (DATA_DIR/engage.sqlite) to
FILE while the server goes on serving: one snapshot, checked after writing,
readable by its owner only. FILE must not exist. On PostgreSQL use pg_dump.

  --out FILE   where to write the copy`,
    options: { out: { type: "string" } },
    async run({ values, config, stdout, store }) {
      const databaseFile = sqliteOnly(config, "backup");
      if (typeof values.out !== "string") throw usageError("--out FILE is required.");
      const { bytes } = backupDatabase(databaseFile, path.resolve(values.out));
      await audited(store, "backup", path.resolve(values.out));
      stdout.write(`Backed up ${databaseFile} to ${values.out} (${bytes} bytes).\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "restore",
    usage: "--from FILE",
    summary: "replace the SQLite database with a backup (server stopped)",
    help: `Replaces the SQLite database (DATA_DIR/engage.sqlite) with a backup made by
"backup". Stop the server first: the command refuses while any process has
the database open. The database it replaces is kept beside it as
engage.sqlite.before-restore-<time>. On PostgreSQL use pg_restore.

  --from FILE   the backup to restore`,
    options: { from: { type: "string" } },
    async run({ values, config, stdout, store }) {
      const databaseFile = sqliteOnly(config, "restore");
      if (typeof values.from !== "string") throw usageError("--from FILE is required.");
      const { previousKeptAs } = restoreDatabase(databaseFile, path.resolve(values.from));
      // Recorded in the database now in place, which the backup's trail continues.
      await audited(store, "restore", path.resolve(values.from));
      stdout.write(`Restored ${databaseFile} from ${values.from}.\n`);
      if (previousKeptAs) stdout.write(`The database it replaced is kept as ${previousKeptAs}.\n`);
      return exitCodes.ok;
    },
  },
];
