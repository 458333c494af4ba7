import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * The mark a bounce or a complaint leaves for a mail still going out when it
 * is reported (docs/mail.md, "Bounces and complaints"): on PostgreSQL the
 * sender holds its outbox row locked until it records the outcome, so the
 * report leaves its mark here, by the row's id, and the outcome takes it onto
 * the row. An id and a word: nobody's data.
 */
export function outboxMarks(kind: DatabaseKind): Migration {
  const { bigId } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("outbox_marks")
        .addColumn("outbox_id", bigId, (c) => c.primaryKey())
        .addColumn("feedback", "text", (c) => c.notNull())
        .execute();
    },
  };
}
