import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import {
  passkeyOptionsResponseSchema,
  sessionsResponseSchema,
  signInMethodsResponseSchema,
  whoAmIResponseSchema,
} from "../../contract/console.ts";
import { createOwnerRepository } from "../../server/console/owner-repository.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { SoftPasskey } from "./support/authenticator.ts";
import { linkToken, Owner } from "./support/owner.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { header, type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { backends, json, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The owner's sign-in as someone who is not the owner sees it: old cookies,
 * planted ones, other sites' pages, replayed or misdirected passkey answers,
 * and floods. Passkeys here are real ES256 keys (./support/authenticator.ts).
 */

const minute = 60 * 1000;

/** The challenge of a fresh set of options. */
async function challengeFor(browser: Owner, url: string, headers: Record<string, string> = {}) {
  const answer = await browser.request("POST", url, {}, headers);
  expect(answer.statusCode).toBe(200);
  return json(answer, passkeyOptionsResponseSchema).options as { challenge: string; rpId?: string };
}

/** Registers `key` from the owner's signed-in `browser`, named `name`. */
async function register(browser: Owner, key: SoftPasskey, name: string) {
  const { challenge } = await challengeFor(browser, "/api/admin/passkeys/options");
  const registered = await browser.post("/api/admin/passkeys", {
    name,
    response: key.register(challenge),
  });
  expect(registered.statusCode).toBe(201);
}

/** A new browser signed in with `key`, or the refusal's status. */
async function passkeySignIn(t: TestApp, key: SoftPasskey, counter?: number) {
  const browser = new Owner(t);
  const { challenge } = await challengeFor(browser, "/api/admin/passkey-sign-in/options");
  const answer = await browser.post("/api/admin/passkey-sign-in", {
    response: key.assert(challenge, counter === undefined ? {} : { counter }),
  });
  return { browser, status: answer.statusCode };
}

