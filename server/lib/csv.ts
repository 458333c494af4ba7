/**
 * A spreadsheet opening an export runs a cell that starts with = + - @ as a
 * formula, which can fetch URLs or, through DDE, start programs. Quote-aware
 * importers (Excel, LibreOffice) first strip a field's surrounding double
 * quotes, and some skip leading spaces, so `"=1+1"` and ` =1+1` are formulas
 * too; Excel also takes the full-width ＝ ＋ － ＠. Names and comments are
 * anyone's text, so such cells get a leading single quote, which spreadsheets
 * read as "this is text" (OWASP's advice on CSV injection). A tab or carriage
 * return first is treated the same. JSON output stays verbatim.
 */
function neutraliseFormula(value: string): string {
  return /^[\s"']*[=+\-@\uff1d\uff0b\uff0d\uff20]|^[\t\r]/u.test(value) ? `'${value}` : value;
}

/**
 * RFC 4180: CRLF line ends; fields with a comma, quote or line break are
 * quoted, and those with a semicolon or a tab too: a spreadsheet set to a
 * language whose lists use ";" (German, French) splits a .csv there, and the
 * part after one would start a cell of its own, formula or not.
 */
export function toCsv(rows: string[][]): string {
  const field = (raw: string) => {
    const value = neutraliseFormula(raw);
    return /[",;\t\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
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
