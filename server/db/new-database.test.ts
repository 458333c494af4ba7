import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyNewDatabase } from "./new-database.ts";
import { migrateToLatest, openStore, type StoreOptions } from "./store.ts";

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), "ewe-new-database-"));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** A migrated empty database, as the build makes it. */
async function template(): Promise<string> {
  const file = path.join(folder, "template.sqlite");
  const store = await openStore({ kind: "sqlite", file });
  await migrateToLatest(store);
  await store.close();
  return file;
}

const migrationsOf = (file: string) => {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return db.prepare("select name, timestamp from kysely_migration order by name").all();
  } finally {
    db.close();
  }
};

describe("a first start's database, copied from the build's", () => {
  it("is the migrated database, readable by its owner alone, and needs no migration", async () => {
    const made = await template();
    const file = path.join(folder, "data", "engage.sqlite");
    const store = await openStore({ kind: "sqlite", file, newDatabase: made });
    await migrateToLatest(store);
    await store.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The same migrations, run when the build ran them: none ran again.
    expect(migrationsOf(file)).toEqual(migrationsOf(made));
    expect(migrationsOf(file).length).toBeGreaterThan(20);
    // No half-written copy is left beside it.
    expect(readdirSync(path.dirname(file)).filter((name) => name.endsWith(".new"))).toEqual([]);
  });

  it("never replaces a database, or one whose write-ahead log is there without it", async () => {
    const made = await template();
    const file = path.join(folder, "engage.sqlite");
    writeFileSync(file, "");
    expect(copyNewDatabase(file, made)).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("");
    rmSync(file);
    writeFileSync(`${file}-wal`, "");
    expect(copyNewDatabase(file, made)).toBe(false);
    expect(() => statSync(file)).toThrow();
  });

  it("is not made without a template: SQLite makes the file, and the migrations fill it", async () => {
    const file = path.join(folder, "engage.sqlite");
    expect(copyNewDatabase(file, undefined)).toBe(false);
    expect(copyNewDatabase(file, path.join(folder, "none.sqlite"))).toBe(false);
    const store = await openStore({ kind: "sqlite", file, newDatabase: path.join(folder, "none") });
    await migrateToLatest(store);
    await store.close();
    expect(migrationsOf(file).length).toBeGreaterThan(20);
  });
});

/** What the server's start says when it cannot migrate the database, or null. */
async function migrationFailure(options: StoreOptions): Promise<string | null> {
  const store = await openStore(options);
  try {
    await migrateToLatest(store);
    return null;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await store.close();
  }
}

describe("a database a newer version migrated (docs/upgrading.md)", () => {
  it("stops this version with a message that says what happened and what to do, and changes nothing", async () => {
    const file = await template();
    // What an upgrade leaves behind: a migration this version does not know.
    const db = new DatabaseSync(file);
    db.prepare("insert into kysely_migration (name, timestamp) values (?, ?)").run(
      "999_from_a_newer_version",
      new Date().toISOString(),
    );
    db.close();
    const before = migrationsOf(file);

    const failed = await migrationFailure({ kind: "sqlite", file });
    expect(failed).toContain("migrated by a newer version of the site");
    expect(failed).toContain('"999_from_a_newer_version"');
    expect(failed).toContain("restore the backup taken before the upgrade (docs/upgrading.md)");
    expect(migrationsOf(file)).toEqual(before);
  });
});

describe("a PostgreSQL database that cannot be opened at start", () => {
  it("says what to check in DATABASE_URL, without its password", async () => {
    const failed = await migrationFailure({
      kind: "postgres",
      connectionString: "postgres://ewe:the-password@127.0.0.1:1/ewe",
    });
    expect(failed).toContain("the database of DATABASE_URL could not be opened (");
    expect(failed).toContain("ECONNREFUSED 127.0.0.1:1");
    expect(failed).toContain("Check that PostgreSQL runs there");
    expect(failed).not.toContain("the-password");
  });
});