describe.each(backends)("the owner's sign-in against an attacker on %s", (backend) => {
  let t: TestApp;
  let offsetMs = 0;

  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: { OWNER_SIGN_IN_ATTEMPTS_PER_HOUR: "1000" },
      clock: () => new Date(Date.now() + offsetMs),
    });
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    offsetMs = 0;
  });

  it("ends the browser's earlier session when it signs in again, so a copy of its cookie stops working", async () => {
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    // Someone copied the cookie; the owner, back later, signs in again in the same browser.
    const copy = new Owner(t);
    copy.cookie = owner.cookie;
    expect((await copy.get("/api/admin/session")).statusCode).toBe(200);
    expect((await owner.signIn()).statusCode).toBe(200);
    expect(owner.cookie).not.toBe(copy.cookie);
    expect((await owner.get("/api/admin/session")).statusCode).toBe(200);
    expect((await copy.get("/api/admin/session")).statusCode).toBe(401);
  });

  it("registers a passkey only with the challenge of the session that asked for it", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const other = new Owner(t);
    await other.signIn();
    const key = new SoftPasskey();
    const { challenge } = await challengeFor(owner, "/api/admin/passkeys/options");
    const answer = { name: "Stolen", response: key.register(challenge) };
    // Another session, or nobody's, cannot spend the owner's challenge.
    expect((await other.post("/api/admin/passkeys", answer)).statusCode).toBe(400);
    expect((await new Owner(t).post("/api/admin/passkeys", answer)).statusCode).toBe(401);
    // A sign-in challenge is no registration's.
    const signIn = await challengeFor(new Owner(t), "/api/admin/passkey-sign-in/options");
    const crossed = { name: "Crossed", response: key.register(signIn.challenge) };
    expect((await owner.post("/api/admin/passkeys", crossed)).statusCode).toBe(400);
    expect(json(await owner.get("/api/admin/session"), whoAmIResponseSchema).passkeys).toEqual([]);
  });

  it("gives a passkey or a calendar feed only to a session signed in within 10 minutes", async () => {
    // Signed in 10 minutes ago (in the site's time; the command line's link is made now).
    offsetMs = -(10 * minute + 1000);
    const owner = new Owner(t);
    await owner.signIn();
    // A copy of the cookie, taken from a laptop left open: the owner's session itself.
    const copy = new Owner(t);
    copy.cookie = owner.cookie;
    const key = new SoftPasskey();
    offsetMs = -2 * minute;
    const { challenge } = await challengeFor(copy, "/api/admin/passkeys/options");
    offsetMs = 0;
    const refusals = [
      ["/api/admin/passkeys/options", {}, "Adding a passkey"],
      [
        "/api/admin/passkeys",
        { name: "Mine now", response: key.register(challenge) },
        "Adding a passkey",
      ],
      ["/api/admin/bookings/feed", {}, "A new calendar feed address"],
    ] as const;
    for (const [url, body, what] of refusals) {
      const refused = await copy.post(url, body);
      expect(refused.statusCode, url).toBe(403);
      expect(json(refused, errorResponseSchema).error).toEqual({
        code: "sign_in_again",
        message: `${what} needs a sign-in within the last 10 minutes: sign in again (with a passkey or a new link) to confirm it is you, then try again.`,
      });
    }
    expect(json(await copy.get("/api/admin/session"), whoAmIResponseSchema).passkeys).toEqual([]);
    const audit = await admin(adminEnv(t), "audit", "--json");
    expect(audit.stdout).not.toContain("bookings feed new");

    // The owner signs in again (a new link, or a passkey): that session may.
    expect((await owner.signIn()).statusCode).toBe(200);
    await register(owner, key, "Phone");
    expect((await owner.post("/api/admin/bookings/feed")).statusCode).toBe(200);
    // The copy was of the session that browser had before: it ended with the new sign-in.
    expect((await copy.post("/api/admin/passkeys/options")).statusCode).toBe(401);
    // So may a session its passkey opens, as fresh as any.
    const { browser, status } = await passkeySignIn(t, key);
    expect(status).toBe(200);
    expect((await browser.post("/api/admin/passkeys/options")).statusCode).toBe(200);
    await owner.delete(`/api/admin/passkeys/${key.id}`);
    await owner.delete("/api/admin/bookings/feed");
  });

  it("refuses a passkey's answer replayed, answered late, or made for another site", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    // A key that keeps no count: only the challenge stops a replay.
    const key = new SoftPasskey({ counter: 0 });
    await register(owner, key, "Uncounted");

    const browser = new Owner(t);
    const { challenge } = await challengeFor(browser, "/api/admin/passkey-sign-in/options");
    const answer = { response: key.assert(challenge) };
    expect((await browser.post("/api/admin/passkey-sign-in", answer)).statusCode).toBe(200);
    const replayed = await new Owner(t).post("/api/admin/passkey-sign-in", answer);
    expect(replayed.statusCode).toBe(401);
    expect(replayed.cookies).toEqual([]);

    const late = await challengeFor(new Owner(t), "/api/admin/passkey-sign-in/options");
    offsetMs = 5 * minute + 1000;
    const lateAnswer = { response: key.assert(late.challenge) };
    expect((await new Owner(t).post("/api/admin/passkey-sign-in", lateAnswer)).statusCode).toBe(
      401,
    );
    offsetMs = 0;

    for (const elsewhere of [
      { origin: "https://evil.example" },
      { rpId: "evil.example" },
      { origin: "http://ewe.test:8080" },
    ]) {
      const fresh = await challengeFor(new Owner(t), "/api/admin/passkey-sign-in/options");
      const misdirected = { response: key.assert(fresh.challenge, elsewhere) };
      const refused = await new Owner(t).post("/api/admin/passkey-sign-in", misdirected);
      expect(refused.statusCode, JSON.stringify(elsewhere)).toBe(401);
    }
    // The owner's own answer still works after all of them.
    expect((await passkeySignIn(t, key)).status).toBe(200);
    await owner.delete(`/api/admin/passkeys/${key.id}`);
  });

  it("takes only a passkey that checks who holds it, registering and signing in", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    // A key that only feels a touch (no PIN, fingerprint or face): found in a drawer, it would do.
    const touchOnly = new SoftPasskey({ verifiesUser: false });
    const { challenge } = await challengeFor(owner, "/api/admin/passkeys/options");
    const refused = await owner.post("/api/admin/passkeys", {
      name: "Touch only",
      response: touchOnly.register(challenge),
    });
    expect(refused.statusCode).toBe(400);
    expect(json(refused, errorResponseSchema).error.message).toMatch(
      /did not check that it is you/,
    );
    expect(json(await owner.get("/api/admin/session"), whoAmIResponseSchema).passkeys).toEqual([]);
    // Options ask every passkey to check.
    const options = (await challengeFor(new Owner(t), "/api/admin/passkey-sign-in/options")) as {
      userVerification?: string;
    };
    expect(options.userVerification).toBe("required");
    // A passkey registered with its check, answering without it, signs no one in.
    const key = new SoftPasskey();
    await register(owner, key, "Checked");
    key.verifiesUser = false;
    const unchecked = await passkeySignIn(t, key);
    expect(unchecked.status).toBe(401);
    expect(unchecked.browser.cookie).toBeUndefined();
    key.verifiesUser = true;
    expect((await passkeySignIn(t, key)).status).toBe(200);
    await owner.delete(`/api/admin/passkeys/${key.id}`);
  });

  it("takes the passkeys' site from SITE_URL, whatever Host or X-Forwarded-Host say", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const key = new SoftPasskey({ counter: 0 });
    await register(owner, key, "Hosted");
    const spoofed = { host: "evil.example", "x-forwarded-host": "evil.example" };
    const browser = new Owner(t);
    const options = await challengeFor(browser, "/api/admin/passkey-sign-in/options", spoofed);
    expect(options.rpId).toBe("ewe.test");
    const forEvil = key.assert(options.challenge, {
      origin: "http://evil.example",
      rpId: "evil.example",
    });
    const refused = await browser.request(
      "POST",
      "/api/admin/passkey-sign-in",
      { response: forEvil },
      { ...spoofed, origin: "http://evil.example" },
    );
    // Refused as a write from another site before the passkey is even read.
    expect(refused.statusCode).toBe(403);
    const sameOrigin = await browser.request(
      "POST",
      "/api/admin/passkey-sign-in",
      { response: forEvil },
      spoofed,
    );
    expect(sameOrigin.statusCode).toBe(401);
    await owner.delete(`/api/admin/passkeys/${key.id}`);
  });

  it("refuses a signature counter that goes backwards, as from a copy of the key", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const key = new SoftPasskey({ counter: 10 });
    await register(owner, key, "Counting");
    expect((await passkeySignIn(t, key, 11)).status).toBe(200);
    expect((await passkeySignIn(t, key, 11)).status).toBe(401);
    expect((await passkeySignIn(t, key, 5)).status).toBe(401);
    expect((await passkeySignIn(t, key, 0)).status).toBe(401);
    expect((await passkeySignIn(t, key, 12)).status).toBe(200);
    await owner.delete(`/api/admin/passkeys/${key.id}`);
  });

  it("ends the sessions a passkey opened when the owner removes it, and only those", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const lost = new SoftPasskey();
    const kept = new SoftPasskey();
    await register(owner, lost, "Lost phone");
    await register(owner, kept, "Laptop");
    const thief = (await passkeySignIn(t, lost)).browser;
    const laptop = (await passkeySignIn(t, kept)).browser;
    expect((await thief.get("/api/admin/session")).statusCode).toBe(200);

    expect((await owner.delete(`/api/admin/passkeys/${lost.id}`)).statusCode).toBe(204);
    const refused = await thief.get("/api/admin/session");
    expect(refused.statusCode).toBe(401);
    expect(json(refused, errorResponseSchema).error.code).toBe("unauthorized");
    expect((await thief.post("/api/admin/sign-out")).statusCode).toBe(401);
    expect((await passkeySignIn(t, lost)).status).toBe(401);
    // The owner's other sessions go on.
    expect((await laptop.get("/api/admin/session")).statusCode).toBe(200);
    expect((await owner.get("/api/admin/session")).statusCode).toBe(200);
    const sessions = json(await owner.get("/api/admin/sessions"), sessionsResponseSchema).sessions;
    expect(sessions.filter((s) => s.method === "passkey")).toHaveLength(1);

    // Removed from a session it opened itself, it ends that one too.
    const selfRemoval = await laptop.delete(`/api/admin/passkeys/${kept.id}`);
    expect(selfRemoval.statusCode).toBe(204);
    expect((await laptop.get("/api/admin/session")).statusCode).toBe(401);
    expect((await owner.get("/api/admin/session")).statusCode).toBe(200);
  });

  it("removes a lost key whose credential id is as long as WebAuthn allows", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const lost = new SoftPasskey({ idBytes: 1023 });
    await register(owner, lost, "Security key");
    const thief = (await passkeySignIn(t, lost)).browser;
    expect((await thief.get("/api/admin/session")).statusCode).toBe(200);
    expect((await owner.delete(`/api/admin/passkeys/${lost.id}`)).statusCode).toBe(204);
    expect((await thief.get("/api/admin/session")).statusCode).toBe(401);
    expect((await passkeySignIn(t, lost)).status).toBe(401);
  });

  it("lists and removes a passkey from the command line, without the console", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const lost = new SoftPasskey();
    await register(owner, lost, "Old tablet");
    const thief = (await passkeySignIn(t, lost)).browser;
    const listed = async () =>
      (
        JSON.parse((await admin(adminEnv(t), "passkeys", "list", "--json")).stdout) as {
          id: string;
          name: string;
          lastUsedAt: string | null;
        }[]
      ).find((p) => p.id === lost.id);
    const table = await admin(adminEnv(t), "passkeys", "list");
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toBe("id\tname\tcreated_at\tlast_used_at");
    expect(table.stdout).toContain(`${lost.id}\tOld tablet\t`);
    expect((await listed())?.lastUsedAt).not.toBeNull();

    const wrong = await admin(adminEnv(t), "passkeys", "remove", "no-such-key");
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain("No passkey has the id no-such-key");
    // An id is base64url: one that begins with "-" is an id, not an option.
    for (const argv of [["-_x4"], ["--", "-_x4"]]) {
      const dashed = await admin(adminEnv(t), "passkeys", "remove", ...argv);
      expect(dashed.code, dashed.stderr).toBe(3);
      expect(dashed.stderr).toContain("No passkey has the id -_x4");
    }
    expect(await listed()).toBeDefined();
    expect((await thief.get("/api/admin/session")).statusCode).toBe(200);
    expect((await admin(adminEnv(t), "passkeys", "remove")).code).toBe(2);

    const removed = await admin(adminEnv(t), "passkeys", "remove", lost.id);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`Removed the passkey ${lost.id}`);
    expect(await listed()).toBeUndefined();
    expect((await thief.get("/api/admin/session")).statusCode).toBe(401);
    expect((await passkeySignIn(t, lost)).status).toBe(401);
    expect((await owner.get("/api/admin/session")).statusCode).toBe(200);
    const [line] = JSON.parse((await admin(adminEnv(t), "audit", "--json")).stdout) as {
      action: string;
      object: string | null;
      sessionId: string | null;
    }[];
    expect(line).toMatchObject({ action: "passkey remove", object: lost.id, sessionId: null });
  });

  it("opens one session for a link or a passkey's answer sent twice at once", async () => {
    const login = await admin(adminEnv(t), "login");
    const token = linkToken(login.stdout);
    const link = await Promise.all(
      [new Owner(t), new Owner(t)].map((browser) => browser.post("/api/admin/sign-in", { token })),
    );
    expect(link.map((answer) => answer.statusCode).sort()).toEqual([200, 410]);

    const owner = new Owner(t);
    await owner.signIn();
    const key = new SoftPasskey({ counter: 0 });
    await register(owner, key, "Twice");
    const { challenge } = await challengeFor(new Owner(t), "/api/admin/passkey-sign-in/options");
    const answer = { response: key.assert(challenge) };
    const passkey = await Promise.all(
      [new Owner(t), new Owner(t)].map((browser) =>
        browser.post("/api/admin/passkey-sign-in", answer),
      ),
    );
    expect(passkey.map((each) => each.statusCode).sort()).toEqual([200, 401]);
    await owner.delete(`/api/admin/passkeys/${key.id}`);
  });

  it("never keeps a session id planted before sign-in", async () => {
    const planted = "P".repeat(43);
    const victim = new Owner(t);
    victim.cookie = `ewe_owner=${planted}`;
    const signedIn = await victim.signIn();
    expect(signedIn.statusCode).toBe(200);
    expect(victim.cookie).toMatch(/^ewe_owner=[\w-]{43}$/);
    expect(victim.cookie).not.toBe(`ewe_owner=${planted}`);
    const attacker = new Owner(t);
    attacker.cookie = `ewe_owner=${planted}`;
    expect((await attacker.get("/api/admin/session")).statusCode).toBe(401);
    expect((await victim.get("/api/admin/session")).statusCode).toBe(200);
  });

  it("ends a session everywhere its cookie is held, at once, when the owner ends it", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const stolen = new Owner(t);
    await stolen.signIn();
    const copy = new Owner(t);
    copy.cookie = stolen.cookie;
    expect((await copy.get("/api/admin/session")).statusCode).toBe(200);
    const { id } = json(await stolen.get("/api/admin/session"), whoAmIResponseSchema).session;
    expect((await owner.delete(`/api/admin/sessions/${id}`)).statusCode).toBe(204);
    /** The cookies an answer clears (set empty), by name. */
    const cleared = (answer: { cookies: { name: string; value: string }[] }) =>
      answer.cookies.filter((cookie) => cookie.value === "").map((cookie) => cookie.name);
    for (const holder of [stolen, copy]) {
      // The pages' readable cookie with the owner's name is sent too, as a browser would.
      const cookie = `${holder.cookie}; ewe_owner_name=Owner`;
      const api = await t.app.inject({
        method: "GET",
        url: "/api/admin/session",
        headers: { cookie },
      });
      expect(api.statusCode).toBe(401);
      // Both go, so the reading pages stop showing the owner's name and controls.
      expect(cleared(api).sort()).toEqual(["ewe_owner", "ewe_owner_name"]);
      const page = await t.app.inject({ method: "GET", url: "/admin/", headers: { cookie } });
      expect([page.statusCode, page.headers.location]).toEqual([303, "/admin/sign-in"]);
      expect(cleared(page).sort()).toEqual(["ewe_owner", "ewe_owner_name"]);
    }
    // A stranger with no cookie is told to sign in, and sent no cookie.
    const stranger = await t.app.inject({ method: "GET", url: "/api/admin/session" });
    expect([stranger.statusCode, stranger.cookies]).toEqual([401, []]);
  });

  it("refuses the console's writes from another site's form, text/plain JSON or no origin", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const cookie = owner.cookie ?? "";
    const signOut = (headers: Record<string, string>, payload: string) =>
      t.app.inject({
        method: "POST",
        url: "/api/admin/sign-out",
        headers: { cookie, ...headers },
        payload,
      });
    const attempts = [
      // A form on another site.
      [
        {
          origin: "https://evil.example",
          "content-type": "application/x-www-form-urlencoded",
          "sec-fetch-site": "cross-site",
        },
        "a=1",
        403,
      ],
      // JSON sent as text/plain, which a cross-site fetch may send without asking first.
      [{ origin: "https://evil.example", "content-type": "text/plain" }, "{}", 403],
      [{ origin: siteUrl, "content-type": "text/plain" }, "{}", 415],
      // A sandboxed frame or a cross-site redirect sends Origin: null.
      [
        { origin: "null", referer: `${siteUrl}/admin/`, "content-type": "application/json" },
        "{}",
        403,
      ],
      // No Origin and no Referer, or a Referer of another site.
      [{ "content-type": "application/json" }, "{}", 403],
      [{ referer: "https://evil.example/", "content-type": "application/json" }, "{}", 403],
    ] as const;
    for (const [headers, payload, status] of attempts) {
      expect((await signOut(headers, payload)).statusCode, JSON.stringify(headers)).toBe(status);
    }
    // Still signed in: none of them signed the owner out.
    expect((await owner.get("/api/admin/session")).statusCode).toBe(200);
  });
});

