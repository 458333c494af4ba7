import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";

/*
 * The enquiries a reader sends from /services (docs/product.md, "Enquiries"):
 * the enquiry with its status, the owner's answers, and the time of the last
 * acknowledgement per address (an HMAC of the address, never the address),
 * so that the form cannot mail one inbox more than once an hour. The outbox
 * takes three more kinds of mail. This text is frozen once shipped: it names
 * its own lists instead of reading today's constants.
 */

const outboxKinds = sql.raw(
  [
    "confirmation",
    "edition",
    "comment_notice",
    "comment_digest",
    "webhook",
    "enquiry_notice",
    "enquiry_ack",
    "enquiry_answer",
  ]
    .map((kind) => `'${kind}'`)
    .join(", "),
);

/** SQLite cannot change a CHECK constraint in place: the outbox is rebuilt, keeping rows, ids and sequence. */
async function widenOutboxKinds(db: Kysely<unknown>, kind: DatabaseKind) {
  if (kind === "postgres") {
    await sql`alter table outbox drop constraint outbox_kind_check`.execute(db);
    await sql`alter table outbox add constraint outbox_kind_check check (kind in (${outboxKinds}))`.execute(
      db,
    );
    return;
  }
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
    await sql`insert into outbox_rebuilt (id, kind, edition_id, email, token, status, attempts, next_attempt_at, last_error, created_at, sent_at, payload)
      select id, kind, edition_id, email, token, status, attempts, next_attempt_at, last_error, created_at, sent_at, payload from outbox`.execute(
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

export function enquiriesMigration(kind: DatabaseKind): Migration {
  const timestamp = kind === "sqlite" ? "text" : "timestamptz";
  return {
    async up(db: Kysely<unknown>) {
      await widenOutboxKinds(db, kind);
      await db.schema
        .createTable("enquiries")
        .addColumn("id", "integer", (c) =>
          kind === "sqlite"
            ? c.primaryKey().autoIncrement()
            : c.primaryKey().generatedByDefaultAsIdentity(),
        )
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
        .addColumn("id", "integer", (c) =>
          kind === "sqlite"
            ? c.primaryKey().autoIncrement()
            : c.primaryKey().generatedByDefaultAsIdentity(),
        )
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
