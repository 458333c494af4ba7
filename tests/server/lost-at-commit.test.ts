import { type Kysely, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assistantFeedbackResponseSchema,
  assistantResponseSchema,
} from "../../contract/assistant.ts";
import { slotsResponseSchema } from "../../contract/bookings.ts";
import { isConnectionLost, isDatabaseUnavailable, isLostAtCommit } from "../../server/db/errors.ts";
import { createFormTickets } from "../../server/lib/form-token.ts";
import type { VisitorResponse } from "../support/visitor.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { testIndexJson } from "./support/assistant-index.ts";
import { Owner } from "./support/owner.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { runSql } from "./support/sql.ts";
import { freshItem, json, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A reader's write whose connection to PostgreSQL was lost as it was saved
 * (docs/product.md, "When something fails"): it may or may not have been
 * saved, so the answer, still 503 with Retry-After, says so and asks the
 * reader to look before sending it again, never only to try again (which may
 * post it twice). So does a single write outside a transaction, which
 * commits as it ends; a read lost so is only unreachable. SQLite never loses
 * a connection: this is PostgreSQL's.
 */

const cookieSecret = "lost-at-commit-cookie-secret-0123456789ab";
const newsletterTickets = createFormTickets(cookieSecret);
const lostSaid =
  "The site lost its database as it saved, so this may or may not have been saved. Reload the page (or check your inbox) before you send it again.";
/** The same when the driver gave up waiting: the connection was not lost. */
const unansweredSaid =
  "The site's database did not answer in time as it saved, so this may or may not have been saved. Reload the page (or check your inbox) before you send it again.";

/**
 * Runs `write` while a deferred trigger runs `body` (PL/pgSQL) at the COMMIT
 * of any write to `table`; `before` runs before the trigger is dropped.
 */
async function atCommitOf<T>(
  t: TestApp,
  table: string,
  body: string,
  write: () => Promise<T>,
  before?: () => Promise<unknown>,
): Promise<T> {
  await runSql(
    t,
    `create function at_commit() returns trigger language plpgsql as $$ begin ${body} return null; end $$;
      create constraint trigger at_commit after insert or update on ${table} deferrable initially deferred for each row execute function at_commit()`,
  );
  try {
    return await write();
  } finally {
    await before?.();
    await runSql(t, `drop trigger at_commit on ${table}; drop function at_commit()`);
  }
}

/** The site on PostgreSQL, its assistant answering from the site's own passages. */
const startApp = (env: Record<string, string>) =>
  startTestApp("postgres", {
    assistantIndex: () => testIndexJson(),
    env: { COOKIE_SECRET: cookieSecret, COMMENT_MIN_SECONDS: "0", ...env },
  });

describe("a reader's write whose connection is lost as it is saved, on postgres", () => {
  let t: TestApp;
  let sent = 0;

  beforeAll(async () => {
    t = await startApp({ ENQUIRIES_PER_HOUR: "100" });
  });
  afterAll(async () => {
    await t?.close();
  });

  /**
   * Runs `write` while PostgreSQL ends the connection of any write to
   * `table` at its COMMIT (a deferred trigger that ends its own backend; a
   * statement outside a transaction commits as it ends).
   */
  const losingCommitOn = <T>(table: string, write: () => Promise<T>): Promise<T> =>
    atCommitOf(t, table, "perform pg_terminate_backend(pg_backend_pid());", write);
  const visitor = () => t.visitor({ ip: `10.31.0.${++sent}` });

  /** The reader's writes through the API, and the table each saves into. */
  const writes: [string, string, () => Promise<VisitorResponse>][] = [
    [
      "a comment",
      "science_comments",
      () => visitor().comment(freshItem("science"), "Does soap work in cold water?"),
    ],
    [
      "a reaction",
      "science_reactions",
      () => visitor().react("science", freshItem("science"), "like"),
    ],
    [
      "a subscription",
      "subscribers",
      () => visitor().subscribe(`lost${++sent}@example.com`, t.formToken()),
    ],
    [
      "an enquiry",
      "enquiries",
      () =>
        visitor().post("/api/enquiries", {
          name: "Priya Raman",
          email: `client${++sent}@example.org`,
          service: "vba-tools",
          message: "We need an Excel tool that merges our test bench's CSV files.",
        }),
    ],
    [
      "a booking",
      "bookings",
      async () => {
        const reader = visitor();
        const { starts } = json(await reader.get("/api/bookings/slots"), slotsResponseSchema);
        return reader.post("/api/bookings", {
          start: starts[sent % starts.length],
          name: "Caller",
          email: `caller${++sent}@example.org`,
          service: "vba-tools",
          note: "Our test bench writes a CSV a minute; could a macro gather them?",
          zone: "Europe/Berlin",
        });
      },
    ],
  ];

  it.each(writes)(
    "%s answers 503 that it may or may not have been saved",
    async (_what, table, write) => {
      const lost = await losingCommitOn(table, write);
      expect(lost.statusCode, lost.body).toBe(503);
      expect(lost.headers["retry-after"]).toBe("60");
      expect(JSON.parse(lost.body)).toEqual({
        error: { code: "service_unavailable", message: lostSaid },
      });
    },
  );

  const form = (url: string, fields: Record<string, string> = {}) =>
    t.app.inject({
      method: "POST",
      url,
      remoteAddress: `10.31.1.${++sent}`,
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams(fields).toString(),
    });

  it("the newsletter's and the booking's forms without JavaScript say so on their pages", async () => {
    const ticket = newsletterTickets.seal(`form${++sent}@example.com`, Date.now() - 60_000);
    const lost = await losingCommitOn("subscribers", () =>
      form(`/api/newsletter/continue?ticket=${ticket}`),
    );
    expect(lost.statusCode).toBe(503);
    expect(lost.headers["retry-after"]).toBe("60");
    expect(/<h1>([^<]*)<\/h1>/.exec(lost.body)?.[1]).toBe("It may or may not have been saved");
    expect(lost.body).toContain(lostSaid);

    const { starts } = json(await visitor().get("/api/bookings/slots"), slotsResponseSchema);
    const booking = await losingCommitOn("bookings", () =>
      form("/book", {
        start: starts.at(-1) ?? "",
        name: "Caller",
        email: `caller${++sent}@example.org`,
        service: "vba-tools",
        zone: "Europe/Berlin",
      }),
    );
    expect(booking.statusCode, booking.body).toBe(503);
    expect(booking.headers["retry-after"]).toBe("60");
    expect(booking.body).toContain("it may or may not have been booked");
    expect(booking.body).not.toContain("nothing was booked");
  });

  it("a write outside a transaction says so too", async () => {
    const reader = visitor();
    const asked = await reader.post("/api/assistant", { question: "How does soap clean?" });
    const { id, token } = json(asked, assistantResponseSchema).feedback;
    // The thumbs up is one UPDATE, outside any transaction.
    const thumbs = () => reader.post("/api/assistant/feedback", { id, token, helpful: true });
    const lost = await losingCommitOn("assistant_questions", thumbs);
    expect(lost.statusCode, lost.body).toBe(503);
    expect(lost.headers["retry-after"]).toBe("60");
    expect(JSON.parse(lost.body).error.message).toBe(lostSaid);
    // The connection lost is not handed out again: sent again, it is recorded at once.
    expect(json(await thumbs(), assistantFeedbackResponseSchema)).toEqual({ recorded: true });
  });
});

describe("a write whose COMMIT the driver gave up waiting for, on postgres", () => {
  let t: TestApp;
  let sent = 0;

  beforeAll(async () => {
    // PostgreSQL cancels a statement after 1 s; the driver gives up on its answer 1 s later.
    t = await startApp({ DATABASE_STATEMENT_TIMEOUT_SECONDS: "1" });
  });
  afterAll(async () => {
    await t?.close();
  });

  /**
   * Runs `write` while the COMMIT of any write to `table` waits for a lock the
   * test holds (a deferred trigger that, cancelled by the statement timeout,
   * waits again), so the driver gives up on its answer ("Query read timeout");
   * then lets it commit.
   */
  const holdingCommitOn = async <T>(table: string, write: () => Promise<T>): Promise<T> => {
    const holder = new pg.Client({ connectionString: t.databaseUrl });
    await holder.connect();
    await holder.query("select pg_advisory_lock(4242)");
    try {
      return await atCommitOf(
        t,
        table,
        "begin perform pg_advisory_xact_lock(4242); exception when query_canceled then perform pg_advisory_xact_lock(4242); end;",
        write,
        // Let go before the trigger is dropped: the held COMMIT then ends.
        () => holder.query("select pg_advisory_unlock(4242)"),
      );
    } finally {
      await holder.end();
    }
  };

  it("an enquiry, whose transaction then commits, answers that it may or may not have been saved", async () => {
    const email = `held${++sent}@example.org`;
    const held = await holdingCommitOn("enquiries", () =>
      t.visitor({ ip: `10.32.0.${sent}` }).post("/api/enquiries", {
        name: "Priya Raman",
        email,
        service: "vba-tools",
        message: "We need an Excel tool that merges our test bench's CSV files.",
      }),
    );
    expect(held.statusCode, held.body).toBe(503);
    expect(held.headers["retry-after"]).toBe("60");
    expect(JSON.parse(held.body).error.message).toBe(unansweredSaid);
    // Once the lock is let go, it is saved: "try again" would have sent it twice.
    await waitFor(
      async () =>
        (await runSql(t, "select id from enquiries where email = ?", [email])).length === 1,
      { what: "the held enquiry saved" },
    );
  });

  it("a write outside a transaction says so too", async () => {
    const reader = t.visitor({ ip: `10.32.1.${++sent}` });
    const asked = await reader.post("/api/assistant", { question: "How does soap clean?" });
    const { id, token } = json(asked, assistantResponseSchema).feedback;
    const held = await holdingCommitOn("assistant_questions", () =>
      reader.post("/api/assistant/feedback", { id, token, helpful: true }),
    );
    expect(held.statusCode, held.body).toBe(503);
    expect(JSON.parse(held.body).error.message).toBe(unansweredSaid);
    await waitFor(
      async () =>
        (await runSql(t, "select helpful from assistant_questions where id = ?", [id]))[0]
          ?.helpful != null,
      { what: "the held thumbs up saved" },
    );
  });

  it('a reader\'s "Your data" deletion says the database did not answer in time, and that part of it may be done', async () => {
    const reader = t.visitor({ ip: `10.32.2.${++sent}` });
    const item = freshItem("science");
    expect((await reader.comment(item, "Does soap work in cold water?")).statusCode).toBe(201);
    // The comment's removal writes its "deleted" event in its transaction.
    const held = await holdingCommitOn("events", () =>
      reader.post("/api/your-data/delete", { confirm: true }),
    );
    expect(held.statusCode, held.body).toBe(503);
    expect(JSON.parse(held.body).error.message).toBe(
      "The site's database did not answer in time; try again in a minute. Part of it may be done already; doing it again finishes it.",
    );
  });

  it("an owner's action says the database did not answer in time, so the outcome is unknown, not that it cannot be reached", async () => {
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const host = `held${++sent}.example.net`;
    const held = await holdingCommitOn("owner_audit", () =>
      owner.post("/api/admin/fediverse/block", { target: host }),
    );
    expect(held.statusCode, held.body).toBe(503);
    expect(JSON.parse(held.body).error.message).toBe(
      "The site's database did not answer in time, so it may or may not have been saved; look before you try again.",
    );
    await waitFor(
      async () =>
        (await runSql(t, "select target from fediverse_blocks where target = ?", [host])).length ===
        1,
      { what: "the held block saved" },
    );
  });
});

describe("a read the database answers too late, on postgres", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp({ DATABASE_STATEMENT_TIMEOUT_SECONDS: "1" });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Runs `read` while another connection holds `table` locked: PostgreSQL cancels the read at its statement timeout. */
  const whileLocked = async <T>(table: string, read: () => Promise<T>): Promise<T> => {
    const holder = new pg.Client({ connectionString: t.databaseUrl });
    await holder.connect();
    try {
      await holder.query(`begin; lock table ${table} in access exclusive mode`);
      return await read();
    } finally {
      await holder.query("rollback");
      await holder.end();
    }
  };

  it("says the database did not answer in time, to a reader and on the command line, not that it cannot be reached", async () => {
    const read = await whileLocked("science_comments", () =>
      t.visitor().get(`/api/items/science/${freshItem("science")}/comments`),
    );
    expect(read.statusCode, read.body).toBe(503);
    expect(read.headers["retry-after"]).toBe("60");
    expect(JSON.parse(read.body).error.message).toBe(
      "The site's database did not answer in time; try again in a minute.",
    );

    // The command line sets no timeout of its own: this database's does, for new connections.
    await runSql(
      t,
      "do $$ begin execute format('alter database %I set statement_timeout = 1000', current_database()); end $$",
    );
    const listed = await whileLocked("science_comments", () =>
      admin(adminEnv(t), "comments", "list"),
    );
    expect(listed.code).toBe(1);
    // Ours first, then the driver's own words.
    expect(listed.stderr).toBe(
      "Failed: The site's database did not answer in time; try again in a minute. (canceling statement due to statement timeout)\n",
    );
  });

  it("an owner's action the database answers too late says nothing was changed, in the console and on the command line", async () => {
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const blocks = () => runSql(t, "select target from fediverse_blocks");
    const before = await blocks();
    const blocked = await whileLocked("fediverse_blocks", () =>
      admin(adminEnv(t), "fediverse", "block", "late.example.org"),
    );
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toBe(
      "Failed: The site's database did not answer in time. Nothing was changed; try again in a minute. (canceling statement due to statement timeout)\n",
    );
    const refused = await whileLocked("fediverse_blocks", () =>
      owner.post("/api/admin/fediverse/block", { target: "late.example.net" }),
    );
    expect(refused.statusCode, refused.body).toBe(503);
    expect(JSON.parse(refused.body).error.message).toBe(
      "The site's database did not answer in time. Nothing was changed; try again in a minute.",
    );
    // True: neither is blocked, and the trail holds no line of either.
    expect(await blocks()).toEqual(before);
    expect(await runSql(t, "select object from owner_audit where object like 'late.%'")).toEqual(
      [],
    );
  });
});

