import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OutboxKind } from "../../server/db/schema.ts";
import { migrateToLatest, type Store } from "../../server/db/store.ts";
import { createMailer } from "../../server/outbox/mailer.ts";
import {
  type ComposeMail,
  startMailWorker,
  startOutboxLoop,
} from "../../server/outbox/outbox-worker.ts";
import { createOutboxRepository, enqueue } from "../../server/outbox/queue.ts";
import { movableClock } from "./support/clock.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { backends } from "./support/test-app.ts";

/*
 * The database does not decide which kinds of row the outbox takes: the type
 * of `kind` does, where rows are written (docs/decisions/040-outbox-kinds-in-typescript.md).
 * A new kind of mail is a name and a composer, with no migration.
 */

const quiet = { info() {}, warn() {}, error() {} };

let smtp: SmtpSink;
beforeAll(async () => {
  smtp = await startSmtpSink();
});
afterAll(async () => {
  await smtp.close();
});

/** How the outbox table is defined, as the database itself describes it. */
async function outboxDefinition(store: Store) {
  if (store.kind === "sqlite") {
    const { rows } = await sql<{ type: string; name: string; sql: string }>`select type, name, sql
      from sqlite_master where tbl_name = 'outbox' order by type, name`.execute(store.db);
    return { objects: rows };
  }
  const columns = await sql`select column_name, data_type, is_nullable, column_default,
      is_identity, identity_generation, ordinal_position
    from information_schema.columns where table_name = 'outbox' order by ordinal_position`.execute(
    store.db,
  );
  const constraints = await sql<{ name: string; definition: string }>`select conname as name,
      pg_get_constraintdef(oid) as definition
    from pg_constraint where conrelid = 'outbox'::regclass order by conname`.execute(store.db);
  const indexes = await sql`select indexname, indexdef from pg_indexes
    where tablename = 'outbox' order by indexname`.execute(store.db);
  return { columns: columns.rows, constraints: constraints.rows, indexes: indexes.rows };
}

describe.each(backends)("a kind of mail no migration knows, on %s", (backend) => {
  it("is queued, composed by the composer given for it, sent over SMTP and recorded as sent", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { store } = scratch;
      await migrateToLatest(store);

      // A kind no production code names. In production it would be one more
      // name in OutboxKind; here the test stands in for that line.
      const postcard = "test_postcard" as OutboxKind;
      const recipient = `postcard-${backend}@example.com`;
      const composed: { kind: string; id: number }[] = [];
      const compose: ComposeMail = async (row) => {
        composed.push({ kind: row.kind, id: Number(row.id) });
        const { greeting } = JSON.parse(row.payload ?? "{}") as { greeting: string };
        return {
          to: row.email as string,
          subject: `A postcard: ${greeting}`,
          text: `${greeting}, from the outbox.`,
          html: `<p>${greeting}, from the outbox.</p>`,
        };
      };

      const now = new Date().toISOString();
      const queued = await store.db
        .insertInto("outbox")
        .values({
          kind: postcard,
          email: recipient,
          payload: JSON.stringify({ greeting: "Greetings from the seaside" }),
          status: "queued",
          next_attempt_at: now,
          created_at: now,
        })
        .returning("id")
        .executeTakeFirstOrThrow();

      const worker = startMailWorker({
        outbox: createOutboxRepository(store, { retryBaseMs: 50 }),
        mailer: createMailer(
          { smtpUrl: smtp.url, from: "Site <site@example.test>", dataDir: scratch.dataDir },
          quiet,
        ),
        ratePerMinute: 0,
        pollMs: 50,
        log: quiet,
        composers: { [postcard]: compose },
      });
      try {
        worker.wake();
        await smtp.waitFor(() => smtp.to(recipient).length > 0);
        await expect
          .poll(async () =>
            store.db
              .selectFrom("outbox")
              .select(["kind", "email", "status", "attempts", "last_error"])
              .where("id", "=", queued.id)
              .execute(),
          )
          .toEqual([
            { kind: postcard, email: recipient, status: "sent", attempts: 1, last_error: null },
          ]);
      } finally {
        await worker.stop();
      }

      expect(composed).toEqual([{ kind: "test_postcard", id: Number(queued.id) }]);
      const [mail] = smtp.to(recipient);
      expect(smtp.to(recipient)).toHaveLength(1);
      expect(mail?.parsed.subject).toBe("A postcard: Greetings from the seaside");
      expect(mail?.parsed.text?.trim()).toBe("Greetings from the seaside, from the outbox.");
    } finally {
      await scratch.drop();
    }
  });
});