describe("the console's pages and its mailed links against an attacker", () => {
  let smtp: SmtpSink;
  let t: TestApp;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp("sqlite", {
      env: { SMTP_URL: smtp.url, OWNER_EMAIL: "owner@example.com", RATE_LIMIT_WRITES_PER_IP: "5" },
      clientFiles: {
        "admin/index.html": "<!doctype html><title>Overview</title>",
        "admin/sign-in/index.html": "<!doctype html><title>Sign in</title>",
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it("cannot be framed by another site", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    for (const [url, cookie] of [
      ["/admin/sign-in/", ""],
      ["/admin/", owner.cookie ?? ""],
    ] as const) {
      const page = await t.app.inject({ method: "GET", url, headers: { cookie } });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers["content-security-policy"], url).toContain("frame-ancestors 'none'");
    }
  });

  it("sends a signed-out browser to sign in, and back to the screen its link named", async () => {
    // The owner's mails link to a screen ("Open in the console: …/admin/enquiries").
    const to = async (url: string) => (await t.app.inject({ method: "GET", url })).headers.location;
    expect(await to("/admin/enquiries")).toBe("/admin/sign-in?then=%2Fadmin%2Fenquiries");
    expect(await to("/admin/bookings/")).toBe("/admin/sign-in?then=%2Fadmin%2Fbookings");
    expect(await to("/admin/readers?period=month")).toBe("/admin/sign-in?then=%2Fadmin%2Freaders");
    // The Overview is where a sign-in leads anyway; what names no screen leads there too.
    for (const url of ["/admin", "/admin/", "/admin/x/../", "/admin/a/b", "/admin/Bookings"]) {
      expect(await to(url), url).toBe("/admin/sign-in");
    }
  });

  it("offers a mailed link on the sign-in page, OWNER_EMAIL being set", async () => {
    const methods = json(
      await new Owner(t).get("/api/admin/sign-in/methods"),
      signInMethodsResponseSchema,
    );
    expect(methods.mailedLink).toBe(true);
  });

  it("mails the link for SITE_URL whatever Host says, and answers a flood with 429 and Retry-After", async () => {
    const ask = (remoteAddress: string) =>
      t.app.inject({
        method: "POST",
        url: "/api/admin/sign-in/mail",
        remoteAddress,
        headers: {
          origin: siteUrl,
          host: "evil.example",
          "x-forwarded-host": "evil.example",
          "x-forwarded-for": "198.51.100.99",
        },
        payload: { email: "owner@example.com" },
      });
    const answers: number[] = [];
    for (let i = 0; i < 6; i++) answers.push((await ask("203.0.113.40")).statusCode);
    expect(answers).toEqual([202, 202, 202, 202, 202, 429]);
    const refused = await ask("203.0.113.40");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(json(refused, errorResponseSchema).error.code).toBe("rate_limited");
    // Another network is answered; a forwarded address from an untrusted client changes nothing.
    expect((await ask("203.0.113.41")).statusCode).toBe(202);

    await smtp.waitFor((received) => received.length >= 1);
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0];
    if (!mail) throw new Error("no sign-in mail");
    expect(header(mail, "Subject")).toBe("Your sign-in link to the console");
    const text = mail.parsed.text ?? "";
    expect(text).toMatch(/http:\/\/ewe\.test\/admin\/sign-in#token=[\w-]{43}/);
    expect(text).not.toContain("evil.example");
  });
});

// Several instances share one PostgreSQL; a SQLite site is one process, and its one
// connection takes its transactions in turn.
describe("the mailed sign-in link on two instances of one PostgreSQL", () => {
  it("is made once while it is valid, however many ask on either instance at once", async () => {
    const scratch = await scratchStore("postgres", { migrated: true });
    const other = await scratch.open();
    try {
      const instances = [createOwnerRepository(scratch.store), createOwnerRepository(other)];
      // Four: a process lets fewer than five transactions wait for a turn at once
      // (server/db/turns.ts), and both stores here are one process's.
      const asked = await Promise.all(
        Array.from({ length: 4 }, (_, at) => instances[at % 2]?.createMailedLink()),
      );
      // One link to mail between them; every other ask finds it outstanding.
      expect(asked.filter((token) => typeof token === "string")).toHaveLength(1);
      expect(asked.filter((token) => token === null)).toHaveLength(3);
    } finally {
      await other.close();
      await scratch.drop();
    }
  });
});

describe("the mailed sign-in link while the SMTP server refuses it", () => {
  let smtp: SmtpSink;
  let t: TestApp;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp("sqlite", {
      env: { SMTP_URL: smtp.url, OWNER_EMAIL: "owner@example.com" },
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it("is withdrawn, so asking again once the server is back mails a new one", async () => {
    let refused = 0;
    smtp.answer = () => {
      refused += 1;
      return { code: 451, message: "4.3.0 Try again later" };
    };
    const ask = () => new Owner(t).post("/api/admin/sign-in/mail", { email: "owner@example.com" });
    expect((await ask()).statusCode).toBe(202);
    await waitFor(async () => refused === 1, { what: "the refused mail" });
    smtp.answer = () => undefined;
    // The owner saw no mail and asks again, a moment later.
    expect((await ask()).statusCode).toBe(202);
    await smtp.waitFor((received) => received.length === 1, 5_000);
    const token = /#token=([\w-]{43})/.exec(smtp.received[0]?.parsed.text ?? "")?.[1];
    expect((await new Owner(t).post("/api/admin/sign-in", { token })).statusCode).toBe(200);
  });
});
