import { z } from "zod";
import { rowIdMax } from "../../contract/api.ts";
import { indexedBytes } from "../db/columns.ts";

/*
 * A column of an export's table, and how its values are written (the same
 * from SQLite and PostgreSQL), checked when read back (the same schemas give
 * docs/export-schema.json) and compared under the database's unique keys.
 */

/** How a column's values are written: integers, text, ISO-8601 UTC times, or reals to 4 places. */
type ColumnType = "int" | "text" | "time" | "real";

export type Column = {
  name: string;
  type: ColumnType;
  nullable?: boolean;
  /** The values the database's CHECK constraint allows. */
  oneOf?: readonly string[];
  /**
   * The whole numbers, least and most, that the database's CHECK constraint or
   * the code that reads the column allows: a flag's 0 and 1, a one-row table's id 1.
   */
  wholes?: readonly [least: number, most: number];
  /**
   * The most UTF-8 bytes a text column in an index takes: PostgreSQL refuses an
   * index row over 2,704 bytes, with its own message and no row named.
   */
  bytes?: number;
  /** What a file that lacks the column (one of an earlier version) is read as. */
  absent?: number;
};

const columnTypes: readonly ColumnType[] = ["int", "text", "time", "real"];

/**
 * A table's columns in order, each `name` (text) or `name:type` (int, time,
 * real; flag: a whole number held to 0 and 1; one: the id 1 of a table of
 * one row), or `name=a|b` (text held
 * to those values), or `name<size` (text an index holds, at most
 * `indexedBytes[size]`); `?` at the end when it takes null; `name:int=N` for a
 * column later versions added, read as N from a file that lacks it.
 */
export function columns(spec: string): Column[] {
  return spec
    .trim()
    .split(/\s+/)
    .map((entry) => {
      const nullable = entry.endsWith("?");
      const [name = "", typed = "text"] = entry.replace(/\?$/, "").split(":");
      const [type = "", absent] = typed.split("=");
      if (absent !== undefined) return { name, type: "int", nullable, absent: Number(absent) };
      if (type === "flag") return { name, type: "int", nullable, wholes: [0, 1] };
      if (type === "one") return { name, type: "int", nullable, wholes: [1, 1] };
      const [bare = "", values] = name.split("=");
      if (values) return { name: bare, type: "text", nullable, oneOf: values.split("|") };
      const [indexed = "", size] = name.split("<");
      if (size) {
        const bytes = indexedBytes[size as keyof typeof indexedBytes];
        if (!bytes) throw new Error(`${name}: no size ${size}`);
        return { name: indexed, type: "text", nullable, bytes };
      }
      if (!columnTypes.includes(type as ColumnType)) throw new Error(`${name}: no type ${type}`);
      return { name, type: type as ColumnType, nullable };
    });
}

/**
 * A key the database keeps unique besides the table's own key. `same`: a row
 * of the site with this key is the file's row already there (the same
 * address, the same edition). `taken`: another row cannot take it, so an
 * import refuses the file (a random token that must stay one row's).
 * `lower` compares those columns lower-cased, as the index does; a row with a
 * null in the key, or (for a partial index) without `only`, is not in the index.
 */
export type UniqueKey = {
  columns: readonly string[];
  role: "same" | "taken";
  lower?: readonly string[];
  only?: { column: string; equals: string };
};

/** A unique key's value in a row, as the database's index compares it; null when the index leaves the row out. */
export function uniqueValue(
  key: Pick<UniqueKey, "columns" | "lower" | "only">,
  row: Readonly<Record<string, unknown>>,
): string | null {
  if (key.only && row[key.only.column] !== key.only.equals) return null;
  const values: unknown[] = [];
  for (const column of key.columns) {
    const value = row[column];
    if (value === null || value === undefined) return null;
    values.push(key.lower?.includes(column) ? String(value).toLowerCase() : value);
  }
  return JSON.stringify(values);
}

/** What a problem about a key names: the column, or the row for a key of several. */
export const keyPlace = (where: string, key: Pick<UniqueKey, "columns">) =>
  key.columns.length === 1 ? `${where}.${key.columns[0]}` : where;

