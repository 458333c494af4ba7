import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The addresses the owner's list of suppressions may name (subscribers',
 * those left for reply mails) keep beside them the digest a suppression of
 * their mailbox is kept under (migration 048), made by `key` (the site's,
 * from its cookie secret), in a column indexed on either database: a page
 * of the list finds its names by looking its digests up. The rows that
 * exist are filled here; a database holding some is refused without the
 * key, and the migration runs again once given. This text is frozen once
 * shipped.
 */
export function addressesDigested(key: ((email: string) => string) | undefined): Migration {
  const tables = ["subscribers", "reply_addresses"] as const;
  return {
    async up(db: Kysely<unknown>) {
      for (const table of tables) {
        const { rows } = await sql`select id from ${sql.table(table)} limit 1`.execute(db);
        if (!key && rows.length > 0) {
          throw new Error(
            "The subscribers' and reply mails' addresses keep a keyed digest now, made with the site's secret: set COOKIE_SECRET (or run this where DATA_DIR holds cookie-secret) and start again.",
          );
        }
      }
      const fill = async (trx: Kysely<unknown>) => {
        for (const table of tables) {
          await trx.schema.alterTable(table).addColumn("email_hash", "text").execute();
          const { rows } = await sql<{ id: number; email: string }>`
            select id, email from ${sql.table(table)}`.execute(trx);
          // Five hundred rows a statement: a thousand parameters, within either database's limit.
          for (let at = 0; at < rows.length; at += 500) {
            const values = rows
              .slice(at, at + 500)
              .map((row) => sql`(cast(${Number(row.id)} as integer), ${key?.(row.email) ?? null})`);
            await sql`update ${sql.table(table)} set email_hash = given.column2
              from (values ${sql.join(values)}) as given
              where ${sql.ref(`${table}.id`)} = given.column1`.execute(trx);
          }
          await trx.schema
            .createIndex(`${table}_by_email_hash`)
            .on(table)
            .column("email_hash")
            .execute();
        }
      };
      // PostgreSQL runs each migration in a transaction; SQLite's is opened here.
      if (db.isTransaction) await fill(db);
      else await db.transaction().execute(fill);
    },
  };
}
