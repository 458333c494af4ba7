import { sql } from "kysely";
import { encodeListPlace, type ListPlace } from "../../contract/list-pages.ts";

/*
 * The owner's long lists a page at a time (contract/list-pages.ts): newest
 * first by time, then key, each page the rows before a place in that order,
 * read from the end of an index on the two (migration 044), never past an
 * offset. A row added meanwhile is newer than every place already handed
 * out: it is on the first page, and never makes a later one skip or repeat.
 */

export type ListPage<T> = { entries: T[]; next: string | null };
export type PageRequest = { after?: ListPlace | undefined; limit: number };

/** The rows before `place`, `time` and `key` being the list's columns, as SQL. */
export const beforePlace = (time: string, key: string, place: ListPlace) =>
  sql<boolean>`(${sql.ref(time)}, ${sql.ref(key)}) < (${place.at}, ${place.key})`;

/**
 * The page of `rows`, read as `limit` and one more, newest first: `next`
 * names the place of its last entry when that one more came.
 */
export function pageOf<T>(rows: T[], limit: number, placeOf: (row: T) => ListPlace): ListPage<T> {
  const entries = rows.slice(0, limit);
  const last = entries.at(-1);
  return { entries, next: rows.length > limit && last ? encodeListPlace(placeOf(last)) : null };
}
