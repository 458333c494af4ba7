import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { openStore } from "../../server/db/store.ts";
import { createSubscribersRepository } from "../../server/engagement/subscribers-repository.ts";
import { confirmedSubscriber } from "./support/newsletter.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

describe.each(backends)("subscribers on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  /** What the footer's form sends, with a form token old enough to pass. */
  const subscribe = (email: unknown) =>
    t
      .visitor()
      .post("/api/subscribers", { email, formToken: t.formToken() } as Record<string, unknown>);

  it("takes a new address as pending with 202 and does not echo it", async () => {
    const response = await subscribe("reader@example.com");
    expect(response.statusCode).toBe(202);
    expect(json(response)).toEqual({ pending: true });
    expect(response.body).not.toContain("reader@example.com");
  });

  it("answers a confirmed address, in any case, as it answers a new one", async () => {
    await confirmedSubscriber(t, "Twice@Example.com");
    const fresh = await subscribe("first-time@example.com");
    const again = await subscribe("twice@example.COM");
    expect([again.statusCode, again.body]).toEqual([fresh.statusCode, fresh.body]);
    expect(json(again)).toEqual({ pending: true });
    const rows = await runSql(t, "select status from subscribers where lower(email) = ?", [
      "twice@example.com",
    ]);
    expect(rows).toEqual([{ status: "confirmed" }]);
  });

  it("trims the address before storing it", async () => {
    await confirmedSubscriber(t, "  padded@example.com ");
    expect((await subscribe("padded@example.com")).statusCode).toBe(202);
    const rows = await runSql(t, "select email, status from subscribers where email like ?", [
      "%padded@example.com%",
    ]);
    expect(rows).toEqual([{ email: "padded@example.com", status: "confirmed" }]);
  });

  it("forgets an address never confirmed, its link and its mails' records, a week after its confirmation mail", async () => {
    await subscribe("stale@example.com");
    await subscribe("recent@example.com");
    const [stale] = await runSql(t, "select id from subscribers where email = ?", [
      "stale@example.com",
    ]);
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000).toISOString();
    await runSql(t, "update subscribers set confirmation_sent_at = ? where id = ?", [
      eightDaysAgo,
      Number(stale?.id),
    ]);
    const store = await openStore(
      t.databaseUrl
        ? { kind: "postgres", connectionString: t.databaseUrl }
        : { kind: "sqlite", file: path.join(t.dataDir, "engage.sqlite") },
    );
    await createSubscribersRepository(store, { addressKey: String, links: t.links })
      .prune()
      .finally(() => store.close());
    const left = await runSql(t, "select email from subscribers where email in (?, ?)", [
      "stale@example.com",
      "recent@example.com",
    ]);
    expect(left.map((row) => row.email)).toEqual(["recent@example.com"]);
    const links = await runSql(
      t,
      "select token_hash from confirmation_tokens where subscriber_id = ?",
      [Number(stale?.id)],
    );
    expect(links).toEqual([]);
    const mails = await runSql(t, "select email from outbox where lower(email) in (?, ?)", [
      "stale@example.com",
      "recent@example.com",
    ]);
    expect(mails.map((row) => row.email)).toEqual(["recent@example.com"]);
  });

  it("sets no visitor cookie: a subscription needs no identity", async () => {
    const response = await subscribe("cookieless@example.com");
    expect(response.headers["set-cookie"]).toBeUndefined();
  });

  // Once, on SQLite: refused by the schema before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it.each([
        ["no email", {}],
        ["an empty email", { email: "" }],
        ["spaces only", { email: "   " }],
        ["no @", { email: "not-an-email" }],
        ["no domain", { email: "a@" }],
        ["a number", { email: 42 }],
        ["null", { email: null }],
        ["255 characters", { email: `${"a".repeat(243)}@example.com` }],
        // Mail servers refuse a local part over 64 characters for good (RFC 5321).
        ["65 characters before the @", { email: `${"a".repeat(65)}@example.com` }],
        ["an unknown field", { email: "x@example.com", name: "X" }],
        ["SQL in the address", { email: "x'; drop table subscribers; --@example.com" }],
        ["markup in the address", { email: "<script>alert(1)</script>@example.com" }],
        // The admin export writes addresses verbatim into CSV for spreadsheets.
        ["a spreadsheet formula", { email: '=HYPERLINK("http://evil.example")@example.com' }],
        ["a DDE payload", { email: "=cmd|'/C calc'!A0@example.com" }],
        ["a formula after a plus", { email: "+SUM(A1:A9)@example.com" }],
      ])("refuses %s with 400 validation_failed", async (_case, body) => {
        const response = await t
          .visitor()
          .post("/api/subscribers", { formToken: t.formToken(), ...body } as Record<
            string,
            unknown
          >);
        expect(response.statusCode).toBe(400);
        expect(json(response, errorResponseSchema).error.code).toBe("validation_failed");
        expect(json(response, errorResponseSchema).error.issues?.length).toBeGreaterThan(0);
      });
    });
  }

  it("takes one address per form token: a program cannot subscribe a list with one fetch", async () => {
    const formToken = t.formToken();
    const first = await t
      .visitor()
      .post("/api/subscribers", { email: "one@example.com", formToken });
    expect(first.statusCode).toBe(202);
    for (const email of ["two@example.com", "one@example.com"]) {
      const again = await t.visitor().post("/api/subscribers", { email, formToken });
      expect(again.statusCode, email).toBe(400);
      expect(json(again, errorResponseSchema).error.code, email).toBe("form_token_invalid");
    }
    expect((await subscribe("two@example.com")).statusCode).toBe(202);
  });

  it("accepts an apostrophe, which is legal in an address, and stores it as given", async () => {
    await confirmedSubscriber(t, "o'brien@example.com");
    expect((await subscribe("O'Brien@example.com")).statusCode).toBe(202);
    const rows = await runSql(t, "select email from subscribers where lower(email) = ?", [
      "o'brien@example.com",
    ]);
    expect(rows).toEqual([{ email: "o'brien@example.com" }]);
  });

  it("accepts a 254-character address", async () => {
    const email = `${"b".repeat(64)}@${"c".repeat(63)}.${"d".repeat(63)}.${"e".repeat(57)}.com`;
    expect(email).toHaveLength(254);
    expect((await subscribe(email)).statusCode).toBe(202);
  });
});
