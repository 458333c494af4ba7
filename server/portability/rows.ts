import path from "node:path";
import { parse } from "csv-parse/sync";
import { type Problem, problemList } from "./report.ts";

/*
 * A table another system exported, as CSV with a header row or as a JSON array
 * of row objects, read into rows of text cells that each know where in the file
 * they were, so every problem can name its line (docs/decisions/030-import-and-export.md).
 */

export type SourceRow = { where: string; cells: Readonly<Record<string, string>> };

/** Far above any real cell (a comment is at most 2,000 characters), far below memory. */
const maxCellLength = 100_000;

function cellText(value: unknown): string | null {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

function readCsv(name: string, text: string): { rows: SourceRow[]; header: string[] } {
  let header: string[] = [];
  const records = parse(text, {
    bom: true,
    columns: (names: string[]) => {
      header = names.map((n) => n.trim());
      return header;
    },
    skip_empty_lines: true,
    info: true,
  }) as { record: Record<string, string>; info: { lines: number } }[];
  return {
    header,
    rows: records.map(({ record, info }) => ({
      where: `${name} line ${info.lines}`,
      cells: record,
    })),
  };
}

function readJson(
  name: string,
  text: string,
): { rows: SourceRow[]; header: string[]; problems: Problem[] } {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) {
    return {
      rows: [],
      header: [],
      problems: [{ where: name, message: "must be a JSON array of row objects" }],
    };
  }
  const problems = problemList();
  const rows: SourceRow[] = [];
  const header = new Set<string>();
  parsed.forEach((value, index) => {
    const where = `${name} row ${index + 1}`;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      problems.push({ where, message: "is not an object of columns" });
      return;
    }
    const cells: Record<string, string> = {};
    for (const [column, cell] of Object.entries(value)) {
      const text = cellText(cell);
      if (text === null) {
        problems.push({ where: `${where} ${column}`, message: "is not text, a number or null" });
        continue;
      }
      header.add(column);
      cells[column] = text;
    }
    rows.push({ where, cells });
  });
  // A JSON export leaves out a column only where every row lacks it.
  return { rows, header: [...header], problems };
}

/**
 * Reads FILE's rows, checking that it has the columns named (others are left
 * alone: a hosted backend adds its own) and that no cell is absurdly long.
 */
export function readRows(
  file: string,
  text: string,
  required: readonly string[],
): { rows: SourceRow[]; problems: Problem[] } {
  const name = path.basename(file);
  let read: { rows: SourceRow[]; header: string[]; problems?: Problem[] };
  try {
    read = /\.json$/i.test(file) ? readJson(name, text) : readCsv(name, text);
  } catch (error) {
    // csv-parse names the line in its message; JSON.parse names the position.
    const message = `cannot be read: ${String((error as Error).message)}`;
    return { rows: [], problems: [{ where: name, message }] };
  }
  const problems = problemList(read.problems);
  const missing = required.filter((column) => !read.header.includes(column));
  if (missing.length > 0 && (read.rows.length > 0 || /\.csv$/i.test(file))) {
    problems.push({
      where: name,
      message: `has no column ${missing.map((c) => `"${c}"`).join(", ")} (it needs ${required.join(", ")})`,
    });
  }
  for (const row of read.rows) {
    for (const [column, cell] of Object.entries(row.cells)) {
      if (cell.length > maxCellLength) {
        problems.push({
          where: `${row.where} ${column}`,
          message: `is ${cell.length} characters long, more than ${maxCellLength}`,
        });
      }
    }
  }
  return { rows: problems.length > 0 ? [] : read.rows, problems };
}

/**
 * A cell a spreadsheet would run as a formula: "=", "+", "-", "@", a tab or a
 * carriage return first, also behind an opening quote. An import refuses it
 * rather than store what an export would later have to defuse.
 */
export function formulaLeading(cell: string, { prose = false } = {}): boolean {
  const start = cell.replace(/^["']/, "");
  // In a comment's text a dash and a space start a list, not a formula.
  if (prose && /^-[\s-]/.test(start)) return false;
  return /^[=+\-@\t\r]/.test(start);
}
