import { type RawBuilder, sql, type Transaction } from "kysely";
import type { Database } from "../db/schema.ts";
import { exportValue, type UniqueKey, uniqueValue } from "./columns.ts";
import { type ExportTable, exportTables } from "./tables.ts";

/*
 * What an import asks of the site's rows (apply-export.ts): which hold a
 * key of the file's rows, which hold their ids, and which a run before
 * brought in under new ids.
 */

export type Row = Record<string, string | number | null>;
type Trx = Transaction<Database>;

/**
 * The source key of a row that could not keep its id (another row of the site
 * has it): with its time, it tells this file's row from another site's row
 * of that id, so a second run finds the row it became.
 */
export const remapSource = "export";
export const remapKey = (table: string, id: number, since: unknown) =>
  `${table}:${id}:${String(since)}`;

export const identityTables = new Map(
  exportTables.filter((t) => t.identity).map((t) => [t.name as string, t]),
);

/** One key's value for a query: each column as the index has it. */
function keyColumns(key: Pick<UniqueKey, "columns" | "lower">): RawBuilder<unknown>[] {
  return key.columns.map((c) =>
    key.lower?.includes(c) ? sql`lower(${sql.ref(c)})` : sql`${sql.ref(c)}`,
  );
}

/** The site's rows among `rows` by one key: each key's value, and its row's id (0 without one). */
export async function localByKey(
  trx: Trx,
  table: ExportTable,
  key: UniqueKey,
  rows: Row[],
): Promise<Map<string, number>> {
  const wanted = rows.flatMap((row) => {
    const value = uniqueValue(key, row);
    return value === null ? [] : [JSON.parse(value) as unknown[]];
  });
  const found = new Map<string, number>();
  if (wanted.length === 0) return found;
  const columns = keyColumns(key);
  const where =
    columns.length === 1
      ? sql`${columns[0]} in (${sql.join(wanted.map((values) => values[0]))})`
      : sql.join(
          wanted.map(
            (values) =>
              sql`(${sql.join(
                columns.map((column, i) => sql`${column} = ${values[i]}`),
                sql` and `,
              )})`,
          ),
          sql` or `,
        );
  const id = table.identity ? sql.ref(table.identity) : sql`0`;
  const { only } = key;
  const selected = only ? [...key.columns, only.column] : key.columns;
  const partial = only ? sql` and ${sql.ref(only.column)} = ${only.equals}` : sql``;
  const { rows: matches } = await sql<Row & { row_id: number }>`select ${id} as row_id,
    ${sql.join(selected.map((c) => sql.ref(c)))}
    from ${sql.table(table.name)} where (${where})${partial}`.execute(trx);
  for (const match of matches) {
    const normalised: Row = {};
    for (const column of table.columns) {
      if (selected.includes(column.name)) {
        normalised[column.name] = exportValue(column, match[column.name]);
      }
    }
    const value = uniqueValue(key, normalised);
    if (value !== null) found.set(value, Number(match.row_id));
  }
  return found;
}

export async function existingIds(
  trx: Trx,
  table: string,
  ids: number[],
): Promise<Map<number, Row>> {
  const found = new Map<number, Row>();
  if (ids.length === 0) return found;
  const source = identityTables.get(table);
  const since = source?.since ? sql.ref(source.since) : sql`null`;
  const { rows } = await sql<{ id: number; since: unknown }>`select id, ${since} as since
    from ${sql.table(table)} where id in (${sql.join(ids)})`.execute(trx);
  for (const row of rows) {
    found.set(Number(row.id), {
      since: row.since === null ? null : exportValue({ name: "since", type: "time" }, row.since),
    });
  }
  return found;
}

/** The rows a run before brought in under new ids, by their remap keys, while they are here. */
export async function remappedHere(
  trx: Trx,
  table: ExportTable,
  wanted: string[],
): Promise<Map<string, number>> {
  const { rows: found } = await sql<{ source_id: string; row_id: number }>`
    select source_id, row_id from import_sources
    where source = ${remapSource} and source_id in (${sql.join(wanted)})
    and row_table = ${table.name}`.execute(trx);
  const still = await existingIds(
    trx,
    table.name,
    found.map((r) => Number(r.row_id)),
  );
  // A row deleted since is brought in again, as a row whose id was free would be.
  const sources = new Map<string, number>();
  for (const record of found) {
    if (still.has(Number(record.row_id))) sources.set(record.source_id, Number(record.row_id));
  }
  return sources;
}
