import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Migrator } from "kysely/migration";
import { expect, inject } from "vitest";
import { migrations } from "../../../server/db/migrations.ts";
import { openStore, type StoreOptions } from "../../../server/db/store.ts";
import { createDatabase, dropDatabase } from "../../support/postgres.ts";
import type { backends } from "./test-app.ts";

/**
 * A database of its own, unmigrated: a SQLite file, or a PostgreSQL database on
 * the run's server. `migrateTo` runs the migrations up to one, as an older
 * version left it; `open` opens it again, as another instance does. `migrated`:
 * a copy of the global setup's migrated database instead, for a test that needs
 * the latest schema and not the migrations' run (seconds on PostgreSQL).
 */
export async function scratchStore(
  backend: (typeof backends)[number],
  { migrated = false }: { migrated?: boolean } = {},
) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-scratch-"));
  const databaseUrl =
    backend === "postgres"
      ? await createDatabase(
          inject("postgresUrl"),
          "ewe_test",
          migrated ? inject("postgresTemplate") : undefined,
        )
      : undefined;
  const options: StoreOptions = databaseUrl
    ? { kind: "postgres", connectionString: databaseUrl }
    : { kind: "sqlite", file: path.join(dataDir, "engage.sqlite") };
  if (migrated && options.kind === "sqlite") copyFileSync(inject("sqliteTemplate"), options.file);
  const store = await openStore(options);
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations(store.kind) },
  });
  return {
    store,
    dataDir,
    open: () => openStore(options),
    async migrateTo(name: string) {
      expect((await migrator.migrateTo(name)).error).toBeUndefined();
    },
    async drop() {
      await store.close();
      if (databaseUrl) await dropDatabase(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
