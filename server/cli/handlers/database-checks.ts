import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { migrations } from "../../db/migrations.ts";
import { migrateToLatest, openStore } from "../../db/store.ts";
import { isWrittenTime } from "../../portability/columns.ts";
import { exportTables } from "../../portability/tables.ts";
import { AdminError } from "../command.ts";

/*
 * Whether a file is one of the site's backups, before a restore puts it in place
 * (docs/backups.md, "Backups").
 */

/** The tables a database of this site has; a file without them is not one of its backups. */
const expectedTables = ["subscribers", "science_comments", "events", "kysely_migration"];

/**
 * Throws when `file` is a SQLite database cut short: fewer bytes than the pages
 * its header counts (a copy or download stopped half way), which SQLite may
 * read as a smaller database without a word, or call malformed.
 */
function assertWhole(file: string, role: string): void {
  const header = Buffer.alloc(100);
  const size = statSync(file).size;
  const descriptor = openSync(file, "r");
  try {
    if (readSync(descriptor, header, 0, 100, 0) < 100) return; // Not a database: said below.
  } finally {
    closeSync(descriptor);
  }
  if (header.toString("latin1", 0, 16) !== "SQLite format 3\0") return;
  const pageSize = header.readUInt16BE(16) === 1 ? 65_536 : header.readUInt16BE(16);
  // The page count is the file's own only while the counter beside it matches.
  const pages = header.readUInt32BE(92) === header.readUInt32BE(24) ? header.readUInt32BE(28) : 0;
  const expected = Math.max(pages * pageSize, Math.ceil(size / pageSize) * pageSize);
  if (size < expected) {
    throw new AdminError(
      `${role} ${file} is cut short: it has ${size} bytes of the ${expected} its pages take (a copy or download stopped half way?). Restore a whole copy of it.`,
    );
  }
}

