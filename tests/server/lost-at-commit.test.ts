import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slotsResponseSchema } from "../../contract/bookings.ts";
import { createFormTickets } from "../../server/lib/form-token.ts";
import type { VisitorResponse } from "../support/visitor.ts";
import { runSql } from "./support/sql.ts";
import { freshItem, json, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A reader's write whose connection to PostgreSQL was lost as it was saved
 * (docs/product.md, "When something fails"): it may or may not have been
 * saved, so the answer, still 503 with Retry-After, says so and asks the
 * reader to look before sending it again, never only to try again (which may
 * post it twice). SQLite never loses a connection: this is PostgreSQL's.
 */

const cookieSecret = "lost-at-commit-cookie-secret-0123456789ab";
const newsletterTickets = createFormTickets(cookieSecret);
const lostSaid =
  "The site lost its database as it saved, so this may or may not have been saved. Reload the page (or check your inbox) before you send it again.";

describe("a reader's write whose connection is lost as it is saved, on postgres", () => {
  let t: TestApp;
  let sent = 0;

  beforeAll(async () => {
    t = await startTestApp("postgres", {
      env: { COOKIE_SECRET: cookieSecret, COMMENT_MIN_SECONDS: "0", ENQUIRIES_PER_HOUR: "100" },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  /**
   * Runs `write` while PostgreSQL ends the connection of any write to
   * `table` at its COMMIT (a deferred trigger that ends its own backend).
   */
  const losingCommitOn = async <T>(table: string, write: () => Promise<T>): Promise<T> => {
    await runSql(
      t,
      `create function lose_commit() returns trigger language plpgsql as $$ begin perform pg_terminate_backend(pg_backend_pid()); return null; end $$;
        create constraint trigger lose_commit after insert or update on ${table} deferrable initially deferred for each row execute function lose_commit()`,
    );
    try {
      return await write();
    } finally {
      await runSql(t, `drop trigger lose_commit on ${table}; drop function lose_commit()`);
    }
  };
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
});
