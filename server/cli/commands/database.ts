import { group } from "../command.ts";

const handlers = () => import("../handlers/database.ts");

/** Copies of the SQLite database: a backup while the site runs, a restore while it is stopped. */
export const databaseCommands = group(handlers, [
  {
    name: "backup",
    usage: "--out FILE",
    summary: "copy the SQLite database, while the site runs",
    help: `Writes a consistent copy of the SQLite database (DATA_DIR/engage.sqlite) to
FILE while the server goes on serving: one snapshot, checked after writing,
readable by its owner only. FILE must not exist. On PostgreSQL use pg_dump.

  --out FILE   where to write the copy`,
  },
  {
    name: "restore",
    usage: "--from FILE",
    summary: "replace the SQLite database with a backup (server stopped)",
    help: `Replaces the SQLite database (DATA_DIR/engage.sqlite) with a backup made by
"backup". Stop the server first: the command refuses while any process has
the database open. The database it replaces is kept beside it as
engage.sqlite.before-restore-<time>, and calls it has cancelled since the
backup stay cancelled; one it has deleted since is named, to cancel by hand.
The console's sessions and links the backup holds end, and its passkeys the
replaced database does not hold are removed: sign in again with "login".
Into a new DATA_DIR, with no database to compare, its passkeys are kept and
named, to remove in the console any removed since the backup.
Comments and subscribers it holds that were deleted since are named, to
delete again. A backup whose tables are not what its migrations say, or
that holds what the site never writes (a broken CHECK or reference, a value
of another type, a time that is none), is refused, naming the first row; a
restore that fails or is stopped half way changes nothing.
On PostgreSQL use pg_restore.

  --from FILE   the backup to restore`,
  },
]);