/** Throws unless `file` is an intact SQLite database with this site's tables. */
export function checkDatabase(file: string, role: string): void {
  assertWhole(file, role);
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true });
  } catch (error) {
    throw new AdminError(`${role} ${file} cannot be opened: ${(error as Error).message}`);
  }
  try {
    const check = db.prepare("pragma quick_check").get() as { quick_check: string } | undefined;
    if (check?.quick_check !== "ok") {
      throw new AdminError(`${role} ${file} is damaged: ${check?.quick_check ?? "no answer"}`);
    }
    const rows = db.prepare("select type, name from sqlite_master").all();
    const tables = new Set(rows.filter((row) => row.type === "table").map((row) => row.name));
    const missing = expectedTables.filter((table) => !tables.has(table));
    if (missing.length > 0) {
      throw new AdminError(
        `${role} ${file} is not a database of this site (no ${missing.join(", ")} table).`,
      );
    }
    // The site makes none: one would run its own statements on the site's every write.
    const added = rows.filter((row) => row.type === "trigger" || row.type === "view");
    if (added.length > 0) {
      const names = added.map((row) => `${String(row.type)} ${String(row.name)}`).join(", ");
      throw new AdminError(
        `${role} ${file} holds what this site never makes (${names}): it is not one of its backups.`,
      );
    }
    const known = migrations("sqlite");
    const ran = db.prepare("select name from kysely_migration").all();
    const newer = ran.map((row) => String(row.name)).filter((name) => !(name in known));
    if (newer.length > 0) {
      throw new AdminError(
        `${role} ${file} was made by a newer version of the site (its migration "${newer[0]}" is not in this version): restore it with that version.`,
      );
    }
  } catch (error) {
    if (error instanceof AdminError) throw error;
    throw new AdminError(`${role} ${file} is not a SQLite database: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}

/**
 * What a SQLite database is made of, a line per column, index, foreign key and
 * other object, as SQLite describes them (not their statements' text, which
 * differs with the version that wrote them).
 */
function shapeOf(file: string): Set<string> {
  using db = new DatabaseSync(file, { readOnly: true });
  const lines = new Set<string>();
  const all = (query: string, ...args: string[]) =>
    db.prepare(query).all(...args) as Record<string, string | number | null>[];
  const objects = all(
    "select type, name, tbl_name from sqlite_schema where name not like 'sqlite\\_%' escape '\\'",
  );
  for (const { type, name, tbl_name: table } of objects) {
    const of = String(name);
    if (type === "table") {
      for (const c of all("select * from pragma_table_xinfo(?)", of)) {
        const nullable = c.notnull ? " not null" : "";
        const key = c.pk ? ` key ${c.pk}` : "";
        const fallback = c.dflt_value === null ? "" : ` default ${c.dflt_value}`;
        lines.add(
          `table ${of}: column ${c.name} ${c.type}${nullable}${key}${fallback}${c.hidden ? ` hidden ${c.hidden}` : ""}`,
        );
      }
      for (const f of all("select * from pragma_foreign_key_list(?)", of)) {
        lines.add(
          `table ${of}: ${f.from} refers to ${f.table}.${f.to} ${f.on_update} ${f.on_delete}`,
        );
      }
      const [kind] = all("select strict, wr from pragma_table_list(?)", of);
      if (kind?.strict || kind?.wr)
        lines.add(`table ${of}: strict ${kind.strict} without rowid ${kind.wr}`);
    } else if (type === "index") {
      const columns = all(
        "select name from pragma_index_xinfo(?) where key = 1 order by seqno",
        of,
      );
      const [index] = all("select * from pragma_index_list(?) where name = ?", String(table), of);
      const named = columns.map((c) => c.name ?? "(expression)").join(", ");
      lines.add(
        `index ${of} on ${table} (${named}) unique ${index?.unique} partial ${index?.partial}`,
      );
    } else {
      lines.add(`${type} ${of}`);
    }
  }
  return lines;
}

/** Throws unless the migrated `file` is made as this version makes a new database. */
export async function assertShaped(file: string, role: string): Promise<void> {
  const folder = mkdtempSync(path.join(os.tmpdir(), "ewe-restore-"));
  try {
    const fresh = path.join(folder, "new.sqlite");
    const store = await openStore({ kind: "sqlite", file: fresh });
    try {
      await migrateToLatest(store);
    } finally {
      await store.close();
    }
    const made = shapeOf(fresh);
    const found = shapeOf(file);
    const differences = [
      ...[...found].filter((line) => !made.has(line)).map((line) => `holds ${line}`),
      ...[...made].filter((line) => !found.has(line)).map((line) => `lacks ${line}`),
    ];
    if (differences.length > 0) {
      const shown = differences.slice(0, 5).join("; ");
      const more = differences.length > 5 ? ` and ${differences.length - 5} more` : "";
      throw new AdminError(
        `${role} is not made as this version of the site makes its database, whatever its migrations say (it ${shown}${more}): it was changed by hand, or is not one of its backups.`,
      );
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The storage classes (`typeof`) a column of each declared type holds when the site wrote it. */
const heldAs: Record<string, readonly string[]> = {
  integer: ["integer", "null"],
  real: ["real", "integer", "null"],
  text: ["text", "null"],
  varchar: ["text", "null"],
};

/** The time columns of each table, as the export names them. */
const timeColumns = new Map(
  exportTables.map((table) => [
    table.name as string,
    new Set(table.columns.filter((c) => c.type === "time").map((c) => c.name)),
  ]),
);

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Throws unless what the migrated `file` holds is what the site writes: every
 * reference to a row it holds, every key its unique indexes say is one and
 * every CHECK kept (SQLite's integrity check), each value of its column's type
 * and each time a time. SQLite keeps none of these for a file written
 * elsewhere (a backup edited by hand, or crafted), and a page or the console
 * that read such a row would fail.
 */
export function assertContents(file: string, role: string): void {
  using db = new DatabaseSync(file, { enableForeignKeyConstraints: false });
  const refuse = (what: string): never => {
    throw new AdminError(`${role} holds what this site never writes: ${what}`);
  };
  const [dangling] = db.prepare("pragma foreign_key_check").all();
  if (dangling) {
    refuse(
      `${dangling.table} row ${dangling.rowid} refers to a row of ${dangling.parent} that it does not hold`,
    );
  }
  const [integrity] = db.prepare("pragma integrity_check(1)").all();
  if (integrity?.integrity_check !== "ok") {
    refuse(`it fails SQLite's integrity check (${String(integrity?.integrity_check)})`);
  }
  db.function("is_written_time", (value) => (isWrittenTime(value) ? 1 : 0));
  const tables = db
    .prepare(
      "select name, wr from pragma_table_list where schema = 'main' and type = 'table' and name not like 'sqlite\\_%' escape '\\'",
    )
    .all() as { name: string; wr: number }[];
  for (const { name, wr } of tables) {
    const columns = db.prepare("select name, type, pk from pragma_table_xinfo(?)").all(name) as {
      name: string;
      type: string;
      pk: number;
    }[];
    // A row is named by its rowid, or a table without one by its key.
    const key = wr
      ? columns
          .filter((c) => c.pk > 0)
          .map((c) => quoted(c.name))
          .join(" || ' ' || ")
      : "rowid";
    // One read of the table: a flag for each column, the first row any flag is up in.
    const tests = columns.flatMap(({ name: column, type }) => {
      const held = heldAs[type.toLowerCase().replace(/\(.*$/, "")];
      const value = quoted(column);
      const kinds = held
        ? [
            {
              sql: `typeof(${value}) not in (${held.map((kind) => `'${kind}'`).join(", ")})`,
              said: `a value that is not ${held[0]} in ${column}`,
            },
          ]
        : [];
      const time = timeColumns.get(name)?.has(column)
        ? [
            {
              sql: `(${value} is not null and not is_written_time(${value}))`,
              said: `no time in ${column}`,
            },
          ]
        : [];
      return [...kinds, ...time];
    });
    if (tests.length > 0) {
      const flags = tests.map((test, i) => `${test.sql} as f${i}`).join(", ");
      const found = db
        .prepare(
          `select ${key} as id, ${flags} from ${quoted(name)} where ${tests.map((t) => t.sql).join(" or ")} limit 1`,
        )
        .get();
      if (found) {
        const test = tests.find((_, i) => found[`f${i}`] === 1);
        refuse(`${name} row ${String(found.id)} holds ${test?.said}`);
      }
    }
  }
}