describe("the PostgreSQL store's marks of a lost connection", () => {
  it("marks a write outside a transaction lost once sent, never a read", async () => {
    const scratch = await scratchStore("postgres");
    const db = scratch.store.db as unknown as Kysely<{ lost: { x: number } }>;
    try {
      await sql`create table lost (x int);
        create function lose_commit() returns trigger language plpgsql as $$ begin perform pg_terminate_backend(pg_backend_pid()); return null; end $$;
        create constraint trigger lose_commit after insert or delete on lost deferrable initially deferred for each row execute function lose_commit()`.execute(
        db,
      );
      const failure = (work: () => Promise<unknown>) =>
        work().then(
          () => expect.unreachable("the connection was not lost"),
          (error: unknown) => error,
        );
      for (const write of [
        () => db.insertInto("lost").values({ x: 1 }).execute(),
        () => sql`insert into lost (x) values (2)`.execute(db),
      ]) {
        const error = await failure(write);
        expect(isConnectionLost(error)).toBe(true);
        expect(isLostAtCommit(error)).toBe(true);
      }
      const gone = sql<string>`pg_terminate_backend(pg_backend_pid())`;
      for (const read of [
        () => db.selectNoFrom(gone.as("gone")).execute(),
        () => sql`select ${gone}`.execute(db),
      ]) {
        const error = await failure(read);
        expect(isConnectionLost(error)).toBe(true);
        expect(isLostAtCommit(error)).toBe(false);
      }
      // A write that commits: no mark, and the store goes on.
      await sql`drop trigger lose_commit on lost`.execute(db);
      await db.insertInto("lost").values({ x: 3 }).execute();
      expect(await db.selectFrom("lost").select("x").execute()).toEqual([{ x: 3 }]);
    } finally {
      await scratch.drop();
    }
  });

  it("does not mark a COMMIT pg never sent, its connection lost before it: nothing was saved", async () => {
    const scratch = await scratchStore("postgres");
    const db = scratch.store.db as unknown as Kysely<{ lost: { x: number } }>;
    try {
      await sql`create table lost (x int)`.execute(db);
      const error = await db
        .transaction()
        .execute(async (trx) => {
          await trx.insertInto("lost").values({ x: 1 }).execute();
          // The connection is lost after the transaction's last statement, before its COMMIT.
          await sql`select pg_terminate_backend(pg_backend_pid())`.execute(trx).catch(() => {});
        })
        .then(
          () => expect.unreachable("the connection was not lost"),
          (failure: unknown) => failure,
        );
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(isLostAtCommit(error)).toBe(false);
      // The COMMIT was never sent: the insert is gone with its connection.
      expect(await db.selectFrom("lost").select("x").execute()).toEqual([]);
    } finally {
      await scratch.drop();
    }
  });
});