/** A row as one line of the file: its columns in the table's order, values as the export writes them. */
export function exportRow(
  table: { columns: readonly Column[] },
  row: Readonly<Record<string, unknown>>,
): string {
  const out: Record<string, string | number | null> = {};
  for (const column of table.columns) out[column.name] = exportValue(column, row[column.name]);
  return JSON.stringify(out);
}

/** A stored value as the export writes it, the same from SQLite and PostgreSQL. */
export function exportValue(column: Column, value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case "int":
      return Number(value);
    case "real":
      // PostgreSQL keeps a real in 4 bytes, SQLite in 8: four places survive both.
      return Math.round(Number(value) * 10_000) / 10_000;
    case "time":
      return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
    default:
      return String(value);
  }
}

const maxText = 1_000_000;
/** The database's integer columns are 32-bit on PostgreSQL. */
const intMin = -rowIdMax - 1;
const timeText = "must be an ISO-8601 UTC time such as 2025-06-01T12:00:00.000Z";

/**
 * A time that names a real moment: no 2025-02-30, which `Date` would move on
 * to March, and no year 0000, which PostgreSQL has not (1 BC comes before 1 AD).
 */
const isRealTime = (value: string) => {
  const time = new Date(value);
  return time.getUTCFullYear() >= 1 && time.toISOString().startsWith(value.slice(0, 19));
};

/** A value of another type: `what` it must be, or that it is missing. */
const typed = (what: string) => ({
  error: (issue: { input?: unknown }) =>
    issue.input === undefined ? "is missing" : issue.input === null ? "is missing (null)" : what,
});
const whole = z.int(typed("must be a whole number"));
const range = `must be between ${intMin} and ${rowIdMax}`;
/** A real is 4 bytes on PostgreSQL, which refuses one beyond about 3.4e38 either way. */
const realMax = 3.4e38;
const realRange = `must be between -${realMax} and ${realMax}`;

/** Each type's values as an export writes them; a column's problem is the first one found. */
const byType = {
  int: whole.min(intMin, range).max(rowIdMax, range),
  real: z.number(typed("must be a number")).min(-realMax, realRange).max(realMax, realRange),
  time: z
    .string(typed(timeText))
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/, timeText)
    .refine(isRealTime, timeText)
    .meta({ format: "date-time" }),
  text: z
    .string(typed("must be text"))
    .max(maxText, `is longer than ${maxText} characters`)
    // Neither engine stores these: PostgreSQL refuses a NUL, and a lone surrogate is no UTF-8.
    .refine(
      (value) => value.isWellFormed() && !value.includes("\u0000"),
      "holds a NUL or a broken character",
    ),
};

/** Whether `value` is a time as the site writes one (an export's, and a backup's `time` column). */
export const isWrittenTime = (value: unknown): boolean => byType.time.safeParse(value).success;

/** Text an index holds: at most `bytes` in UTF-8 (so at most as many characters, which JSON Schema counts). */
const indexedText = (bytes: number) =>
  byType.text
    .refine((value) => Buffer.byteLength(value) <= bytes, `is longer than ${bytes} bytes`)
    .meta({ maxLength: bytes });

/** A whole number from `least` to `most`: "must be 0 or 1", "must be 1". */
function wholeIn([least, most]: readonly [number, number]) {
  const said = least === most ? `must be ${least}` : `must be ${least} or ${most}`;
  return whole.min(least, said).max(most, said);
}

function columnSchema({ type, wholes, oneOf, nullable, bytes, absent }: Column): z.ZodType {
  const schema = wholes
    ? wholeIn(wholes)
    : oneOf
      ? byType.text
          .refine((value) => oneOf.includes(value), `must be one of ${oneOf.join(", ")}`)
          .meta({ enum: oneOf })
      : bytes
        ? indexedText(bytes)
        : byType[type];
  if (absent !== undefined) return schema.optional();
  return nullable ? schema.nullable().optional() : schema;
}

/** A row of a table as an export writes it: its columns, and no others. */
export const rowSchema = (table: { columns: readonly Column[] }) =>
  z.strictObject(
    Object.fromEntries(table.columns.map((column) => [column.name, columnSchema(column)])),
    {
      error: (issue) =>
        issue.code === "unrecognized_keys" ? "is not a column of this table" : "is not an object",
    },
  );
