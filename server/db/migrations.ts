import { type ColumnDefinitionBuilder, type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import { reactionTypes } from "../../contract/limits.ts";
import type { DatabaseKind } from "./schema.ts";

/**
 * One migration list for both databases. The few dialect differences are
 * confined to the helpers below: identity columns (`autoincrement` is a syntax
 * error on PostgreSQL, identity one on SQLite) and the timestamp type.
 * Never edit a migration that has shipped; add the next one.
 */
function dialectHelpers(kind: DatabaseKind) {
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

const reactionTypeList = sql.raw(reactionTypes.map((type) => `'${type}'`).join(", "));

function engagementTables(kind: DatabaseKind): Migration {
  const { identity, timestamp, bigId } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("subscribers")
        .addColumn("id", "integer", identity)
        .addColumn("email", "text", (c) => c.notNull())
        .addColumn("unsubscribe_token", "text", (c) => c.notNull().unique())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("subscribers_email_key")
        .on("subscribers")
        .unique()
        .expression(sql`lower(email)`)
        .execute();

      for (const [table, itemColumn] of [
        ["mythology_reactions", "story_id"],
        ["science_reactions", "post_id"],
      ] as const) {
        await db.schema
          .createTable(table)
          .addColumn("id", "integer", identity)
          .addColumn(itemColumn, "text", (c) => c.notNull())
          .addColumn("type", "text", (c) => c.notNull().check(sql`type in (${reactionTypeList})`))
          .addColumn("user_name", "text", (c) => c.notNull())
          .addColumn("visitor_id", "text", (c) => c.notNull())
          .addColumn("created_at", timestamp, (c) => c.notNull())
          // One reaction of a type per visitor and item: double clicks and races
          // end here. The index also serves the per-item counts.
          .addUniqueConstraint(`${table}_one_per_visitor`, [itemColumn, "type", "visitor_id"])
          .execute();
      }

      await db.schema
        .createTable("science_comments")
        .addColumn("id", "integer", identity)
        .addColumn("post_id", "text", (c) => c.notNull())
        .addColumn("content", "text", (c) => c.notNull())
        .addColumn("user_name", "text", (c) => c.notNull())
        .addColumn("visitor_id", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addColumn("updated_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("science_comments_by_post")
        .on("science_comments")
        .columns(["post_id", "created_at", "id"])
        .execute();

      await db.schema
        .createTable("events")
        .addColumn("id", bigId, identity)
        .addColumn("topic", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("data", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("events_by_topic")
        .on("events")
        .columns(["topic", "id"])
        .execute();
      await db.schema.createIndex("events_by_age").on("events").column("created_at").execute();
    },
  };
}

/**
 * Unsubscribing deletes the address; the token is kept, without it, so that
 * following the same link again still says "unsubscribed" rather than "unknown".
 */
function unsubscribedTokens(kind: DatabaseKind): Migration {
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

/**
 * Double opt-in, the per-IP record of confirmation mails, editions and the
 * outbox (docs/decisions/008-newsletter.md). Addresses stored before it were
 * subscribed without a confirmation step and were told the newsletter would
 * come: they stay subscribed, as `confirmed`.
 */
function newsletter(kind: DatabaseKind): Migration {
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
      await db.schema
        .createIndex("outbox_one_per_edition")
        .on("outbox")
        .unique()
        .columns(["edition_id", "email"])
        .where(sql.ref("edition_id"), "is not", null)
        .execute();
      await db.schema
        .createIndex("outbox_due")
        .on("outbox")
        .columns(["status", "kind", "id"])
        .execute();
    },
  };
}

/**
 * The owner's console (docs/decisions/012-owner-console.md): one-time sign-in
 * links and sessions, both kept as SHA-256 digests only, passkeys, their
 * challenges, and the audit trail of every action taken in the console.
 */
function ownerConsole(kind: DatabaseKind): Migration {
  const { identity, timestamp, bigId } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("owner_sign_in_links")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("channel", "text", (c) => c.notNull().check(sql`channel in ('cli', 'mail')`))
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addColumn("expires_at", timestamp, (c) => c.notNull())
        .addColumn("used_at", timestamp)
        .execute();
      await db.schema
        .createTable("owner_sessions")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("token_hash", "text", (c) => c.notNull().unique())
        .addColumn("method", "text", (c) => c.notNull().check(sql`method in ('link', 'passkey')`))
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addColumn("last_seen_at", timestamp, (c) => c.notNull())
        .addColumn("revoked_at", timestamp)
        .execute();
      await db.schema
        .createTable("owner_passkeys")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("public_key", "text", (c) => c.notNull())
        .addColumn("counter", bigId, (c) => c.notNull())
        .addColumn("transports", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .addColumn("last_used_at", timestamp)
        .execute();
      await db.schema
        .createTable("owner_challenges")
        .addColumn("challenge", "text", (c) => c.primaryKey())
        .addColumn("purpose", "text", (c) =>
          c.notNull().check(sql`purpose in ('registration', 'authentication')`),
        )
        .addColumn("session_id", "text")
        .addColumn("expires_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("owner_audit")
        .addColumn("id", bigId, identity)
        .addColumn("at", timestamp, (c) => c.notNull())
        .addColumn("session_id", "text")
        .addColumn("action", "text", (c) => c.notNull())
        .addColumn("object", "text")
        .execute();
      await db.schema.createIndex("owner_audit_by_time").on("owner_audit").column("at").execute();
    },
  };
}

/** Migrations by name; names sort in the order they apply. */
export function migrations(kind: DatabaseKind): Record<string, Migration> {
  return {
    "001_engagement": engagementTables(kind),
    "002_unsubscribed_tokens": unsubscribedTokens(kind),
    "003_newsletter": newsletter(kind),
    "006_console": ownerConsole(kind),
  };
}
