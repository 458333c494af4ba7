import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { turnWaitersMax } from "../../server/db/turns.ts";
import { createWriterKeys } from "../../server/engagement/writer-keys.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";
import { waitFor } from "../support/wait-for.ts";
import { atOnce, startInstances } from "./support/gate.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  capturedLogs,
  freshItem,
  json,
  readinessSchema,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/*
 * The hourly limits of the forms that mail someone, under requests at the same
 * instant from one connection (docs/architecture.md, "Limits under requests at
 * once"): enquiries, newsletter confirmations and reply-mail confirmations.
 * Four requests at once, each for another address, against a limit of two:
 * two pass, on two instances on one PostgreSQL (held at a gate until all have
 * counted) and on SQLite. Counted before the write, all four passed.
 */

const cookieSecret = "limits-at-once-tests-cookie-secret-0123456789";
const enquiryTokens = createFormTokens(cookieSecret, {
  purpose: "enquiry form timing",
  minimumMs: 0,
});

describe.each(backends)("the forms' hourly limits under requests at once on %s", (backend) => {
  let instances: TestApp[] = [];
  /** The instance the `i`th request goes to: each in turn. */
  const on = (i: number) => instances[i % instances.length] as TestApp;
  const databaseUrl = () => on(0).databaseUrl;
  /** The answers' statuses, sorted; the message of a 429 among them. */
  const outcome = (answers: { statusCode: number; body: string }[]) => ({
    statuses: answers.map((answer) => answer.statusCode).sort(),
    refused: json(
      answers.find((answer) => answer.statusCode === 429) ?? { body: "" },
      errorResponseSchema,
    ).error.message,
  });

  beforeAll(async () => {
    const env = {
      COOKIE_SECRET: cookieSecret,
      ENQUIRIES_PER_HOUR: "2",
      SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR: "2",
    };
    instances = await startInstances(backend, env);
  });
  afterAll(async () => {
    for (const instance of instances.reverse()) await instance.close();
  });

  it("takes ENQUIRIES_PER_HOUR enquiries an hour from one connection", async () => {
    const answers = await atOnce(
      databaseUrl(),
      "enquiries",
      [0, 1, 2, 3].map(
        (i) => () =>
          on(i)
            .visitor({ ip: "10.71.0.1" })
            .post("/api/enquiries", {
              name: "Priya Raman",
              email: `enquirer-${backend}-${i}@example.org`,
              service: "dfmea",
              message: `We need a DFMEA workshop for our pump team of ${i + 4} engineers in March.`,
              formToken: enquiryTokens.issue(Date.now() - 60_000),
            }),
      ),
    );
    expect(outcome(answers)).toEqual({
      statuses: [201, 201, 429, 429],
      refused: expect.stringContaining("Too many enquiries came from your connection"),
    });
    const stored = await runSql(on(0), "select id from enquiries where email like ?", [
      `enquirer-${backend}-%`,
    ]);
    expect(stored).toHaveLength(2);
  });

  it("queues SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR confirmations an hour from one network", async () => {
    const answers = await atOnce(
      databaseUrl(),
      "subscribers",
      [0, 1, 2, 3].map(
        (i) => () =>
          on(i)
            .visitor({ ip: "10.71.0.2" })
            .post("/api/subscribers", {
              email: `subscriber-${backend}-${i}@example.org`,
              formToken: on(i).formToken(),
            }),
      ),
    );
    expect(outcome(answers).statuses).toEqual([202, 202, 429, 429]);
    const queued = await runSql(
      on(0),
      "select id from outbox where kind = 'confirmation' and email like ?",
      [`subscriber-${backend}-%`],
    );
    expect(queued).toHaveLength(2);
  });

  it("takes reply-mail requests from one network to the same limit", async () => {
    const postId = freshItem("science");
    const answers = await atOnce(
      databaseUrl(),
      "confirmation_requests",
      [0, 1, 2, 3].map(
        (i) => () =>
          on(i)
            .visitor({ ip: "10.71.0.3" })
            .post(`/api/items/science/${postId}/comments`, {
              content: `Would a thicker heat sink help the charger's fan number ${i}?`,
              userName: "Asha",
              formToken: on(i).commentToken(),
              notifyEmail: `replier-${backend}-${i}@example.org`,
            }),
      ),
    );
    expect(outcome(answers).statuses).toEqual([201, 201, 429, 429]);
    const asked = await runSql(on(0), "select email from reply_addresses where email like ?", [
      `replier-${backend}-%`,
    ]);
    expect(asked).toHaveLength(2);
  });
});

