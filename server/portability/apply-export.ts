import { sql, type Transaction } from "kysely";
import type { Database, DatabaseKind } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { forgetUnheld } from "../engagement/subscribers-retention.ts";
import { type EventJournal, fediverseBlocksTopic } from "../events/journal.ts";
import { type AddressKey, heldAddress } from "../lib/mailbox.ts";
import { nowIso } from "../lib/time.ts";
import { restore } from "../outbox/queue.ts";
import { announceComments, announceReactions, type ImportedComment } from "./announce.ts";
import { keyPlace, type UniqueKey, uniqueValue } from "./columns.ts";
import type { Problem, Skipped, Tally } from "./report.ts";
import {
  existingIds,
  identityTables,
  localByKey,
  type Row,
  remapKey,
  remappedHere,
  remapSource,
} from "./site-rows.ts";
import { type ExportRows, type ExportTable, uniqueKeys } from "./tables.ts";

/** Rows per statement (and, for the other imports, per transaction). */
const batchSize = 500;

export const batchesOf = <T>(list: readonly T[]): T[][] =>
  Array.from({ length: Math.ceil(list.length / batchSize) }, (_, i) =>
    list.slice(i * batchSize, (i + 1) * batchSize),
  );

type Trx = Transaction<Database>;

/** Problems only the database could show (a key a row of the site holds): nothing was written. */
export class ImportRefused extends Error {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(`${problems.length} problems`);
    this.problems = problems;
  }
}

/** What a dry run throws to roll its transaction back. */
const dryRunDone = new Error("dry run");

/** The table a reference points at in this row ("row_table": the row names it). */
function targetOf(table: string, row: Row): string | null {
  const name = table === "row_table" ? String(row.row_table) : table;
  return identityTables.has(name) ? name : null;
}

/**
 * Moves an identity past the imported ids, and past ids the file refers to
 * that its site had deleted, so a new row never takes one of them.
 * PostgreSQL's sequence is set; SQLite's AUTOINCREMENT keeps its own count.
 */
