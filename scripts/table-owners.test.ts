import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/*
 * Each table is written (inserted into, updated, deleted from) by one folder
 * of server/, its owner; another feature that must change it calls the
 * owner's function, or a hook the composition root hands down where the
 * floors forbid the import (docs/architecture.md, "Who writes which table").
 * Migrations are the schema's, not a feature's, and are not read.
 */

const root = path.resolve(import.meta.dirname, "..");

/** Tables a second folder writes, and why: each is a known exception, not a slip. */
const alsoWrittenBy: Record<string, { folder: string; why: string }> = {
  science_comments: {
    folder: "portability",
    why: "an import of another platform's comments stores them in the import's one transaction",
  },
  subscribers: {
    folder: "portability",
    why: "an import of another platform's list stores it in the import's one transaction",
  },
  owner_audit: {
    folder: "portability",
    why: "an import's audit line is committed with the import; the console, which owns it, sits above",
  },
};

/** Files that write a table whose name they take at run time, which the names above cannot show. */
const writesByName: Record<string, string> = {
  "server/engagement/reactions-repository.ts": "the two reaction tables, its own",
  "server/outbox/suppressions.ts":
    "the digest an instance older than the held addresses' digests left out of subscribers and reply_addresses, filled in during a rolling upgrade (docs/upgrading.md)",
  "server/readers/repository.ts":
    "the counters' write puts each kind of row into its own table (reader_visits, reader_reads, reader_now), its own",
  "server/portability/apply-export.ts":
    "an import from an export writes each table of the file in its one transaction, but the outbox's rows, which queue.ts puts in",
};

/** Every `.ts` file under `dir`, migrations and tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "migrations" ? [] : sources(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

/** SQLite's own table of a table's last id, which an import sets past the ids it brings. */
const notOurs = new Set(["sqlite_sequence"]);

/** The tables a source writes by name: Kysely's insertInto, updateTable, deleteFrom, or in SQL. */
function tablesWritten(source: string): string[] {
  const inSql = [...source.matchAll(/\bsql(?:<[^>]*>)?`([^`]*)`/g)].flatMap(([, text = ""]) => [
    // Neither "on conflict … do update set" nor a lock "for update" names a table written.
    ...text.matchAll(/\b(?:insert into|delete from|(?<!for |key )update) (?!set\b)([a-z_]+)/gi),
  ]);
  const writes = [
    ...source.matchAll(/\.(?:insertInto|updateTable|deleteFrom)\(\s*"([a-z_]+)"/g),
    ...inSql,
  ];
  return [...new Set(writes.map((match) => match[1] as string))].filter(
    (table) => !notOurs.has(table),
  );
}

function writersByTable(): Map<string, Set<string>> {
  const writers = new Map<string, Set<string>>();
  for (const file of sources(path.join(root, "server"))) {
    const folder = path.relative(path.join(root, "server"), file).split(path.sep)[0] as string;
    for (const table of tablesWritten(readFileSync(file, "utf8"))) {
      writers.set(table, (writers.get(table) ?? new Set()).add(folder));
    }
  }
  return writers;
}

describe("the server's tables", () => {
  const writers = writersByTable();

  it("are each written by one folder, but for the exceptions named here", () => {
    const shared = [...writers]
      .map(([table, folders]) => {
        const exception = alsoWrittenBy[table];
        const others = [...folders].filter((folder) => folder !== exception?.folder);
        return { table, folders: others.sort() };
      })
      .filter(({ folders }) => folders.length > 1);
    expect(shared).toEqual([]);
  });

  it("are named where they are written, but in the files named here", () => {
    const byName = sources(path.join(root, "server"))
      .filter((file) =>
        // Kysely's writes given a variable, or SQL's given `sql.table(…)`.
        /\.(?:insertInto|updateTable|deleteFrom)\(\s*[^\s"]|\b(?:insert into|delete from|update) \$\{sql\.table\(/i.test(
          readFileSync(file, "utf8"),
        ),
      )
      .map((file) => path.relative(root, file).split(path.sep).join("/"));
    expect(byName.sort()).toEqual(Object.keys(writesByName).sort());
  });

  it("have the owners docs/architecture.md names for the reply's tables and the outbox", () => {
    const owner = (table: string) => [...(writers.get(table) ?? [])].sort();
    expect(owner("outbox")).toEqual(["outbox"]);
    expect(owner("fediverse_replies")).toEqual(["comments"]);
    expect(owner("approved_visitors")).toEqual(["comments"]);
    expect(owner("confirmation_requests")).toEqual(["comments"]);
    expect(owner("spam_examples")).toEqual(["moderation"]);
  });

  it("have the owners docs/architecture.md's table names, each table once", () => {
    const architecture = readFileSync(path.join(root, "docs/architecture.md"), "utf8");
    const documented = [
      ...architecture.matchAll(/^\| `(\w+)\/` \| (`[a-z_]+`(?:, `[a-z_]+`)*) \|$/gm),
    ]
      .flatMap(([, folder = "", tables = ""]) =>
        [...tables.matchAll(/`([a-z_]+)`/g)].map(([, table]) => `${table} ${folder}`),
      )
      .sort();
    /** The reaction tables are written by name (writesByName); an import writes what it brings. */
    const byName: Record<string, string> = {
      mythology_reactions: "engagement",
      science_reactions: "engagement",
    };
    const owners = [...writers]
      .map(([table, folders]) => {
        const own = [...folders].filter((folder) => folder !== "portability");
        return `${table} ${byName[table] ?? own[0] ?? "portability"}`;
      })
      .sort();
    expect(documented).toEqual(owners);
  });

  it("are found however a write is laid out", () => {
    expect(
      tablesWritten(`await trx\n  .insertInto(\n    "outbox"\n  ).values(row);
        db.updateTable("subscribers"); db.deleteFrom("outbox"); db.selectFrom("events");
        sql\`insert into reader_views (day) values (1) on conflict do update set views = 2\`;
        sql<number>\`with free as (select 1) delete from outbox_marks; update bans set x = 1\`;`),
    ).toEqual(["outbox", "subscribers", "reader_views", "outbox_marks", "bans"]);
  });
});
