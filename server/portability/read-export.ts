import type { Problem } from "./report.ts";
import {
  type Column,
  type ExportTable,
  exportFormat,
  exportTables,
  exportValue,
  exportVersion,
} from "./tables.ts";

/*
 * Reading an export back (`admin import --from export`): the whole file is
 * checked before anything is written, and every problem is reported with the
 * row it is in (docs/product.md, "Moving in and out").
 */

export type ExportRows = {
  table: ExportTable;
  rows: Record<string, string | number | null>[];
  /** Each row's place in the file's array, for problems found later. */
  at: number[];
};

const maxText = 1_000_000;

function checkValue(column: Column, value: unknown): string | null {
  if (value === null) return column.nullable ? null : "is missing (null)";
  switch (column.type) {
    case "int":
      return Number.isSafeInteger(value) ? null : "must be a whole number";
    case "real":
      return typeof value === "number" && Number.isFinite(value) ? null : "must be a number";
    case "time":
      return typeof value === "string" &&
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(value) &&
        !Number.isNaN(Date.parse(value))
        ? null
        : "must be an ISO-8601 UTC time such as 2025-06-01T12:00:00.000Z";
    default:
      if (typeof value !== "string") return "must be text";
      if (value.length > maxText) return `is longer than ${maxText} characters`;
      if (column.oneOf && !column.oneOf.includes(value)) {
        return `must be one of ${column.oneOf.join(", ")}`;
      }
      return null;
  }
}

const keyOf = (table: ExportTable, row: Record<string, unknown>) =>
  JSON.stringify(table.key.map((k) => row[k]));

/** Checks a parsed export; returns its tables' rows in import order, and every problem found. */
export function readExport(document: unknown): { tables: ExportRows[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const problem = (where: string, message: string) => problems.push({ where, message });
  if (typeof document !== "object" || document === null || Array.isArray(document)) {
    problem("file", "is not a JSON object");
    return { tables: [], problems };
  }
  const file = document as Record<string, unknown>;
  if (file.format !== exportFormat) {
    problem("format", `must be "${exportFormat}": this is not an export of this site`);
  }
  if (!Number.isInteger(file.version) || (file.version as number) < 1) {
    problem("version", "must be a whole number");
  } else if ((file.version as number) > exportVersion) {
    problem(
      "version",
      `is ${String(file.version)}, newer than this version of the site reads (${exportVersion}): update the site first`,
    );
  }
  const given = file.tables;
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    problem("tables", "must be an object of tables");
    return { tables: [], problems };
  }
  const known = new Map(exportTables.map((table) => [table.name as string, table]));
  for (const name of Object.keys(given)) {
    if (!known.has(name)) problem(`tables.${name}`, "is not a table this site exports");
  }
  const tables: ExportRows[] = [];
  for (const table of exportTables) {
    const rows = (given as Record<string, unknown>)[table.name];
    if (rows === undefined) continue;
    if (!Array.isArray(rows)) {
      problem(`tables.${table.name}`, "must be an array of rows");
      continue;
    }
    const seen = new Set<string>();
    const checked: ExportRows["rows"] = [];
    const at: number[] = [];
    rows.forEach((row: unknown, index) => {
      const where = `tables.${table.name}[${index}]`;
      if (typeof row !== "object" || row === null || Array.isArray(row)) {
        problem(where, "is not an object");
        return;
      }
      const values = row as Record<string, unknown>;
      let good = true;
      for (const name of Object.keys(values)) {
        if (!table.columns.some((c) => c.name === name)) {
          problem(`${where}.${name}`, "is not a column of this table");
          good = false;
        }
      }
      for (const column of table.columns) {
        const message =
          column.name in values
            ? checkValue(column, values[column.name])
            : column.nullable
              ? null
              : "is missing";
        if (message) {
          problem(`${where}.${column.name}`, message);
          good = false;
        }
      }
      if (!good) return;
      const key = keyOf(table, values);
      if (seen.has(key)) {
        problem(where, `repeats the ${table.key.join(", ")} of an earlier row (${key})`);
        return;
      }
      seen.add(key);
      const normalised: ExportRows["rows"][number] = {};
      for (const column of table.columns) {
        normalised[column.name] = exportValue(column, values[column.name] ?? null);
      }
      checked.push(normalised);
      at.push(index);
    });
    tables.push({ table, rows: checked, at });
  }
  checkReferences(tables, problem);
  return { tables, problems };
}

/** Rows that point at others the file does not hold (the database has no foreign key to catch them all). */
function checkReferences(tables: ExportRows[], problem: (where: string, message: string) => void) {
  const ids = (name: string) =>
    new Set(tables.find((t) => t.table.name === name)?.rows.map((row) => row.id) ?? []);
  const references: [table: string, column: string, target: string][] = [
    ["outbox", "edition_id", "editions"],
    ["enquiry_answers", "enquiry_id", "enquiries"],
    ["science_comments", "parent_id", "science_comments"],
    ["reply_watches", "address_id", "reply_addresses"],
  ];
  for (const [name, column, target] of references) {
    const targets = ids(target);
    const { rows = [], at = [] } = tables.find((t) => t.table.name === name) ?? {};
    rows.forEach((row, index) => {
      const value = row[column];
      if (value !== null && value !== undefined && !targets.has(value)) {
        problem(
          `tables.${name}[${at[index]}].${column}`,
          `refers to ${target} ${String(value)}, which the file does not hold`,
        );
      }
    });
  }
  const emails = new Set<string>();
  const subscribers = tables.find((t) => t.table.name === "subscribers");
  subscribers?.rows.forEach((row, index) => {
    const email = String(row.email).toLowerCase();
    if (emails.has(email)) {
      problem(
        `tables.subscribers[${subscribers.at[index]}].email`,
        "repeats the address of an earlier row",
      );
    }
    emails.add(email);
  });
}
