import path from "node:path";
import type { Config } from "../../config.ts";
import { sqliteFileOf } from "../../db/store-config.ts";
import { type CommandContext, usageError } from "../command.ts";
import { backupDatabase, restoreDatabase } from "../sqlite-files.ts";

function sqliteOnly(config: Config, what: string): string {
  if (config.databaseKind !== "sqlite") {
    throw usageError(
      `${what} works on the SQLite database; on PostgreSQL use pg_dump and pg_restore (docs/backups.md).`,
    );
  }
  return sqliteFileOf(config);
}

export async function backup({ values, config, stdout, actor }: CommandContext) {
  const databaseFile = sqliteOnly(config, "backup");
  if (typeof values.out !== "string") throw usageError("--out FILE is required.");
  const { bytes } = backupDatabase(databaseFile, path.resolve(values.out));
  await actor.audit("backup", path.resolve(values.out));
  stdout.write(`Backed up ${databaseFile} to ${values.out} (${bytes} bytes).\n`);
}

export async function restore({ values, config, stdout, actor }: CommandContext) {
  const databaseFile = sqliteOnly(config, "restore");
  if (typeof values.from !== "string") throw usageError("--from FILE is required.");
  const { previousKeptAs } = restoreDatabase(databaseFile, path.resolve(values.from));
  // Recorded in the database now in place, which the backup's trail continues.
  await actor.audit("restore", path.resolve(values.from));
  stdout.write(`Restored ${databaseFile} from ${values.from}.\n`);
  if (previousKeptAs) stdout.write(`The database it replaced is kept as ${previousKeptAs}.\n`);
}
