import { type ColumnType, sql } from "kysely";

/*
 * The column types of the tables (server/db/schema.ts): what each database
 * returns, and what an insert may leave out.
 */

/**
 * Timestamps are written as ISO-8601 UTC strings on both databases; SQLite
 * returns them as written, PostgreSQL (timestamptz) as `Date`.
 */
export type Timestamp = ColumnType<Date | string, string, string>;
export type MaybeTime = ColumnType<Date | string | null, string | null | undefined, string | null>;
/** A nullable column an insert may leave out. */
export type Maybe<T> = ColumnType<T | null, T | null | undefined, T | null>;
/** A column with a default an insert may leave out. */
export type Defaulted<T> = ColumnType<T, T | undefined, T>;

/** `pg` returns int8 as a string; SQLite returns numbers. */
export type BigId = ColumnType<number | string, never, never>;

/**
 * The most UTF-8 bytes of a text column that an index of the database holds
 * (migrations in server/db/migrations), by what the site writes there: an
 * export's `name<size` columns (server/portability/columns.ts), and what the
 * site takes from elsewhere, refused when longer before it is stored. An
 * index's columns together stay under PostgreSQL's 2,704 bytes a row, so a
 * file's longer value is a problem at its row, not the database's refusal
 * (a test walks the migrated database's indexes), and SQLite, which takes
 * any, never holds a value its own export would refuse.
 */
export const indexedBytes = {
  /** A token or a digest, a browser's id, an item's id or an edition's slug, an import's source. */
  key: 200,
  /**
   * An email address (254 characters, as the forms take one), or what holds one:
   * an import's source key, a bounce's reference; a call's uid (booking.…@host).
   */
  address: 1024,
  /** An address of this site: an item's path, a mention's target. */
  page: 500,
  /** A web address from elsewhere, written out (%-escaped): a webmention's source, a Fediverse id. */
  link: 2000,
};

/**
 * Whether text `column` begins with `prefix`, compared as it is: LIKE would
 * read a `_` or `%` in the prefix (a host name's, say) as a pattern.
 */
export const startsWith = (column: string, prefix: string) =>
  sql<boolean>`substr(${sql.ref(column)}, 1, ${prefix.length}) = ${prefix}`;
