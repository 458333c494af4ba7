import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";
import { atOnce, startInstances } from "./support/gate.ts";
import { runSql } from "./support/sql.ts";
import { backends, freshItem, json, type TestApp } from "./support/test-app.ts";

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
