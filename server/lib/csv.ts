/**
 * A spreadsheet opening an export runs a cell that starts with = + - @ (or a
 * tab or carriage return before one) as a formula, which can fetch URLs or, through
 * DDE, start programs. Names and comments are anyone's text, so such cells get a
 * leading single quote, which spreadsheets read as "this is text" (OWASP's advice
 * on CSV injection). JSON output stays verbatim.
 */
export function neutraliseFormula(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** RFC 4180: CRLF line ends; fields with a comma, quote or line break are quoted. */
export function toCsv(rows: string[][]): string {
  const field = (raw: string) => {
    const value = neutraliseFormula(raw);
    return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
  };
  return rows.map((row) => `${row.map(field).join(",")}\r\n`).join("");
}

/** Tab-separated, one record per line: tabs, line breaks and backslashes are escaped. */
export function toTsv(rows: string[][]): string {
  const field = (value: string) =>
    neutraliseFormula(value).replace(
      /[\\\t\r\n]/g,
      (c) => ({ "\\": "\\\\", "\t": "\\t", "\r": "\\r", "\n": "\\n" })[c]!,
    );
  return rows.map((row) => `${row.map(field).join("\t")}\n`).join("");
}
