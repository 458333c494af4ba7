/**
 * A list in parts of 500, for statements that name each in a parameter: a
 * writer of years may have more comments than a statement takes (SQLite
 * 32,766, PostgreSQL 65,535).
 */
export function statementParts<T>(list: readonly T[]): T[][] {
  const parts: T[][] = [];
  for (let start = 0; start < list.length; start += 500) parts.push(list.slice(start, start + 500));
  return parts;
}
