import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

describe.each(backends)("subscribers on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  it("subscribes a new address with 201 and does not echo it", async () => {
    const response = await t.visitor().post("/api/subscribers", { email: "reader@example.com" });
    expect(response.statusCode).toBe(201);
    expect(json(response)).toEqual({ subscribed: true });
    expect(response.body).not.toContain("reader@example.com");
  });

  it("answers 409 already_subscribed for the same address in any case", async () => {
    await t.visitor().post("/api/subscribers", { email: "Twice@Example.com" });
    const again = await t.visitor().post("/api/subscribers", { email: "twice@example.COM" });
    expect(again.statusCode).toBe(409);
    expect(json(again).error.code).toBe("already_subscribed");
  });

  it("trims the address before storing it", async () => {
    expect(
      (await t.visitor().post("/api/subscribers", { email: "  padded@example.com " })).statusCode,
    ).toBe(201);
    const again = await t.visitor().post("/api/subscribers", { email: "padded@example.com" });
    expect(again.statusCode).toBe(409);
  });

  it("sets no visitor cookie: a subscription needs no identity", async () => {
    const response = await t
      .visitor()
      .post("/api/subscribers", { email: "cookieless@example.com" });
    expect(response.headers["set-cookie"]).toBeUndefined();
  });

  it.each([
    ["no email", {}],
    ["an empty email", { email: "" }],
    ["spaces only", { email: "   " }],
    ["no @", { email: "not-an-email" }],
    ["no domain", { email: "a@" }],
    ["a number", { email: 42 }],
    ["null", { email: null }],
    ["255 characters", { email: `${"a".repeat(243)}@example.com` }],
    ["an unknown field", { email: "x@example.com", name: "X" }],
    ["SQL in the address", { email: "x'; drop table subscribers; --@example.com" }],
    ["markup in the address", { email: "<script>alert(1)</script>@example.com" }],
    // The admin export writes addresses verbatim into CSV for spreadsheets.
    ["a spreadsheet formula", { email: '=HYPERLINK("http://evil.example")@example.com' }],
    ["a DDE payload", { email: "=cmd|'/C calc'!A0@example.com" }],
    ["a formula after a plus", { email: "+SUM(A1:A9)@example.com" }],
  ])("refuses %s with 400 validation_failed", async (_case, body) => {
    const response = await t.visitor().post("/api/subscribers", body);
    expect(response.statusCode).toBe(400);
    expect(json(response).error.code).toBe("validation_failed");
    expect(json(response).error.issues.length).toBeGreaterThan(0);
  });

  it("accepts an apostrophe, which is legal in an address, and stores it as given", async () => {
    expect(
      (await t.visitor().post("/api/subscribers", { email: "o'brien@example.com" })).statusCode,
    ).toBe(201);
    expect(
      (await t.visitor().post("/api/subscribers", { email: "O'Brien@example.com" })).statusCode,
    ).toBe(409);
  });

  it("accepts a 254-character address", async () => {
    const email = `${"b".repeat(64)}@${"c".repeat(63)}.${"d".repeat(63)}.${"e".repeat(57)}.com`;
    expect(email).toHaveLength(254);
    expect((await t.visitor().post("/api/subscribers", { email })).statusCode).toBe(201);
  });
});