async function followIdentity(trx: Trx, kind: DatabaseKind, table: string, atLeast: number) {
  if (kind === "postgres") {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'),
      greatest((select coalesce(max(id), 0) from ${sql.table(table)}), ${atLeast}, 1))`.execute(
      trx,
    );
  } else {
    await sql`update sqlite_sequence set seq = max(seq, ${atLeast}) where name = ${table}`.execute(
      trx,
    );
  }
}

type Run = {
  trx: Trx;
  events: EventJournal;
  /** Each table's ids in the file, and the ids they became. */
  ids: Map<string, Map<number, number>>;
  /** Ids in the file (rows and references) of each table: new ids are taken above them. */
  ceilings: Map<string, number>;
  problems: Problem[];
  skipped: Skipped[];
  counts: Tally;
  written: Map<string, number>;
  /** The comments written, announced once every table is (their Fediverse writers too). */
  comments: ImportedComment[];
  /** The site's key for the addresses it holds (`heldAddress`). */
  addressKey: AddressKey;
};

/**
 * The rows in the order they are written: rows that refer to their own table
 * (replies) after all the rows they may refer to (the comments that start
 * threads), so each finds the id its comment took.
 */
function groupsOf({ table, rows, at }: ExportRows): { row: Row; at: number }[][] {
  const entries = rows.map((row, index) => ({ row, at: at[index] ?? index }));
  const own = (table.references ?? []).filter((r) => r.table === table.name);
  if (own.length === 0) return [entries];
  const starts = (e: { row: Row }) => own.every((r) => e.row[r.column] === null);
  return [entries.filter(starts), entries.filter((e) => !starts(e))];
}

/**
 * A row with the ids it refers to as they are here. A reference to a row the
 * file does not hold (its site deleted it) is kept where no row here has
 * that id, emptied where one does, and a row that cannot be without it is
 * left out. Null: left out.
 */
async function mapReferences(
  run: Run,
  table: ExportTable,
  entries: { row: Row; at: number }[],
): Promise<({ row: Row; at: number } | null)[]> {
  const references = table.references ?? [];
  const dangling = new Map<string, Set<number>>();
  for (const { row } of entries) {
    for (const reference of references) {
      const value = row[reference.column];
      const target = targetOf(reference.table, row);
      if (value === null || target === null || run.ids.get(target)?.has(Number(value))) continue;
      const set = dangling.get(target) ?? new Set();
      set.add(Number(value));
      dangling.set(target, set);
    }
  }
  const takenHere = new Map<string, Map<number, Row>>();
  for (const [target, ids] of dangling) {
    takenHere.set(target, await existingIds(run.trx, target, [...ids]));
  }
  return entries.map(({ row, at }) => {
    const mapped: Row = { ...row };
    for (const reference of references) {
      const value = row[reference.column];
      const target = targetOf(reference.table, row);
      if (value === null || target === null) continue;
      const id = run.ids.get(target)?.get(Number(value));
      if (id !== undefined) {
        mapped[reference.column] = id;
      } else if (takenHere.get(target)?.has(Number(value))) {
        const column = table.columns.find((c) => c.name === reference.column);
        if (!column?.nullable) {
          run.skipped.push({
            where: `tables.${table.name}[${at}]`,
            reason: `its ${reference.column} ${String(value)} is not in the file, and ${target} ${String(value)} here is another row`,
          });
          return null;
        }
        mapped[reference.column] = null;
      }
    }
    return { row: mapped, at };
  });
}

async function importTable(run: Run, rows: ExportRows): Promise<void> {
  const { table } = rows;
  const { trx } = run;
  const tally = { added: 0, present: 0 };
  run.counts[table.name] = tally;
  const ids = new Map<number, number>();
  run.ids.set(table.name, ids);
  // A row of the site with the same id is another row unless its time is the same (below).
  const keys = table.identity ? [...(table.unique ?? [])] : uniqueKeys(table);
  const sameKeys = keys.filter((key) => key.role === "same");
  const takenKeys = keys.filter((key) => key.role === "taken");
  // Rows this import adds, by each key, for the rows after them.
  const added = new Map(keys.map((key) => [key, new Map<string, number>()]));
  let lastId = 0;
  if (table.identity) {
    const { rows: found } = await sql<{ last: number | string | null }>`select max(id) as last
      from ${sql.table(table.name)}`.execute(trx);
    lastId = Math.max(Number(found[0]?.last ?? 0), run.ceilings.get(table.name) ?? 0);
  }
  const toWrite: Row[] = [];
  const remapped: Row[] = [];
  const batches = groupsOf(rows).flatMap(batchesOf);
  for (const ordered of batches) {
    const mappedEntries = await mapReferences(run, table, ordered);
    const entries = mappedEntries.filter((e): e is { row: Row; at: number } => e !== null);
    const batch = entries.map((e) => e.row);
    const local = new Map<UniqueKey, Map<string, number>>();
    for (const key of keys) local.set(key, await localByKey(trx, table, key, batch));
    const fileId = (row: Row) => Number(row.id);
    const sameId = table.identity
      ? await existingIds(trx, table.name, batch.map(fileId))
      : new Map<number, Row>();
    const sources =
      table.identity && batch.length > 0
        ? await remappedHere(
            trx,
            table,
            batch.map((row) => remapKey(table.name, fileId(row), row[table.since ?? ""])),
          )
        : new Map<string, number>();
    const find = (key: UniqueKey, row: Row): number | undefined => {
      const value = uniqueValue(key, row);
      if (value === null) return undefined;
      return added.get(key)?.get(value) ?? local.get(key)?.get(value);
    };

    for (const { row, at } of entries) {
      const where = `tables.${table.name}[${at}]`;
      const since = row[table.since ?? ""];
      let there: number | undefined;
      for (const key of sameKeys) there ??= find(key, row);
      if (there === undefined && table.identity) {
        if (sameId.get(fileId(row))?.since === since) there = fileId(row);
        else there = sources.get(remapKey(table.name, fileId(row), since));
      }
      if (there !== undefined) {
        tally.present += 1;
        if (table.identity) ids.set(fileId(row), there);
        continue;
      }
      let refused = false;
      for (const key of takenKeys) {
        const holder = find(key, row);
        if (holder === undefined) continue;
        refused = true;
        run.problems.push({
          where: keyPlace(where, key),
          message: `is the ${key.columns.join(", ")} of ${table.name} ${holder} on this site already`,
        });
      }
      if (table.identity) {
        const id = sameId.has(fileId(row)) ? ++lastId : fileId(row);
        ids.set(fileId(row), id);
        if (id !== fileId(row)) {
          remapped.push({
            source: remapSource,
            source_id: remapKey(table.name, fileId(row), since),
            row_table: table.name,
            row_id: id,
            imported_at: nowIso(),
          });
        }
        row.id = id;
      }
      if (refused) continue;
      for (const key of keys) {
        const value = uniqueValue(key, row);
        if (value !== null) added.get(key)?.set(value, table.identity ? Number(row.id) : 0);
      }
      tally.added += 1;
      toWrite.push(row);
    }
  }
  // Once a problem is found nothing will be kept: the rest is only checked.
  if (run.problems.length > 0 || toWrite.length === 0) return;
  for (const batch of batchesOf(toWrite)) {
    // The outbox's rows go in through its module, the table's one writer.
    if (table.name === "outbox") {
      await restore(trx, batch as never);
      // Mails 30 days old to readers who left: forgotten now, the hourly pass reads only newer.
      const emails = batch.flatMap((row) => (typeof row.email === "string" ? [row.email] : []));
      await forgetUnheld(trx, run.addressKey, emails);
    } else
      await trx
        .insertInto(table.name)
        .values(
          (table.columnsLeftOut?.email_hash
            ? batch.map((row) => ({ ...row, ...heldAddress(run.addressKey, String(row.email)) }))
            : batch) as never,
        )
        .execute();
  }
  for (const record of remapped) {
    await trx
      .insertInto("import_sources")
      .values(record as never)
      .onConflict((c) =>
        c.columns(["source", "source_id"]).doUpdateSet({ row_id: Number(record.row_id) }),
      )
      .execute();
  }
  if (table.identity) run.written.set(table.name, lastId);
  if (table.name === "science_comments") {
    run.comments.push(...(toWrite as unknown as ImportedComment[]));
  } else if (table.name === "science_reactions" || table.name === "mythology_reactions") {
    const kind = table.name === "science_reactions" ? "science" : "mythology";
    const items = toWrite.map((row) => String(row.post_id ?? row.story_id));
    await announceReactions(trx, run.events, kind, items);
  } else if (table.name === "fediverse_blocks") {
    // Every running instance's inbox reads the blocks again at once, as after the owner's block.
    await run.events.recordChanged(trx, fediverseBlocksTopic);
  }
}

/** The largest id of each table the file holds or refers to. */
function ceilingsOf(tables: ExportRows[]): Map<string, number> {
  const ceilings = new Map<string, number>();
  const raise = (table: string | null, value: unknown) => {
    if (table === null || value === null || value === undefined) return;
    ceilings.set(table, Math.max(ceilings.get(table) ?? 0, Number(value)));
  };
  for (const { table, rows } of tables) {
    for (const row of rows) {
      if (table.identity) raise(table.name, row[table.identity]);
      for (const reference of table.references ?? []) {
        raise(targetOf(reference.table, row), row[reference.column]);
      }
    }
  }
  return ceilings;
}

/**
 * Writes an export's rows in one transaction: all of them or, when anything
 * stops the import, none. A row keeps its id unless a row of this site has
 * it; then it takes a new one, and the rows that refer to it (replies, a
 * watch, an answer) follow it there. A row already here (the same id and
 * time, the same address, edition or reaction, or one a run before brought
 * in under a new id) is left as it is, so reading the same file twice
 * changes nothing the second time. A row that would take a key a row of this
 * site holds (a token) is a problem. With `dryRun` the same work is done and
 * rolled back. `audit` is recorded in the same transaction, and so is what
 * `finish` adds: the command line hands it the bookings' reminders, a module
 * this one may not import.
 */
export async function applyExport(
  store: Store,
  events: EventJournal,
  avatarOf: (visitorId: string) => string,
  tables: ExportRows[],
  {
    dryRun,
    audit,
    finish,
    addressKey,
  }: {
    dryRun: boolean;
    addressKey: AddressKey;
    audit?: { action: string; object: string };
    /** Given the ids here of each table's rows in the file. */
    finish?: (trx: Trx, ids: ReadonlyMap<string, ReadonlyMap<number, number>>) => Promise<void>;
  },
): Promise<{ counts: Tally; skipped: Skipped[] }> {
  let result: { counts: Tally; skipped: Skipped[] } | undefined;
  try {
    await store.db.transaction().execute(async (trx) => {
      const run: Run = {
        trx,
        events,
        ids: new Map(),
        ceilings: ceilingsOf(tables),
        problems: [],
        skipped: [],
        counts: {},
        written: new Map(),
        comments: [],
        addressKey,
      };
      for (const rows of tables) await importTable(run, rows);
      if (run.problems.length > 0) throw new ImportRefused(run.problems);
      // Open pages get each comment as the list shows it, with its writer on
      // the Fediverse, whose table comes after the comments'.
      await announceComments(trx, events, avatarOf, run.comments);
      result = { counts: run.counts, skipped: run.skipped };
      if (dryRun) throw dryRunDone;
      for (const [table, atLeast] of run.written) {
        await followIdentity(trx, store.kind, table, atLeast);
      }
      await finish?.(trx, run.ids);
      if (audit) {
        await trx
          .insertInto("owner_audit")
          .values({ at: nowIso(), session_id: null, action: audit.action, object: audit.object })
          .execute();
      }
    });
  } catch (error) {
    if (error !== dryRunDone) throw error;
  }
  if (!result) throw new Error("the import ended without a result");
  return result;
}

/** What a dry run into a database not made yet would do: add every row. */
export function countAll(tables: ExportRows[]): Tally {
  return Object.fromEntries(
    tables.map(({ table, rows }) => [table.name, { added: rows.length, present: 0 }]),
  );
}
