import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { createOutboxIndexes, dialectHelpers } from "./dialect.ts";

/**
 * Double opt-in, the per-IP record of confirmation mails, editions and the
 * outbox (docs/decisions/008-newsletter.md). Addresses stored before it were
 * subscribed without a confirmation step and were told the newsletter would
 * come: they stay subscribed, as `confirmed`.
 */
export function newsletter(kind: DatabaseKind): Migration {
  const { identity, timestamp, bigId } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("subscribers")
        .addColumn("status", "text", (c) =>
          c.notNull().defaultTo("confirmed").check(sql`status in ('pending', 'confirmed')`),
        )
        .execute();
      await db.schema.alterTable("subscribers").addColumn("confirmed_at", timestamp).execute();
      await db.schema
        .alterTable("subscribers")
        .addColumn("confirmation_sent_at", timestamp)
        .execute();

      // Only a SHA-256 of each token is kept: a copy of the database confirms nobody.
      await db.schema
        .createTable("confirmation_tokens")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("subscriber_id", "integer", (c) =>
          c.notNull().references("subscribers.id").onDelete("cascade"),
        )
        .addColumn("expires_at", timestamp, (c) => c.notNull())
        .addColumn("used_at", timestamp)
        .execute();
      await db.schema
        .createIndex("confirmation_tokens_by_subscriber")
        .on("confirmation_tokens")
        .column("subscriber_id")
        .execute();

      await db.schema
        .createTable("confirmation_requests")
        .addColumn("id", bigId, identity)
        .addColumn("ip", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("confirmation_requests_by_ip")
        .on("confirmation_requests")
        .columns(["ip", "created_at"])
        .execute();

      await db.schema
        .createTable("editions")
        .addColumn("id", "integer", identity)
        .addColumn("slug", "text", (c) => c.notNull().unique())
        .addColumn("subject", "text", (c) => c.notNull())
        .addColumn("html", "text", (c) => c.notNull())
        .addColumn("text", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("outbox")
        .addColumn("id", bigId, identity)
        .addColumn("kind", "text", (c) =>
          c.notNull().check(sql`kind in ('confirmation', 'edition')`),
        )
        .addColumn("edition_id", "integer", (c) => c.references("editions.id"))
        .addColumn("email", "text", (c) => c.notNull())
        // The confirmation link's token until the mail is sent; the unsubscribe token of an edition.
        .addColumn("token", "text")
        .addColumn("status", "text", (c) =>
          c.notNull().check(sql`status in ('queued', 'sending', 'sent', 'failed', 'cancelled')`),
        )
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("next_attempt_at", timestamp, (c) => c.notNull())
        .addColumn("last_error", "text")
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addColumn("sent_at", timestamp)
        .execute();
      // One copy of an edition per address, whoever queues it and however often.
      await createOutboxIndexes(db);
    },
  };
}