describe.each(backends)(
  "the migration that stops the database checking kinds, on %s",
  (backend) => {
    it("keeps every outbox row, its ids and sequence, its indexes and its other constraints", async () => {
      const scratch = await scratchStore(backend);
      try {
        const { store } = scratch;
        const { db } = store;
        await scratch.migrateTo("016_spent_form_tokens");
        const before = await outboxDefinition(store);

        // Rows of every shape an older version wrote, the last of them deleted:
        // its id must not come back.
        const now = new Date().toISOString();
        const later = new Date(Date.now() + 60_000).toISOString();
        const edition = await db
          .insertInto("editions")
          .values({ slug: "e", subject: "s", html: "h", text: "t", created_at: now })
          .returning("id")
          .executeTakeFirstOrThrow();
        const base = { next_attempt_at: now, created_at: now, attempts: 0 } as const;
        await db
          .insertInto("outbox")
          .values([
            {
              ...base,
              kind: "edition",
              edition_id: edition.id,
              email: "a@example.com",
              token: "unsubscribe-a",
              status: "sent",
              attempts: 1,
              sent_at: now,
            },
            { ...base, kind: "confirmation", email: "b@example.com", token: "t", status: "queued" },
            {
              ...base,
              kind: "webhook",
              email: null,
              payload: '{"commentId":1}',
              status: "failed",
              attempts: 10,
              last_error: "500 from the receiver",
            },
            {
              ...base,
              kind: "reply_digest",
              email: "c@example.com",
              payload: '{"commentId":2}',
              status: "queued",
              next_attempt_at: later,
            },
            { ...base, kind: "enquiry_ack", email: "d@example.com", status: "cancelled" },
          ])
          .execute();
        const last = await db
          .insertInto("outbox")
          .values({ ...base, kind: "comment_notice", email: "e@example.com", status: "queued" })
          .returning("id")
          .executeTakeFirstOrThrow();
        await db.deleteFrom("outbox").where("id", "=", last.id).execute();
        const rowsBefore = await db.selectFrom("outbox").selectAll().orderBy("id").execute();
        expect(rowsBefore).toHaveLength(5);

        // The migration that dropped the check (later ones add columns of their own).
        await scratch.migrateTo("017_outbox_kinds_unchecked");

        expect(await db.selectFrom("outbox").selectAll().orderBy("id").execute()).toEqual(
          rowsBefore,
        );
        const after = await outboxDefinition(store);
        if (store.kind === "sqlite") {
          // The same table but for the check on `kind`, and the same indexes, word for word.
          const withoutKindCheck = (before.objects ?? []).map((object) =>
            object.type === "table"
              ? { ...object, sql: object.sql.replace(/ check \(kind in \([^)]*\)\)/, "") }
              : object,
          );
          expect(withoutKindCheck.find((object) => object.type === "table")?.sql).not.toMatch(
            /kind in/,
          );
          expect(after).toEqual({ objects: withoutKindCheck });
          await expect(sql`pragma foreign_key_check(outbox)`.execute(db)).resolves.toMatchObject({
            rows: [],
          });
        } else {
          expect(before.constraints?.map((c) => c.name)).toContain("outbox_kind_check");
          expect(after).toEqual({
            ...before,
            constraints: before.constraints?.filter((c) => c.name !== "outbox_kind_check"),
          });
        }

        // The id sequence goes on after the deleted row.
        const next = await db
          .insertInto("outbox")
          .values({ ...base, kind: "confirmation", email: "f@example.com", status: "queued" })
          .returning("id")
          .executeTakeFirstOrThrow();
        expect(Number(next.id)).toBe(Number(last.id) + 1);
        // The other constraints still hold.
        await expect(
          db
            .insertInto("outbox")
            .values({
              ...base,
              kind: "confirmation",
              email: "g@example.com",
              status: "lost" as "sent",
            })
            .execute(),
        ).rejects.toThrow(/check/i);
        await expect(
          db
            .insertInto("outbox")
            .values({
              ...base,
              kind: "edition",
              edition_id: edition.id,
              email: "a@example.com",
              status: "queued",
            })
            .execute(),
        ).rejects.toThrow(/unique|duplicate/i);
        await expect(
          db
            .insertInto("outbox")
            .values({
              ...base,
              kind: "edition",
              edition_id: 999,
              email: "h@example.com",
              status: "queued",
            })
            .execute(),
        ).rejects.toThrow(/foreign key/i);
        await expect(
          db
            .insertInto("outbox")
            .values({ kind: "webhook", status: "queued", created_at: now } as never)
            .execute(),
        ).rejects.toThrow(/not.null/i);
        // And a kind the database never heard of is taken.
        await db
          .insertInto("outbox")
          .values({
            ...base,
            kind: "test_postcard" as OutboxKind,
            email: "i@example.com",
            status: "queued",
          })
          .execute();
      } finally {
        await scratch.drop();
      }
    });
  },
);

