import { type RawBuilder, sql } from "kysely";
import type { Config } from "../config.ts";
import type { Store } from "../db/store.ts";
import { exportRow } from "./columns.ts";
import { type ExportSigner, headerLine, tableLine } from "./signature.ts";
import {
  type ExportTable,
  exportedSettings,
  exportFormat,
  exportTables,
  exportVersion,
} from "./tables.ts";

/** Where the export goes, a piece at a time; resolves once the piece may be followed by the next. */
type Sink = (text: string) => Promise<void>;

/** Rows read per query: the export holds one page in memory, however large the site. */
const pageSize = 1000;

type Row = Record<string, unknown>;

/**
 * One table's rows in key order, a page at a time: each page starts after the
 * last key of the one before (keyset paging), so no page rereads the table.
 */
async function* rowsOf(store: Store, table: ExportTable): AsyncGenerator<Row> {
  const columns = table.columns.map((c) => c.name);
  let after: unknown[] | null = null;
  for (;;) {
    const keys = table.key.map((k) => sql.ref(k));
    const position: RawBuilder<unknown> =
      after === null
        ? sql`1 = 1`
        : sql`(${sql.join(keys)}) > (${sql.join(after.map((value) => sql`${value}`))})`;
    const only = table.only
      ? sql`${sql.ref(table.only.column)} = ${table.only.equals}`
      : sql`1 = 1`;
    const { rows }: { rows: Row[] } =
      await sql<Row>`select ${sql.join(columns.map((c) => sql.ref(c)))}
      from ${sql.table(table.name)}
      where ${position} and ${only}
      order by ${sql.join(keys)}
      limit ${pageSize}`.execute(store.db);
    for (const row of rows) yield row;
    const last: Row | undefined = rows.at(-1);
    if (!last || rows.length < pageSize) return;
    after = table.key.map((k): unknown => last[k]);
  }
}

/** The settings listed, as JSON leaves them: without those not set. */
const settingsOf = (config: Config) =>
  Object.fromEntries(
    exportedSettings.map((name) => [name, (config as Record<string, unknown>)[name]]),
  );

/**
 * Writes everything the site owner owns as one JSON document
 * (docs/export-schema.json): a header, then each table's rows, one per line,
 * as they are read, so memory stays bounded however many rows there are.
 * Everything is signed by `signer` as it is written (the comments once
 * more on their own), and the signatures close the file
 * (server/portability/signature.ts).
 * Returns how many rows each table gave.
 */
export async function writeExport(
  store: Store,
  config: Config,
  sink: Sink,
  signer: ExportSigner,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const signature = signer.file.start();
  const comments = signer.comments.start();
  const header = {
    format: exportFormat,
    version: exportVersion,
    exportedAt: new Date().toISOString(),
    settings: settingsOf(config),
  };
  signature.add(headerLine(header));
  const field = (name: keyof typeof header) => `"${name}": ${JSON.stringify(header[name])}`;
  await sink(
    `{\n${field("format")},\n${field("version")},\n${field("exportedAt")},\n${field("settings")},\n"tables": {`,
  );
  let firstTable = true;
  for (const table of exportTables) {
    await sink(`${firstTable ? "" : ","}\n${JSON.stringify(table.name)}: [`);
    firstTable = false;
    signature.add(tableLine(table.name));
    let count = 0;
    let buffered = "";
    for await (const row of rowsOf(store, table)) {
      const line = exportRow(table, row);
      signature.add(line);
      if (table.name === "science_comments") comments.add(line);
      buffered += `${count === 0 ? "" : ","}\n${line}`;
      count += 1;
      if (buffered.length > 64 * 1024) {
        await sink(buffered);
        buffered = "";
      }
    }
    await sink(`${buffered}${count === 0 ? "" : "\n"}]`);
    counts[table.name] = count;
  }
  // The comments' own signature too, for a site of an earlier version to read the file as it did.
  await sink(
    `\n},\n"commentsSignature": ${JSON.stringify(comments.digest())},\n"signature": ${JSON.stringify(signature.digest())}\n}\n`,
  );
  return counts;
}
