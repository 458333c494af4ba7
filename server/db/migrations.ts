import { type ColumnDefinitionBuilder, type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import { reactionTypes } from "../../contract/limits.ts";
import { commentThreads } from "./conversation-migrations.ts";
import { enquiriesMigration } from "./enquiries-migration.ts";
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
 * Moderation and spam defences (docs/decisions/010-moderation-and-spam.md):
 * a comment's status (published, held for the owner, or caught by the
 * honeypot), an HMAC of the address it was written from (for bans), the
 * visitors the owner has approved, and the owner's bans. Comments written
 * before it are published.
 */
function moderation(kind: DatabaseKind): Migration {
  const { identity, timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("science_comments")
        .addColumn("status", "text", (c) =>
          c.notNull().defaultTo("published").check(sql`status in ('published', 'pending', 'spam')`),
        )
        .execute();
      await db.schema.alterTable("science_comments").addColumn("ip_hash", "text").execute();
      await db.schema
        .createIndex("science_comments_by_visitor")
        .on("science_comments")
        .columns(["visitor_id", "created_at"])
        .execute();
      await db.schema
        .createIndex("science_comments_by_status")
        .on("science_comments")
        .columns(["status", "id"])
        .execute();

      await db.schema
        .createTable("approved_visitors")
        .addColumn("visitor_id", "text", (c) => c.primaryKey())
        .addColumn("approved_at", timestamp, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("bans")
        .addColumn("id", "integer", identity)
        .addColumn("visitor_id", "text")
        .addColumn("ip_hash", "text")
        .addColumn("comment_id", "integer")
        .addColumn("created_at", timestamp, (c) => c.notNull())
        // Null: until lifted.
        .addColumn("expires_at", timestamp)
        .addColumn("lifted_at", timestamp)
        .execute();
      await db.schema.createIndex("bans_by_visitor").on("bans").column("visitor_id").execute();
      await db.schema.createIndex("bans_by_ip").on("bans").column("ip_hash").execute();
    },
  };
}

const outboxKinds = sql.raw(
  ["confirmation", "edition", "comment_notice", "comment_digest", "webhook"]
    .map((kind) => `'${kind}'`)
    .join(", "),
);

/**
 * The owner's notifications (docs/decisions/011-owner-notifications.md): the
 * outbox takes three more kinds of row, a webhook call has no recipient
 * address, and a row may carry a JSON payload; the one-time links of the
 * notification mails get their table. SQLite cannot change a CHECK
 * constraint or a NOT NULL in place, so there the outbox is rebuilt in one
 * transaction (SQLite's documented procedure for other schema changes),
 * keeping its rows, ids and id sequence.
 */
