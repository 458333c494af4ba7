import type { ColumnType } from "kysely";

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
