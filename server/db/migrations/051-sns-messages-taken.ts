import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * The SNS messages the site has taken, by their MessageId, for as long as
 * their signature is accepted (docs/mail.md, "Bounces and complaints"): a
 * signed report posted again is answered and changes nothing, on whichever
 * instance it arrives. Amazon's ids and a time: nobody's data.
 */
export function snsMessagesTaken(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("sns_messages")
        .addColumn("message_id", "text", (c) => c.primaryKey())
        .addColumn("taken_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("sns_messages_by_time")
        .on("sns_messages")
        .column("taken_at")
        .execute();
    },
  };
}
