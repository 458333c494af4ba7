import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The standing links of mails (a subscriber's unsubscribe link, a reply
 * address's and a followed thread's "stop" links) were kept as their tokens:
 * whoever read the database or a backup could unsubscribe anyone. Each is now
 * kept as a seed, from which a link is made only with the site's key
 * (server/lib/tokens.ts); a token mailed before is kept as the first half of
 * its SHA-256 in hex, so its link keeps working and the database holds no
 * link. The same goes for the tokens of removed subscriptions and for those
 * the outbox's editions and reply mails carry, by which an edition's figures
 * count its unsubscribes and a reply mail finds its watch.
 *
 * And an edition's copy to an address the owner removed keeps, instead of
 * the address, the digest its mailbox is held under (as a subscriber's), in
 * `email_hash`, indexed on either database for rows that have one: the
 * address subscribing again is not queued that edition a second time.
 * This text is frozen once shipped.
 */
export function standingLinksSeeded(): Migration {
  const seedOf = async (token: string) =>
    Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)))
      .toString("hex")
      .slice(0, 32);
  /** Each row's value of `column` as its seed, `idColumn` naming the row. */
  const seeded = async (
    trx: Kysely<unknown>,
    table: string,
    column: string,
    idColumn: string,
    only = sql`true`,
  ) => {
    const named = (id: unknown) =>
      idColumn === "id" ? sql`cast(${Number(id)} as bigint)` : sql`${id}`;
    let after: unknown = null;
    for (;;) {
      const { rows } = await sql<{ id: unknown; value: string }>`
        select ${sql.ref(idColumn)} as id, ${sql.ref(column)} as value from ${sql.table(table)}
        where ${sql.ref(column)} is not null and ${only}
        ${after === null ? sql`` : sql`and ${sql.ref(idColumn)} > ${after}`}
        order by ${sql.ref(idColumn)} limit 5000`.execute(trx);
      if (rows.length === 0) return;
      // Five hundred rows a statement: a thousand parameters, within either database's limit.
      for (let at = 0; at < rows.length; at += 500) {
        const values = await Promise.all(
          rows
            .slice(at, at + 500)
            .map(async (row) => sql`(${named(row.id)}, ${await seedOf(row.value)})`),
        );
        await sql`update ${sql.table(table)} set ${sql.ref(column)} = given.column2
          from (values ${sql.join(values)}) as given
          where ${sql.ref(`${table}.${idColumn}`)} = given.column1`.execute(trx);
      }
      after = rows.at(-1)?.id;
    }
  };
  return {
    async up(db: Kysely<unknown>) {
      const convert = async (trx: Kysely<unknown>) => {
        await seeded(trx, "subscribers", "unsubscribe_token", "id");
        await seeded(trx, "reply_addresses", "unsubscribe_token", "id");
        await seeded(trx, "reply_watches", "unsubscribe_token", "id");
        // Its token is its key: the seeds (32 characters) are never a token (43).
        await seeded(trx, "unsubscribed_tokens", "token", "token", sql`length(token) <> 32`);
        await seeded(
          trx,
          "outbox",
          "token",
          "id",
          sql`kind in ('edition', 'reply_notice', 'reply_digest')`,
        );
        await trx.schema.alterTable("outbox").addColumn("email_hash", "text").execute();
        await trx.schema
          .createIndex("outbox_by_email_hash")
          .on("outbox")
          .columns(["email_hash", "edition_id"])
          .where(sql.ref("email_hash"), "is not", null)
          .execute();
      };
      // PostgreSQL runs each migration in a transaction; SQLite's is opened here.
      if (db.isTransaction) await convert(db);
      else await db.transaction().execute(convert);
    },
  };
}