describe.each(backends)("the outbox's loop, on %s", (backend) => {
  it.each([
    ["", 0],
    [" while a look that finds nothing takes longer than the retry's wait", 200],
  ])("tries a row again when its retry falls due, not at the next poll%s", async (_, lookMs) => {
    const scratch = await scratchStore(backend);
    try {
      const { store } = scratch;
      await migrateToLatest(store);
      const tries: number[] = [];
      // Queued before the loop starts, so that its first look finds it: no wake-up
      // is left over to end a later pause early.
      await enqueue(store.db, new Date().toISOString(), [
        { kind: "test_retried" as OutboxKind, email: `retried-${backend}@example.com` },
      ]);
      const outbox = createOutboxRepository(store, { retryBaseMs: 50 });
      const loop = startOutboxLoop({
        // A database slow to answer (a busy machine's): the look after the first try
        // finds the row not due yet, and answers after it has fallen due.
        outbox: {
          ...outbox,
          async anyDue(kinds) {
            const due = await outbox.anyDue(kinds);
            if (tries.length === 1 && !due) await new Promise((done) => setTimeout(done, lookMs));
            return due;
          },
        },
        kinds: ["test_retried" as OutboxKind],
        ratePerMinute: 0,
        // Far longer than the test waits: only the retry's own wake-up can send it.
        pollMs: 10 * 60_000,
        retryBaseMs: 50,
        log: quiet,
        async deliver() {
          tries.push(Date.now());
          return tries.length === 1
            ? { outcome: "retry", reason: "421 try later" }
            : { outcome: "sent" };
        },
      });
      try {
        await expect.poll(() => tries.length, { timeout: 30_000 }).toBe(2);
        expect((tries[1] ?? 0) - (tries[0] ?? 0)).toBeGreaterThanOrEqual(50);
      } finally {
        await loop.stop();
      }
    } finally {
      await scratch.drop();
    }
  });
});

describe.each(backends)("each kind of mail's turn, on %s", (backend) => {
  const compose: ComposeMail = async (row) => ({
    to: row.email as string,
    subject: row.kind,
    text: `A ${row.kind}.`,
    html: `<p>A ${row.kind}.</p>`,
  });
  const rows = (kind: OutboxKind, count: number) =>
    Array.from({ length: count }, (_, i) => ({ kind, email: `${kind}-${i}@${backend}.test` }));
  const ours = () => smtp.received.filter((mail) => mail.to[0]?.endsWith(`@${backend}.test`));
  /** A worker sending `kinds` over SMTP, two at a time, unpaced, with the time `clock` tells. */
  const sender = (
    { store, dataDir }: { store: Store; dataDir: string },
    kinds: OutboxKind[],
    clock?: () => Date,
  ) =>
    startMailWorker({
      outbox: createOutboxRepository(store, clock ? { clock } : {}),
      mailer: createMailer({ smtpUrl: smtp.url, from: "Site <site@example.test>", dataDir }, quiet),
      ratePerMinute: 0,
      inFlight: 2,
      pollMs: 50,
      log: quiet,
      composers: Object.fromEntries(kinds.map((kind) => [kind, compose])),
    });

  it("sends an enquiry's mail to the owner while an edition and a flood of sign-ups wait, and a confirmation before the edition's backlog", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { store } = scratch;
      await migrateToLatest(store);
      const now = new Date().toISOString();
      // Oldest first: an edition to 100 subscribers, then 100 sign-ups from as many
      // networks, then one enquiry, whose mail to the owner a visitor waits on.
      await enqueue(store.db, now, rows("edition", 100));
      await enqueue(store.db, now, rows("confirmation", 100));
      await enqueue(store.db, now, [{ kind: "enquiry_notice", email: `owner@${backend}.test` }]);

      const worker = sender(scratch, ["edition", "confirmation", "enquiry_notice"]);
      try {
        worker.wake();
        await smtp.waitFor(() => ours().length === 201, 60_000);
      } finally {
        await worker.stop();
      }
      const order = ours().map((mail) => mail.parsed.subject);
      // Before, by kind's name: every confirmation, every edition, then the enquiry (201st).
      expect(order.indexOf("enquiry_notice")).toBeLessThan(50);
      expect(order.indexOf("confirmation")).toBeLessThan(50);
      expect(order.slice(0, 50)).toContain("edition");
    } finally {
      await scratch.drop();
    }
  });

  it("sends the owner's hourly digest within a page or two of its hour while an edition's backlog of many pages goes out", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { store } = scratch;
      await migrateToLatest(store);
      const clock = movableClock();
      const hour = 60 * 60_000;
      const earlier = ours().length;
      const mails = () => ours().slice(earlier);
      // An edition to 600 subscribers (a SQLite page here is 16 rows, a PostgreSQL claim one),
      // and the owner's digest, due in an hour.
      await enqueue(store.db, clock.now().toISOString(), rows("edition", 600));
      await enqueue(store.db, clock.now().toISOString(), [
        {
          kind: "comment_digest",
          email: `owner@${backend}.test`,
          due: new Date(clock.now().getTime() + hour).toISOString(),
        },
      ]);
      const worker = sender(scratch, ["edition", "comment_digest"], clock.now);
      let sentBefore = 0;
      try {
        worker.wake();
        await smtp.waitFor(() => mails().length >= 40, 60_000);
        // The hour strikes with 40 of the 600 sent.
        clock.advance(hour);
        sentBefore = mails().length;
        await smtp.waitFor(
          () => mails().some((mail) => mail.parsed.subject === "comment_digest"),
          60_000,
        );
      } finally {
        await worker.stop();
      }
      const order = mails().map((mail) => mail.parsed.subject);
      expect(sentBefore).toBeLessThan(100);
      // Before, the whole backlog went first: the digest was the 601st mail.
      expect(order.indexOf("comment_digest") - sentBefore).toBeLessThanOrEqual(40);
    } finally {
      await scratch.drop();
    }
  });
});
