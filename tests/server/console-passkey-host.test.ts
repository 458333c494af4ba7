import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { signInMethodsResponseSchema, whoAmIResponseSchema } from "../../contract/console.ts";
import { passkeyProblem } from "../../server/console/passkey-host.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { linkToken, Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import { json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * Passkeys belong to a host name, and browsers refuse an IP address as one:
 * the console says so instead of failing with the browser's "invalid domain",
 * and the sign-in page offers a passkey only when one can sign in.
 */

describe("passkeys and the site's host name", () => {
  it("tells IP addresses from names", () => {
    expect(passkeyProblem("http://localhost:3000")).toBeNull();
    expect(passkeyProblem("https://engage.example")).toBeNull();
    expect(passkeyProblem("http://127.0.0.1:3000")).toContain("such as http://localhost:3000");
    expect(passkeyProblem("http://[::1]:8080")).toContain("need a host name");
    expect(passkeyProblem("https://203.0.113.9")).toContain("such as https://localhost or");
  });

  describe("on an IP SITE_URL", () => {
    const ipSite = "http://127.0.0.1:3000";
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp("sqlite", { env: { SITE_URL: ipSite } });
    });
    afterAll(async () => {
      await t?.close();
    });

    it("explains, in the console and on the sign-in page, and refuses to start a passkey", async () => {
      const owner = new Owner(t);
      const headers = { origin: ipSite };
      const login = await admin({ ...adminEnv(t), SITE_URL: ipSite }, "login");
      const signedIn = await owner.request(
        "POST",
        "/api/admin/sign-in",
        { token: linkToken(login.stdout) },
        headers,
      );
      expect(signedIn.statusCode).toBe(200);
      expect(
        json(await owner.get("/api/admin/session"), whoAmIResponseSchema).passkeysUnavailable,
      ).toContain("Passkeys need a host name");
      const options = await owner.request("POST", "/api/admin/passkeys/options", {}, headers);
      expect(options.statusCode).toBe(409);
      expect(json(options, errorResponseSchema).error.message).toContain(
        "such as http://localhost:3000",
      );

      const methods = json(
        await new Owner(t).get("/api/admin/sign-in/methods"),
        signInMethodsResponseSchema,
      );
      expect(methods).toMatchObject({ passkey: "unavailable" });
      expect(methods.passkeyProblem).toContain("Passkeys need a host name");
      const signIn = await new Owner(t).request(
        "POST",
        "/api/admin/passkey-sign-in/options",
        {},
        headers,
      );
      expect(signIn.statusCode).toBe(409);
    });
  });

  describe("on a host name", () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp("sqlite");
    });
    afterAll(async () => {
      await t?.close();
    });

    it("offers a passkey on the sign-in page only once one is registered", async () => {
      const signIn = () => new Owner(t).get("/api/admin/sign-in/methods");
      // Without OWNER_EMAIL no link could be mailed: the page offers none.
      expect(json(await signIn())).toEqual({
        passkey: "none",
        passkeyProblem: null,
        mailedLink: false,
      });
      const owner = new Owner(t);
      await owner.signIn();
      expect(
        json(await owner.get("/api/admin/session"), whoAmIResponseSchema).passkeysUnavailable,
      ).toBeNull();
      await runSql(
        t,
        "insert into owner_passkeys (id, name, public_key, counter, transports, created_at) values (?, ?, ?, ?, ?, ?)",
        ["cred-1", "Phone", "AAAA", 0, "[]", new Date().toISOString()],
      );
      expect(json(await signIn())).toMatchObject({ passkey: "ready", passkeyProblem: null });
    });
  });
});
