import { sql, type Transaction } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { EventJournal } from "../events/journal.ts";
import { announceComments, announceReactions, type ImportedComment } from "./announce.ts";
import type { ExportRows } from "./read-export.ts";
import type { Tally } from "./report.ts";
import type { ExportTable } from "./tables.ts";

/** Rows written per transaction. */
export const batchSize = 500;

type Row = Record<string, string | number | null>;

/** The rows of this batch whose key the database already holds. */
async function presentKeys(
  trx: Transaction<Database>,
  table: ExportTable,
  rows: Row[],
): Promise<Set<string>> {
  const keys = table.key.map((k) => sql.ref(k));
  // SQLite takes a list of row values only from a subquery; a single key is a plain list.
  const wanted =
    table.key.length === 1
      ? sql`${keys[0]} in (${sql.join(rows.map((row) => row[table.key[0] ?? ""]))})`
      : sql`(${sql.join(keys)}) in (values ${sql.join(
          rows.map((row) => sql`(${sql.join(table.key.map((k) => row[k]))})`),
        )})`;
  const { rows: found } = await sql<Row>`select ${sql.join(keys)} from ${sql.table(table.name)}
    where ${wanted}`.execute(trx);
  return new Set(found.map((row) => JSON.stringify(table.key.map((k) => String(row[k])))));
}

const keyOf = (table: ExportTable, row: Row) =>
  JSON.stringify(table.key.map((k) => String(row[k])));

/**
 * Writes an export's rows with their own ids, a batch per transaction; rows
 * whose key is already there are left as they are, so reading the same file
 * twice changes nothing the second time. With `dryRun` nothing is written.
 */
export async function applyExport(
  store: Store,
  events: EventJournal,
  avatarOf: (visitorId: string) => string,
  tables: ExportRows[],
  { dryRun }: { dryRun: boolean },
): Promise<Tally> {
  const counts: Tally = {};
  for (const { table, rows } of tables) {
    const entry = { added: 0, present: 0 };
    counts[table.name] = entry;
    for (let start = 0; start < rows.length; start += batchSize) {
      const batch = rows.slice(start, start + batchSize);
      const added = await store.db.transaction().execute(async (trx) => {
        const present = await presentKeys(trx, table, batch);
        const fresh = batch.filter((row) => !present.has(keyOf(table, row)));
        entry.present += batch.length - fresh.length;
        entry.added += fresh.length;
        if (dryRun || fresh.length === 0) return fresh;
        await trx
          .insertInto(table.name)
          .values(fresh as never)
          .execute();
        if (table.name === "science_comments") {
          await announceComments(trx, events, avatarOf, fresh as unknown as ImportedComment[]);
        } else if (table.name === "science_reactions" || table.name === "mythology_reactions") {
          const kind = table.name === "science_reactions" ? "science" : "mythology";
          const item = kind === "science" ? "post_id" : "story_id";
          await announceReactions(
            trx,
            events,
            kind,
            fresh.map((row) => String(row[item])),
          );
        }
        return fresh;
      });
      if (added.length > 0 && !dryRun && store.kind === "postgres" && table.identity) {
        await followIdentity(store, table.name, table.identity);
      }
    }
  }
  return counts;
}

/**
 * Rows written with their own ids leave PostgreSQL's identity sequence
 * behind; the next comment would collide with an imported one. The sequence
 * moves on past the largest id (SQLite's AUTOINCREMENT does so by itself).
 */
export async function followIdentity(store: Store, table: string, column: string): Promise<void> {
  await sql`select setval(pg_get_serial_sequence(${table}, ${column}),
    greatest((select coalesce(max(${sql.ref(column)}), 0) from ${sql.table(table)}), 1))`.execute(
    store.db,
  );
}
