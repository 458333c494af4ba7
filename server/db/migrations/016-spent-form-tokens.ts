import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * Form tokens already used for a submission: each serves one, on every
 * instance and across restarts. A row is kept until its token would have
 * expired anyway, then deleted.
 */
export function spentFormTokens(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("spent_form_tokens")
        .addColumn("token", "text", (c) => c.primaryKey())
        .addColumn("expires_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("spent_form_tokens_by_expiry")
        .on("spent_form_tokens")
        .column("expires_at")
        .execute();
    },
  };
}
