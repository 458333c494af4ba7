import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * What `admin import` brought in, by each source's own id (a Disqus post's id,
 * a WordPress comment's id, an original row's key), and the row it became: a
 * second run of the same import finds every id here and changes nothing
 * (docs/decisions/030-import-and-export.md). The row may since have been
 * deleted; its source id stays, so a deleted import does not come back.
 */
export function importSources(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("import_sources")
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("source_id", "text", (c) => c.notNull())
        .addColumn("row_table", "text", (c) => c.notNull())
        .addColumn("row_id", "integer", (c) => c.notNull())
        .addColumn("imported_at", timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint("import_sources_pkey", ["source", "source_id"])
        .execute();
    },
  };
}
