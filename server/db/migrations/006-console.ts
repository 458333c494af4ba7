import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * The owner's console (docs/decisions/012-owner-console.md): one-time sign-in
 * links and sessions, both kept as SHA-256 digests only, passkeys, their
 * challenges, and the audit trail of every action taken in the console.
 */
export function ownerConsole(kind: DatabaseKind): Migration {
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
