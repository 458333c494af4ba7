/** RFC 4180: CRLF line ends; fields with a comma, quote or line break are quoted. */
export function toCsv(rows: string[][]): string {
  const field = (value: string) =>
    /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
  return rows.map((row) => `${row.map(field).join(",")}\r\n`).join("");
}

/** Tab-separated, one record per line: tabs, line breaks and backslashes are escaped. */
export function toTsv(rows: string[][]): string {
  const field = (value: string) =>
    value.replace(
      /[\\\t\r\n]/g,
      (c) => ({ "\\": "\\\\", "\t": "\\t", "\r": "\\r", "\n": "\\n" })[c]!,
    );
  return rows.map((row) => `${row.map(field).join("\t")}\n`).join("");
}

/** Columns padded for a terminal: the first two left-aligned (names), the rest right (numbers). */
export function formatTable(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
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
