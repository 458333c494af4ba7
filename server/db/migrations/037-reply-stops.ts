import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * The mailboxes whose readers stopped all reply mails, each as a keyed digest
 * (the address itself is forgotten): typed into a comment form again, they
 * are sent no confirmation mail. This text is frozen once shipped.
 */
export function replyStops(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("reply_stops")
        .addColumn("mailbox_hash", "text", (c) => c.primaryKey())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
    },
  };
}
