import { limits } from "../../contract/limits.ts";
import { decodeListPlace, type ListPlace } from "../../contract/list-pages.ts";
import { withControlsShown } from "../../contract/text.ts";
import type { ListPage, PageRequest } from "../db/list-pages.ts";
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
  return listedPages(
    async (context) => ({ entries: await read(context), next: null }),
    header,
    row,
  );
}

/**
 * `listed`, for a list read a page at a time (server/db/list-pages.ts): every
 * page in turn, each written as it comes, the whole list as `listed` would.
 * Nothing is written until the first page is read (a refusal prints nothing).
 */
export function listedPages<T>(
  read: (context: CommandContext, place: PageRequest) => Promise<ListPage<T>>,
  header: string[],
  row: (entry: T) => Cell[],
): Handler {
  return async (context) => {
    const json = Boolean(context.values.json);
    const write = (chunk: string) => context.stdout.write(chunk);
    let after: ListPlace | undefined;
    let shown = 0;
    do {
      const page = await read(context, { after, limit: limits.ownerPageMax });
      if (!after) write(json ? "[" : toTsv([header]));
      for (const entry of page.entries) {
        // As JSON.stringify(list, null, 2) writes each entry of a list.
        const entryJson = () => JSON.stringify(entry, null, 2).replaceAll("\n", "\n  ");
        write(json ? `${shown++ ? "," : ""}\n  ${entryJson()}` : toTsv([text(row(entry))]));
      }
      after = page.next === null ? undefined : (decodeListPlace(page.next) ?? undefined);
    } while (after);
    if (json) write(shown ? "\n]\n" : "]\n");
  };
}

/**
 * Columns padded for a terminal: the first `names` left-aligned (names; two
 * unless given), the rest right (numbers). Without rows, the line `empty`
 * when given.
 */
export function formatTable(
  header: string[],
  rows: Cell[][],
  { empty, names = 2 }: { empty?: string; names?: number } = {},
): string {
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
          column < names ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
        )
        .join("  ")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}
