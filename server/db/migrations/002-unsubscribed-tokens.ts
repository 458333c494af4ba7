import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * Unsubscribing deletes the address; the token is kept, without it, so that
 * following the same link again still says "unsubscribed" rather than "unknown".
 */
export function unsubscribedTokens(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("unsubscribed_tokens")
        .addColumn("token", "text", (c) => c.primaryKey())
        .addColumn("unsubscribed_at", timestamp, (c) => c.notNull())
        .execute();
    },
  };
}