/*
 * A write waiting for its turn holds one of the pool's connections while it
 * waits. One client's burst of limited writes, its turn held elsewhere (by
 * another instance's transaction, here the test's), waited on every
 * connection, and every other request needing the database waited behind it
 * (then 503). At most `turnWaitersMax` wait; the rest are refused at once.
 * PostgreSQL only: on SQLite a turn is never waited for.
 */
describe("one client's limited writes waiting for their turn on postgres", () => {
  let t: TestApp;
  const logs = capturedLogs("info");
  beforeAll(async () => {
    // Long enough that no waiting write is ended by the database while the test looks.
    t = await startTestApp("postgres", {
      env: { COOKIE_SECRET: cookieSecret, DATABASE_STATEMENT_TIMEOUT_SECONDS: "300" },
      logger: logs.logger,
    });
  });
  afterAll(() => t?.close());

  it("leaves the pool's other connections to everyone else's reads and writes", async () => {
    const ip = "10.71.0.9";
    const holder = new pg.Client({ connectionString: t.databaseUrl });
    await holder.connect();
    const waiting = async () =>
      (
        await holder.query(
          "select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted",
        )
      ).rows[0].n as number;
    try {
      await holder.query("begin");
      await holder.query(
        "select pg_advisory_xact_lock(hashtext('confirmation network'), hashtext($1))",
        // The turn of the address's network, kept by its digest (engagement/writer-keys.ts).
        [createWriterKeys(cookieSecret).networkHash(ip)],
      );
      const answered: number[] = [];
      const burst = Array.from({ length: 12 }, (_, i) =>
        t
          .visitor({ ip })
          .post("/api/subscribers", { email: `burst-${i}@example.org`, formToken: t.formToken() })
          .then((answer) => {
            answered.push(answer.statusCode);
            return answer;
          }),
      );
      // Settled: every request of the burst waits for its turn or was answered, or the pool is full.
      await waitFor(
        async () => (await waiting()) + answered.length >= 12 || (await waiting()) >= 10,
        {
          what: "the burst to wait for its turn",
          timeoutMs: 30_000,
        },
      );

      const ready = await t.app.inject({ method: "GET", url: "/readyz" });
      expect(json(ready, readinessSchema).status).toBe("ready");
      const reaction = await t
        .visitor({ ip: "10.71.0.10" })
        .post(`/api/items/science/${freshItem("science")}/reactions`, {
          type: "like",
          userName: "Meera",
        });
      expect(reaction.statusCode).toBe(201);
      const elsewhere = await t
        .visitor({ ip: "10.71.0.11" })
        .post("/api/subscribers", { email: "elsewhere@example.org", formToken: t.formToken() });
      expect(elsewhere.statusCode).toBe(202);
      // Served while the burst still waited: its writes were not ended to free the pool.
      expect(await waiting()).toBe(turnWaitersMax);
      expect(answered).toEqual(Array(12 - turnWaitersMax).fill(503));

      await holder.query("commit");
      const answers = await Promise.all(burst);
      const refused = answers.filter((answer) => answer.statusCode === 503);
      // The database is well: the refused are told the truth, and to come back in seconds.
      expect(json(refused[0] ?? { body: "" }, errorResponseSchema).error).toEqual({
        code: "service_unavailable",
        message: "Too many requests like this one are waiting; try again in a moment.",
      });
      expect(refused[0]?.headers["retry-after"]).toBe("5");
      // A warning each, not a failure's stack: nothing went wrong with the server.
      const refusals = logs.lines.filter((line) =>
        line.msg?.startsWith("request refused: too many"),
      );
      expect(refusals).toHaveLength(12 - turnWaitersMax);
      expect(refusals.every((line) => line.level === 40 && line.err === undefined)).toBe(true);
      expect(logs.lines.filter((line) => (line.level ?? 0) >= 50)).toEqual([]);
      // Those that waited went through; the refused changed nothing.
      expect(answers.filter((answer) => answer.statusCode === 202)).toHaveLength(turnWaitersMax);
      const stored = await runSql(t, "select email from subscribers where email like 'burst-%'");
      expect(stored).toHaveLength(turnWaitersMax);
      const queued = await runSql(
        t,
        "select id from outbox where kind = 'confirmation' and email like 'burst-%'",
      );
      expect(queued).toHaveLength(turnWaitersMax);
    } finally {
      await holder.end();
    }
  });
});
