import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";
import { dialectHelpers } from "./dialect.ts";

/**
 * The suppressed addresses and the soft bounces counted towards one keep no
 * address (docs/decisions/059-suppressions-without-addresses.md): each row
 * keeps a keyed digest of its mailbox instead, made by `key` (the site's,
 * from its cookie secret: a migration alone cannot make it), the suppressed
 * address its domain, and the receiving server's words every address and the
 * address's name cut out. The tables are made anew in one transaction, on
 * either database, with the rows that existed converted; a database holding
 * some is refused without the key, and the migration runs again once given.
 * Two spellings of one mailbox become one row, a complaint's if one was.
 * This text is frozen once shipped.
 */
export function suppressionsDigested(
  kind: DatabaseKind,
  key: ((email: string) => string) | undefined,
): Migration {
  const { identity, timestamp, bigId } = dialectHelpers(kind);
  return {
    async up(db: Kysely<unknown>) {
      const { rows: suppressed } = await sql<{
        email: string;
        reason: string;
        source: string;
        detail: string | null;
        created_at: unknown;
      }>`select email, reason, source, detail, created_at from suppressions`.execute(db);
      const { rows: bounces } = await sql<{ email: string; ref: string; created_at: unknown }>`
        select email, ref, created_at from soft_bounces order by id`.execute(db);
      if (!key && suppressed.length + bounces.length > 0) {
        throw new Error(
          "The suppressed addresses are kept as keyed digests now, made with the site's secret: set COOKIE_SECRET (or run this where DATA_DIR holds cookie-secret) and start again.",
        );
      }
      const digest = key ?? String;
      // Complaints first: the one row of a mailbox spelt twice is its complaint.
      const ordered = [
        ...suppressed.filter((row) => row.reason === "complaint"),
        ...suppressed.filter((row) => row.reason !== "complaint"),
      ];
      const remake = async (trx: Kysely<unknown>) => {
        // Dropped first, so the new tables, constraints and indexes take the old names.
        await trx.schema.dropTable("suppressions").execute();
        await trx.schema.dropTable("soft_bounces").execute();
        await trx.schema
          .createTable("suppressions")
          .addColumn("email_hash", "text", (c) => c.primaryKey())
          .addColumn("domain", "text", (c) => c.notNull())
          .addColumn("reason", "text", (c) => c.notNull())
          .addColumn("source", "text", (c) => c.notNull())
          .addColumn("detail", "text")
          .addColumn("created_at", timestamp, (c) => c.notNull())
          .execute();
        await trx.schema
          .createTable("soft_bounces")
          .addColumn("id", bigId, identity)
          .addColumn("email_hash", "text", (c) => c.notNull())
          .addColumn("ref", "text", (c) => c.notNull().unique())
          .addColumn("created_at", timestamp, (c) => c.notNull())
          .execute();
        for (const row of ordered) {
          const domain = row.email.slice(row.email.lastIndexOf("@") + 1).toLowerCase();
          await sql`insert into suppressions
            (email_hash, domain, reason, source, detail, created_at)
            values (${digest(row.email)}, ${domain}, ${row.reason}, ${row.source},
              ${cut(row.detail, row.email)}, ${row.created_at})
            on conflict (email_hash) do nothing`.execute(trx);
        }
        for (const row of bounces) {
          await sql`insert into soft_bounces (email_hash, ref, created_at)
            values (${digest(row.email)}, ${row.ref}, ${row.created_at})`.execute(trx);
        }
        await trx.schema
          .createIndex("suppressions_by_time")
          .on("suppressions")
          .columns(["created_at", "email_hash"])
          .execute();
        await trx.schema
          .createIndex("soft_bounces_by_email")
          .on("soft_bounces")
          .columns(["email_hash", "created_at"])
          .execute();
      };
      // PostgreSQL runs each migration in a transaction; SQLite's is opened here.
      if (db.isTransaction) await remake(db);
      else await db.transaction().execute(remake);
    },
  };
}

/** The server's words without any address, nor the address's name (with or without its tag). */
function cut(detail: string | null, email: string): string | null {
  if (detail === null) return null;
  const local = email.slice(0, email.lastIndexOf("@"));
  const names = [...new Set([local, local.split("+")[0] ?? ""])]
    .filter((name) => name.length > 0)
    .map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const words = detail.replace(/[^\s<>"'(),;:[\]]+@[^\s<>"'(),;:[\]]+/g, "[address]");
  return names.length > 0
    ? words.replace(new RegExp(`(?<![\\w.+-])(?:${names.join("|")})(?![\\w.+-])`, "gi"), "[name]")
    : words;
}
