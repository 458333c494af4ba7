import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { admin, adminEnv, parseExport } from "./support/admin.ts";
import { confirmedSubscriber } from "./support/newsletter.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

describe.each(backends)("unsubscribing on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  /** Subscribes `email` and returns the token of its link, as the owner's export gives it. */
  async function subscribe(email: string): Promise<string> {
    await confirmedSubscriber(t, email);
    const row = parseExport((await admin(adminEnv(t), "subscribers", "export")).stdout).get(email);
    return new URL(row!.url).searchParams.get("token")!;
  }

  const unsubscribe = (body: unknown) =>
    t.visitor().post("/api/unsubscribe", body as Record<string, unknown>);

  it("removes the address, and answers the same when the link is followed again", async () => {
    const token = await subscribe("bye@example.com");
    const first = await unsubscribe({ token });
    expect(first.statusCode).toBe(200);
    expect(json(first)).toEqual({ unsubscribed: true, already: false });
    expect(first.body).not.toContain("bye@example.com");
    expect(json(await unsubscribe({ token }))).toEqual({ unsubscribed: true, already: true });

    const left = parseExport((await admin(adminEnv(t), "subscribers", "export")).stdout);
    expect(left.has("bye@example.com")).toBe(false);
  });

  it("lets the address subscribe again, with a new link the old one cannot remove", async () => {
    const old = await subscribe("back@example.com");
    await unsubscribe({ token: old });
    const fresh = await subscribe("back@example.com");
    expect(fresh).not.toBe(old);
    // The old link says its subscription had ended, which is true of it alone.
    const again = await unsubscribe({ token: old });
    expect(again.statusCode).toBe(200);
    expect(json(again)).toEqual({ unsubscribed: true, already: true });
    const left = parseExport((await admin(adminEnv(t), "subscribers", "export")).stdout);
    expect(left.has("back@example.com")).toBe(true);
  });

  it("answers 404 unknown_token for a well-formed token nobody was given", async () => {
    await subscribe("stays@example.com");
    const response = await unsubscribe({ token: randomBytes(32).toString("base64url") });
    expect(response.statusCode).toBe(404);
    expect(json(response, errorResponseSchema).error).toMatchObject({
      code: "unknown_token",
      message: "This unsubscribe link is not known; it may have been mistyped.",
    });
    const left = parseExport((await admin(adminEnv(t), "subscribers", "export")).stdout);
    expect(left.has("stays@example.com")).toBe(true);
  });

  // Once, on SQLite: refused by the schema before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it.each([
        ["no token", {}],
        ["an empty token", { token: "" }],
        ["a short token", { token: "abc" }],
        ["a token with other characters", { token: `${"a".repeat(42)}=` }],
        ["a number", { token: 42 }],
        ["an unknown field", { token: "a".repeat(43), email: "x@example.com" }],
      ])("refuses %s with 400 validation_failed", async (_case, body) => {
        const response = await unsubscribe(body);
        expect(response.statusCode).toBe(400);
        expect(json(response, errorResponseSchema).error.code).toBe("validation_failed");
      });
    });
  }

  it("accepts the request only from the site's own pages", async () => {
    const token = await subscribe("guarded@example.com");
    const response = await t.app.inject({
      method: "POST",
      url: "/api/unsubscribe",
      headers: { origin: "https://elsewhere.example" },
      payload: { token },
    });
    expect(response.statusCode).toBe(403);
    expect(json(response, errorResponseSchema).error.code).toBe("cross_origin");
    const left = parseExport((await admin(adminEnv(t), "subscribers", "export")).stdout);
    expect(left.has("guarded@example.com")).toBe(true);
  });
});
