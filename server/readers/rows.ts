import { setImmediate as nextTurn } from "node:timers/promises";
import { sql } from "kysely";
import type { DatabaseKind } from "../db/schema.ts";

/*
 * How the readers' writes hand their rows to the database (repository.ts): as
 * one JSON parameter a statement unpacks, a few thousand at a time with the
 * event loop let go between them, in their key's order.
 */

/** A column of rows handed over as JSON: its name, and the type PostgreSQL reads its text as. */
export type Column = [name: string, type?: "timestamptz" | "integer"];

/**
 * Rows as a `select` the database makes from one JSON parameter (an array of
 * arrays, in the columns' order): SQLite's json_each, PostgreSQL's
 * json_array_elements. However many the rows, the statement's text is the
 * same, so SQLite's prepared statement is reused, and there is one parameter
 * to bind instead of one per value. The `where` lets SQLite read an
 * `on conflict` after it as the insert's.
 */
export function unpacked(kind: DatabaseKind, columns: Column[], rows: unknown[][]) {
  const json = JSON.stringify(rows);
  const field = ([name, type]: Column, index: number) =>
    kind === "sqlite"
      ? sql`value ->> ${sql.lit(index)} as ${sql.ref(name)}`
      : type
        ? sql`cast(item ->> ${sql.lit(index)} as ${sql.raw(type)}) as ${sql.ref(name)}`
        : sql`item ->> ${sql.lit(index)} as ${sql.ref(name)}`;
  const fields = sql.join(columns.map(field));
  return kind === "sqlite"
    ? sql`select ${fields} from json_each(${json}) where true`
    : sql`select ${fields} from json_array_elements(cast(${json} as json)) as item where true`;
}

/** Rows per statement of a write: a few milliseconds of SQLite's time each. */
const stepRows = 2000;

/**
 * `write` over the rows a step at a time, letting the event loop run between
 * steps: node:sqlite runs a statement on the main thread, and a single
 * statement of every view of a busy five seconds held every request back
 * while it ran.
 */
export async function inSteps<T>(
  rows: T[],
  write: (step: T[]) => Promise<unknown>,
  size = stepRows,
): Promise<void> {
  for (let start = 0; start < rows.length; start += size) {
    if (start > 0) await nextTurn();
    await write(rows.slice(start, start + size));
  }
}

/**
 * Rows sorted by their key, the values at `key`'s indexes joined and compared
 * as strings are in JavaScript (code units; for the ASCII of days and hashes,
 * PostgreSQL's "C" order). Every instance writes in this order, so two adding
 * to the same rows wait for each other, never deadlock on PostgreSQL, and the
 * rows a write adds lie in their key's order, not the order their readers came in.
 */
export function byKey<T extends unknown[]>(rows: T[], ...key: number[]): T[] {
  return rows
    .map((row) => [key.map((index) => row[index]).join("\u0000"), row] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, row]) => row);
}
