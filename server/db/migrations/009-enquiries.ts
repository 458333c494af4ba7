import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { kinds as before } from "./005-notifications.ts";
import { dialectHelpers, widenOutboxKinds } from "./dialect.ts";

/*
 * The enquiries a reader sends from /services (docs/product.md, "Enquiries"):
 * the enquiry with its status, the owner's answers, and the time of the last
 * acknowledgement per address (an HMAC of the address, never the address),
 * so that the form cannot mail one inbox more than once an hour. The outbox
 * takes three more kinds of mail. This text is frozen once shipped: its lists
 * are its own and the earlier migrations', never today's constants.
 */

export const outboxKinds = [...before, "enquiry_notice", "enquiry_ack", "enquiry_answer"];

export function enquiriesMigration(kind: DatabaseKind): Migration {
  const { identity, timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await widenOutboxKinds(db, kind, outboxKinds);
      await db.schema
        .createTable("enquiries")
        .addColumn("id", "integer", identity)
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("email", "text", (c) => c.notNull())
        .addColumn("service", "text", (c) => c.notNull())
        .addColumn("organisation", "text")
        .addColumn("timeline", "text")
        .addColumn("message", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) =>
          c.notNull().defaultTo("new").check(sql`status in ('new', 'answered', 'closed')`),
        )
        // 1: the owner keeps it past the retention period.
        .addColumn("kept", "integer", (c) => c.notNull().defaultTo(0).check(sql`kept in (0, 1)`))
        .addColumn("ip_hash", "text", (c) => c.notNull())
        // The Message-ID the acknowledgement carries; the owner's answers reply to it.
        .addColumn("thread_id", "text", (c) => c.notNull())
        // SHA-256 of the sender's deletion link's token.
        .addColumn("deletion_token_hash", "text", (c) => c.notNull().unique())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addColumn("updated_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("enquiries_by_time")
        .on("enquiries")
        .columns(["created_at", "id"])
        .execute();
      await db.schema
        .createIndex("enquiries_by_email")
        .on("enquiries")
        .expression(sql`lower(email)`)
        .execute();
      await db.schema
        .createIndex("enquiries_by_ip")
        .on("enquiries")
        .columns(["ip_hash", "created_at"])
        .execute();

      await db.schema
        .createTable("enquiry_answers")
        .addColumn("id", "integer", identity)
        .addColumn("enquiry_id", "integer", (c) =>
          c.notNull().references("enquiries.id").onDelete("cascade"),
        )
        .addColumn("body", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("enquiry_answers_by_enquiry")
        .on("enquiry_answers")
        .column("enquiry_id")
        .execute();

      await db.schema
        .createTable("enquiry_acknowledgements")
        .addColumn("address_hash", "text", (c) => c.primaryKey())
        .addColumn("sent_at", timestamp, (c) => c.notNull())
        .execute();
    },
  };
}
