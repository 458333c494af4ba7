import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { outboxKinds as before } from "./009-enquiries.ts";
import { dialectHelpers, widenOutboxKinds } from "./dialect.ts";

/*
 * Reply notifications (docs/product.md, "Reply mails"): the addresses readers
 * leave to hear of replies, each confirmed once by its owner, and which
 * threads each address follows. The outbox takes three more kinds of mail.
 * This text is frozen once shipped: its lists are its own and the earlier
 * migrations', never today's constants.
 */

const outboxKinds = [...before, "reply_confirmation", "reply_notice", "reply_digest"];

export function replyNotifications(kind: DatabaseKind): Migration {
  const { identity, timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await widenOutboxKinds(db, kind, outboxKinds);
      await db.schema
        .createTable("reply_addresses")
        .addColumn("id", "integer", identity)
        // The browser that left it: only that visitor's comments use it.
        .addColumn("visitor_id", "text", (c) => c.notNull())
        .addColumn("email", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) =>
          c.notNull().defaultTo("pending").check(sql`status in ('pending', 'confirmed')`),
        )
        // SHA-256 of the confirmation link's token; null once confirmed.
        .addColumn("confirm_token_hash", "text", (c) => c.unique())
        .addColumn("confirm_expires_at", timestamp)
        .addColumn("confirmation_sent_at", timestamp)
        // The "all replies" unsubscribe link's token.
        .addColumn("unsubscribe_token", "text", (c) => c.notNull().unique())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addColumn("confirmed_at", timestamp)
        .execute();
      await db.schema
        .createIndex("reply_addresses_one_per_visitor")
        .on("reply_addresses")
        .unique()
        .expression(sql`visitor_id, lower(email)`)
        .execute();
      await db.schema
        .createIndex("reply_addresses_by_email")
        .on("reply_addresses")
        .expression(sql`lower(email)`)
        .execute();

      await db.schema
        .createTable("reply_watches")
        .addColumn("id", "integer", identity)
        .addColumn("address_id", "integer", (c) =>
          c.notNull().references("reply_addresses.id").onDelete("cascade"),
        )
        // The comment that starts the thread followed.
        .addColumn("thread_id", "integer", (c) => c.notNull())
        // The reader's own comment that asked for it: the watch goes with it.
        .addColumn("comment_id", "integer", (c) => c.notNull())
        // The "this thread" unsubscribe link's token.
        .addColumn("unsubscribe_token", "text", (c) => c.notNull().unique())
        // Until then, further replies wait for one digest.
        .addColumn("window_ends_at", timestamp)
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addUniqueConstraint("reply_watches_one_per_thread", ["address_id", "thread_id"])
        .execute();
      await db.schema
        .createIndex("reply_watches_by_thread")
        .on("reply_watches")
        .column("thread_id")
        .execute();
      await db.schema
        .createIndex("reply_watches_by_comment")
        .on("reply_watches")
        .column("comment_id")
        .execute();
    },
  };
}
