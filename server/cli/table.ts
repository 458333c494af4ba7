import { withControlsShown } from "../../contract/text.ts";
import { toTsv } from "../lib/csv.ts";
import type { CommandContext, Handler } from "./command.ts";

/*
 * How the commands print what they read: as JSON with --json, else as
 * tab-separated columns (safe to open in a spreadsheet, server/lib/csv.ts)
 * or columns padded for a terminal.
 */

type Printer = Pick<CommandContext, "values" | "stdout">;
/** A table's cell: text, or a number written in digits. */
type Cell = string | number;
const text = (row: Cell[]) => row.map(String);

/** With --json, writes `value` as JSON and says so; otherwise writes nothing. */
export function printedJson({ values, stdout }: Printer, value: unknown): boolean {
  if (values.json) stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  return Boolean(values.json);
}

/**
 * A command that prints the list `read` finds: as JSON with --json, else one
 * tab-separated row per entry under `header`.
 */
export function listed<T>(
  read: (context: CommandContext) => Promise<T[]>,
  header: string[],
  row: (entry: T) => Cell[],
): Handler {
  return async (context) => {
    const list = await read(context);
    if (!printedJson(context, list))
      context.stdout.write(toTsv([header, ...list.map(row).map(text)]));
  };
}

/**
 * Columns padded for a terminal: the first two left-aligned (names), the rest
 * right (numbers). Without rows, the line `empty` when given.
 */
export function formatTable(header: string[], rows: Cell[][], empty?: string): string {
  if (empty !== undefined && rows.length === 0) return `${empty}\n`;
  // Escaped here, as the output would (shownOn), so that the columns line up.
  const all = [header, ...rows.map(text)].map((row) => row.map(withControlsShown));
  const widths = header.map((_, column) =>
    Math.max(...all.map((row) => (row[column] ?? "").length)),
  );
  return all
    .map((row) =>
      row
        .map((cell, column) =>
          column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
        )
        .join("  ")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}