function notifications(kind: DatabaseKind): Migration {
  const { timestamp } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      if (kind === "postgres") {
        await sql`alter table outbox drop constraint outbox_kind_check`.execute(db);
        await sql`alter table outbox add constraint outbox_kind_check check (kind in (${outboxKinds}))`.execute(
          db,
        );
        await sql`alter table outbox alter column email drop not null`.execute(db);
        await sql`alter table outbox add column payload text`.execute(db);
      } else {
        await db.transaction().execute(async (trx) => {
          const sequence = await sql<{
            seq: number;
          }>`select seq from sqlite_sequence where name = 'outbox'`.execute(trx);
          await sql`create table outbox_rebuilt (
            id integer primary key autoincrement,
            kind text not null check (kind in (${outboxKinds})),
            edition_id integer references editions (id),
            email text,
            token text,
            status text not null check (status in ('queued', 'sending', 'sent', 'failed', 'cancelled')),
            attempts integer default 0 not null,
            next_attempt_at text not null,
            last_error text,
            created_at text not null,
            sent_at text,
            payload text
          )`.execute(trx);
          await sql`insert into outbox_rebuilt (id, kind, edition_id, email, token, status, attempts, next_attempt_at, last_error, created_at, sent_at)
            select id, kind, edition_id, email, token, status, attempts, next_attempt_at, last_error, created_at, sent_at from outbox`.execute(
            trx,
          );
          await sql`drop table outbox`.execute(trx);
          await sql`alter table outbox_rebuilt rename to outbox`.execute(trx);
          const last = sequence.rows[0]?.seq ?? 0;
          await sql`update sqlite_sequence set seq = max(seq, ${last}) where name = 'outbox'`.execute(
            trx,
          );
          await sql`insert into sqlite_sequence (name, seq) select 'outbox', ${last} where ${last} > 0 and not exists (select 1 from sqlite_sequence where name = 'outbox')`.execute(
            trx,
          );
          await trx.schema
            .createIndex("outbox_one_per_edition")
            .on("outbox")
            .unique()
            .columns(["edition_id", "email"])
            .where(sql.ref("edition_id"), "is not", null)
            .execute();
          await trx.schema
            .createIndex("outbox_due")
            .on("outbox")
            .columns(["status", "kind", "id"])
            .execute();
        });
      }

      // Only a SHA-256 of each token is kept: a copy of the database acts on nothing.
      await db.schema
        .createTable("comment_action_tokens")
        .addColumn("token_hash", "text", (c) => c.primaryKey())
        .addColumn("comment_id", "integer", (c) => c.notNull())
        .addColumn("action", "text", (c) => c.notNull().check(sql`action in ('approve', 'delete')`))
        .addColumn("expires_at", timestamp, (c) => c.notNull())
        .addColumn("used_at", timestamp)
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("comment_action_tokens_by_expiry")
        .on("comment_action_tokens")
        .column("expires_at")
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

/**
 * The owner's own comments (docs/decisions/016-owner-voice.md): a comment
 * written from a signed-in console session carries `by_owner = 1`, which only
 * the server sets and which the "Author" badge shows. Comments written before
 * it are readers'.
 */
function ownerComments(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("science_comments")
        .addColumn("by_owner", "integer", (c) =>
          c.notNull().defaultTo(0).check(sql`by_owner in (0, 1)`),
        )
        .execute();
    },
  };
}

/**
 * The spam filter's memory (docs/decisions/025-spam-that-learns.md): the
 * owner's decisions as training examples, and what the filter did with each
 * comment and why. Neither refers to the comment by a foreign key: a
 * rejected comment is deleted, and what the owner taught with it stays.
 */
function spamFilter(kind: DatabaseKind): Migration {
  const { identity, timestamp, bigId } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("spam_examples")
        .addColumn("id", bigId, identity)
        .addColumn("comment_id", "integer")
        .addColumn("label", "text", (c) => c.notNull().check(sql`label in ('spam', 'ham')`))
        .addColumn("source", "text", (c) =>
          c.notNull().check(sql`source in ('approve', 'publish', 'reject', 'spam', 'ban')`),
        )
        .addColumn("content", "text", (c) => c.notNull())
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("spam_examples_by_comment")
        .on("spam_examples")
        .column("comment_id")
        .execute();
      await db.schema
        .createTable("spam_screening")
        .addColumn("comment_id", "integer", (c) => c.primaryKey())
        .addColumn("outcome", "text", (c) =>
          c.notNull().check(sql`outcome in ('published', 'pending', 'spam')`),
        )
        .addColumn("reason", "text")
        .addColumn("score", "real")
        .addColumn("created_at", timestamp, (c) => c.notNull())
        .execute();
    },
  };
}

/** Migrations by name; names sort in the order they apply. */
export function migrations(kind: DatabaseKind): Record<string, Migration> {
  return {
    "001_engagement": engagementTables(kind),
    "002_unsubscribed_tokens": unsubscribedTokens(kind),
    "003_newsletter": newsletter(kind),
    "004_moderation": moderation(kind),
    "005_notifications": notifications(kind),
    "006_console": ownerConsole(kind),
    "008_owner_comments": ownerComments(),
    "009_enquiries": enquiriesMigration(kind),
    "010_comment_threads": commentThreads(kind),
    "011_spam_filter": spamFilter(kind),
  };
}
