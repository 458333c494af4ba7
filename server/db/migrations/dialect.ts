import type { ColumnDefinitionBuilder } from "kysely";
import type { DatabaseKind } from "../schema.ts";

/**
 * One migration list for both databases. The few dialect differences are
 * confined to the helpers below: identity columns (`autoincrement` is a syntax
 * error on PostgreSQL, identity one on SQLite) and the timestamp type.
 * Never edit a migration that has shipped; add the next one.
 */
export function dialectHelpers(kind: DatabaseKind) {
  return {
    // AUTOINCREMENT so SQLite never reuses the id of a deleted comment or event.
    identity: (column: ColumnDefinitionBuilder) =>
      kind === "sqlite"
        ? column.primaryKey().autoIncrement()
        : column.primaryKey().generatedByDefaultAsIdentity(),
    timestamp: kind === "sqlite" ? ("text" as const) : ("timestamptz" as const),
    bigId: kind === "sqlite" ? ("integer" as const) : ("bigint" as const),
  };
}
