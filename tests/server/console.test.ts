import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { InjectOptions, LightMyRequestResponse } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  commentResponseSchema,
  commentsResponseSchema,
  errorResponseSchema,
} from "../../contract/api.ts";
import {
  consoleCommentsResponseSchema,
  editionPreviewResponseSchema,
  editionsResponseSchema,
  healthResponseSchema,
  overviewResponseSchema,
  passkeyOptionsResponseSchema,
  queuedResponseSchema,
  sessionsResponseSchema,
  subscribersResponseSchema,
  whoAmIResponseSchema,
} from "../../contract/console.ts";
import { limits } from "../../contract/limits.ts";
import { dateKey, instantOf } from "../../contract/time-zones.ts";
import { loadConfig } from "../../server/config.ts";
import { createOwnerRepository } from "../../server/console/owner-repository.ts";
import { openStore } from "../../server/db/store.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { SoftPasskey } from "./support/authenticator.ts";
import { confirmedSubscriber, requestSubscription } from "./support/newsletter.ts";
import { linkToken, Owner } from "./support/owner.ts";
import { header, type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  capturedLogs,
  freshItem,
  json,
  openApiDocumentSchema,
  siteUrl,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/** A clock the tests move on by hand: links and sessions expire without waiting. */
function manualClock() {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance(ms: number) {
      offsetMs += ms;
    },
    /** Back to the real time, which the command line's links are made with. */
    reset() {
      offsetMs = 0;
    },
  };
}

const minute = 60 * 1000;
const hour = 60 * minute;
describe.each(backends)("the owner's console on %s", (backend) => {
  let t: TestApp;
  let editionsDir: string;
  const clock = manualClock();

  beforeAll(async () => {
    editionsDir = mkdtempSync(path.join(os.tmpdir(), "ewe-editions-"));
    writeFileSync(
      path.join(editionsDir, "2026-06-engines.md"),
      "---\nsubject: Engines in June\n---\nInjection pressure, **explained**.\n",
    );
    writeFileSync(path.join(editionsDir, "broken.md"), "no frontmatter here\n");
    t = await startTestApp(backend, {
      env: { EDITIONS_DIR: editionsDir, OWNER_SIGN_IN_ATTEMPTS_PER_HOUR: "1000" },
      clock: clock.now,
    });
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => clock.reset());

  it("signs in with the command line's link, once, with a strict HttpOnly cookie", async () => {
    const owner = new Owner(t);
    const login = await admin(adminEnv(t), "login");
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(/^http:\/\/ewe\.test\/admin\/sign-in#token=[\w-]{43}\n$/);
    expect(login.stderr).toContain("Valid for 10 minutes, once.");
    const token = linkToken(login.stdout);

    const signedIn = await owner.post("/api/admin/sign-in", { token });
    expect(signedIn.statusCode).toBe(200);
    const cookie = signedIn.cookies.find((c) => c.name === "ewe_owner");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    expect(cookie?.secure).toBeFalsy();
    expect(cookie?.maxAge).toBe(12 * 60 * 60);
    // Beside it, for as long, the owner's name for the pages' first script: readable, and no key to anything.
    const name = signedIn.cookies.find((c) => c.name === "ewe_owner_name");
    expect(name).toMatchObject({ sameSite: "Strict", path: "/", maxAge: 12 * 60 * 60 });
    expect(name?.httpOnly).toBeFalsy();
    expect(decodeURIComponent(name?.value ?? "")).toBe(
      loadConfig({}, { productionRules: false }).owner.name,
    );

    const me = await owner.get("/api/admin/session");
    expect(me.statusCode).toBe(200);
    expect(json(me, whoAmIResponseSchema).session).toMatchObject({ method: "link", current: true });

    // The same link again, from another browser: refused.
    const again = await new Owner(t).post("/api/admin/sign-in", { token });
    expect(again.statusCode).toBe(410);
    expect(json(again, errorResponseSchema).error.code).toBe("token_used");
    expect(again.cookies).toEqual([]);
  });

  it("refuses a link after 10 minutes, and one it never issued", async () => {
    const login = await admin(adminEnv(t), "login");
    clock.advance(10 * minute + 1000);
    const late = await new Owner(t).post("/api/admin/sign-in", { token: linkToken(login.stdout) });
    expect(late.statusCode).toBe(410);
    expect(json(late, errorResponseSchema).error.code).toBe("token_expired");

    const unknown = await new Owner(t).post("/api/admin/sign-in", { token: "A".repeat(43) });
    expect(unknown.statusCode).toBe(404);
    const malformed = await new Owner(t).post("/api/admin/sign-in", { token: "../../x" });
    expect(malformed.statusCode).toBe(400);
  });

  it("keeps only digests of links and session tokens in the database", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const cookieValue = owner.cookie?.split("=")[1] ?? "";
    expect(cookieValue).toMatch(/^[\w-]{43}$/);
    const digest = createHash("sha256").update(cookieValue).digest("hex");
    const rows = await runSql(t, "select * from owner_sessions");
    expect(JSON.stringify(rows)).not.toContain(cookieValue);
    expect(rows.map((row) => row.token_hash)).toContain(digest);
    const login = await admin(adminEnv(t), "login");
    const links = await runSql(t, "select * from owner_sign_in_links");
    expect(JSON.stringify(links)).not.toContain(linkToken(login.stdout));
    const sessions = await admin(adminEnv(t), "sessions", "list", "--json");
    expect(sessions.stdout).not.toContain(cookieValue);
  });

  it("answers 401 to every console API of the OpenAPI document without a session", async () => {
    const document = json(
      await t.app.inject({ method: "GET", url: "/api/openapi.json" }),
      openApiDocumentSchema,
    );
    const operations: { method: string; url: string; tags: string[] }[] = [];
    for (const [route, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        operations.push({
          method: method.toUpperCase(),
          url: route.replace(/\{(\w+)\}/g, (_, name: string) =>
            name === "id" ? "1" : name === "slug" ? "2026-06-engines" : "someone%40example.com",
          ),
          tags: operation.tags ?? [],
        });
      }
    }
    const guarded = operations.filter((o) => o.tags.includes("console"));
    // Every route under /api/admin is either guarded or one of the sign-in steps.
    const underAdmin = operations.filter((o) => o.url.startsWith("/api/admin/"));
    expect(
      underAdmin.every((o) => o.tags.includes("console") || o.tags.includes("console sign-in")),
    ).toBe(true);
    expect(guarded.map((o) => `${o.method} ${o.url}`)).toEqual(
      expect.arrayContaining([
        "GET /api/admin/overview",
        "GET /api/admin/comments",
        "DELETE /api/admin/comments/1",
        "GET /api/admin/subscribers/export",
        "POST /api/admin/editions/2026-06-engines/send",
        "GET /api/admin/health",
        "GET /api/admin/audit",
      ]),
    );
    for (const { method, url } of guarded) {
      const write = method !== "GET";
      const response = await t.app.inject({
        method: method as InjectOptions["method"],
        url,
        headers: {
          origin: siteUrl,
          cookie: "ewe_owner=forged-or-stale-token-aaaaaaaaaaaaaaaaaaaaaaa",
        },
        ...(write ? { payload: {} } : {}),
      });
      expect(response.statusCode, `${method} ${url}`).toBe(401);
      expect(json(response, errorResponseSchema).error.code).toBe("unauthorized");
    }
    // Nothing was queued by the refused send.
    const status = await admin(adminEnv(t), "newsletter", "status", "--json");
    expect(JSON.parse(status.stdout).editions).toEqual([]);
  });

  it("refuses cross-origin writes even with the session", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const reader = t.visitor();
    const comment = json(await reader.comment("wifi", "Keep me"), commentResponseSchema).comment;
    const forged = await owner.request("DELETE", `/api/admin/comments/${comment.id}`, undefined, {
      origin: "https://evil.example",
    });
    expect(forged.statusCode).toBe(403);
    expect(json(forged, errorResponseSchema).error.code).toBe("cross_origin");
    const noOrigin = await t.app.inject({
      method: "DELETE",
      url: `/api/admin/comments/${comment.id}`,
      headers: { cookie: owner.cookie ?? "" },
    });
    expect(noOrigin.statusCode).toBe(403);
    const listed = json(
      await owner.get("/api/admin/comments?q=Keep%20me"),
      consoleCommentsResponseSchema,
    ).comments;
    expect(listed.map((c) => c.id)).toContain(comment.id);
  });

  it("ends a session after 12 idle hours, and not while it is used", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    clock.advance(11 * hour);
    expect((await owner.get("/api/admin/session")).statusCode).toBe(200);
    clock.advance(11 * hour);
    expect((await owner.get("/api/admin/session")).statusCode).toBe(200);
    clock.advance(12 * hour + 1000);
    expect((await owner.get("/api/admin/session")).statusCode).toBe(401);
  });

  it("ends a session 30 days after its sign-in, however much it is used", async () => {
    // The command line's sign-in links are made at the real time: the session
    // begins 30 days before it, so that a second one can begin at the end.
    clock.advance(-30 * 24 * hour);
    const owner = new Owner(t);
    await owner.signIn();
    const { id } = json(await owner.get("/api/admin/session"), whoAmIResponseSchema).session;
    for (let hours = 11; hours <= 30 * 24 - 5; hours += 11) {
      clock.advance(11 * hour);
      expect((await owner.get("/api/admin/session")).statusCode).toBe(200);
    }
    const other = new Owner(t);
    await other.signIn();
    const listed = async () =>
      json(await other.get("/api/admin/sessions"), sessionsResponseSchema).sessions.map(
        (session) => session.id,
      );
    expect(await listed()).toContain(id);
    clock.advance(11 * hour);
    expect((await owner.get("/api/admin/session")).statusCode).toBe(401);
    expect(await listed()).not.toContain(id);
  });

  it("lists and revokes sessions from the command line", async () => {
    const first = new Owner(t);
    const second = new Owner(t);
    await first.signIn();
    await second.signIn();
    const id = json(await first.get("/api/admin/session"), whoAmIResponseSchema).session.id;
    const list = await admin(adminEnv(t), "sessions", "list");
    expect(list.stdout).toContain(id);

    const revoke = await admin(adminEnv(t), "sessions", "revoke", id);
    expect(revoke.code).toBe(0);
    expect((await first.get("/api/admin/session")).statusCode).toBe(401);
    expect((await second.get("/api/admin/session")).statusCode).toBe(200);
    expect((await admin(adminEnv(t), "sessions", "revoke", id)).code).toBe(3);
    expect((await admin(adminEnv(t), "sessions", "revoke")).code).toBe(2);

    expect((await admin(adminEnv(t), "sessions", "revoke", "--all")).code).toBe(0);
    expect((await second.get("/api/admin/session")).statusCode).toBe(401);
  });

  it("searches and deletes comments, and the audit trail records it", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const sessionId = json(await owner.get("/api/admin/session"), whoAmIResponseSchema).session.id;
    const reader = t.visitor();
    const spam = json(
      await reader.comment("soap", "Buy 100% cheap_watches now", "Spammer"),
      commentResponseSchema,
    ).comment;
    await reader.comment("ironing", "Linen needs more heat", "Priya");

    const byText = json(
      await owner.get("/api/admin/comments?q=100%25%20cheap_"),
      consoleCommentsResponseSchema,
    ).comments;
    expect(byText.map((c) => c.id)).toEqual([spam.id]);
    expect(byText[0]).toMatchObject({ userName: "Spammer", postId: "soap" });
    const byName = json(
      await owner.get("/api/admin/comments?q=priya"),
      consoleCommentsResponseSchema,
    ).comments;
    expect(byName.map((c) => c.content)).toEqual(["Linen needs more heat"]);
    const byPost = json(
      await owner.get("/api/admin/comments?post=soap"),
      consoleCommentsResponseSchema,
    ).comments;
    expect(byPost.every((c) => c.postId === "soap")).toBe(true);

    expect((await owner.delete(`/api/admin/comments/${spam.id}`)).statusCode).toBe(204);
    expect((await owner.delete(`/api/admin/comments/${spam.id}`)).statusCode).toBe(404);
    const onPage = json(
      await reader.get("/api/items/science/soap/comments"),
      commentsResponseSchema,
    ).comments;
    expect(onPage.map((c) => c.id)).not.toContain(spam.id);

    const trail = await admin(adminEnv(t), "audit");
    expect(trail.code).toBe(0);
    expect(trail.stdout).toMatch(new RegExp(`\\t${sessionId}\\tcomment delete\\t${spam.id}\\n`));
    expect(trail.stdout).toMatch(/\tnone\tsign-in link\tcommand line\n/);

    // The command line's own changes are in the same trail, without a session.
    const other = json(
      await reader.comment("soap", "Also spam", "Spammer"),
      commentResponseSchema,
    ).comment;
    expect((await admin(adminEnv(t), "comments", "delete", String(other.id))).code).toBe(0);
    expect((await admin(adminEnv(t), "audit", "--limit", "1")).stdout).toMatch(
      new RegExp(`\\tnone\\tcomment delete\\t${other.id}\\n$`),
    );
  });

  it("shows subscribers by state, removes one and exports a neutralised CSV", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    await confirmedSubscriber(t, "+formula@example.com");
    await confirmedSubscriber(t, "reader@example.com");
    await requestSubscription(t, "waiting@example.com");

    const all = json(await owner.post("/api/admin/subscribers/search"), subscribersResponseSchema);
    expect(all.counts).toEqual({ confirmed: 2, pending: 1 });
    const found = json(
      await owner.post("/api/admin/subscribers/search", { q: "WAIT" }),
      subscribersResponseSchema,
    ).subscribers;
    expect(found).toEqual([
      expect.objectContaining({ email: "waiting@example.com", status: "pending" }),
    ]);

    const csv = await owner.get("/api/admin/subscribers/export");
    expect(csv.statusCode).toBe(200);
    expect(csv.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(csv.headers["content-disposition"]).toMatch(/^attachment; filename="subscribers-/);
    expect(csv.body.startsWith("\uFEFFemail,subscribed_at,unsubscribe_url\r\n")).toBe(true);
    expect(csv.body).toContain("'+formula@example.com,");
    expect(csv.body).not.toContain("waiting@example.com");

    const remove = (email: string) => owner.post("/api/admin/subscribers/remove", { email });
    expect((await remove("READER@example.com")).statusCode).toBe(204);
    expect(
      json(await owner.post("/api/admin/subscribers/search"), subscribersResponseSchema).counts
        .confirmed,
    ).toBe(1);
    expect((await remove("nobody@example.com")).statusCode).toBe(404);
    const trail = await admin(adminEnv(t), "audit", "--json");
    const actions = JSON.parse(trail.stdout).map((e: { action: string; object: string }) => [
      e.action,
      e.object,
    ]);
    // The audit trail records the removal, never the address it erased.
    expect(actions).toContainEqual(["subscriber remove", "1 address"]);
    expect(trail.stdout.toLowerCase()).not.toContain("reader@example.com");
    expect(actions).toContainEqual(["subscribers export", "2 addresses"]);
  });

  it.each([
    [
      "a subscriber search with a NUL",
      "POST",
      "/api/admin/subscribers/search",
      { q: "reader\u0000" },
      "body.q",
    ],
    [
      "a removal of an address with a NUL",
      "POST",
      "/api/admin/subscribers/remove",
      { email: "reader@example.com\u0000" },
      "body.email",
    ],
    [
      "a comment search with a NUL",
      "GET",
      "/api/admin/comments?q=hello%00",
      undefined,
      "querystring.q",
    ],
    [
      "a comment search by a post with a NUL",
      "GET",
      "/api/admin/comments?post=soap%00",
      undefined,
      "querystring.post",
    ],
    [
      "a comment search with an escape",
      "GET",
      "/api/admin/comments?q=%1B%5B2J",
      undefined,
      "querystring.q",
    ],
  ] as const)(
    "refuses %s: 400, changing nothing, on either database",
    async (_case, method, url, body, path) => {
      const owner = new Owner(t);
      await owner.signIn();
      const subscribers = async () =>
        json(await owner.post("/api/admin/subscribers/search"), subscribersResponseSchema);
      const before = await subscribers();
      const response = await owner.request(method, url, body);
      expect(response.statusCode).toBe(400);
      expect(json(response, errorResponseSchema).error.issues).toEqual([
        expect.objectContaining({ path }),
      ]);
      expect(await subscribers()).toEqual(before);
    },
  );

  it("lists, previews and sends editions from the editions folder", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const listed = json(await owner.get("/api/admin/editions"), editionsResponseSchema);
    expect(listed.editions).toEqual([
      {
        slug: "broken",
        subject: null,
        problem: expect.stringContaining("frontmatter"),
        warnings: [],
        progress: null,
        scheduled: null,
      },
      {
        slug: "2026-06-engines",
        subject: "Engines in June",
        problem: null,
        warnings: [],
        progress: null,
        scheduled: null,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(editionsDir);

    const preview = json(
      await owner.get("/api/admin/editions/2026-06-engines"),
      editionPreviewResponseSchema,
    );
    expect(preview.subject).toBe("Engines in June");
    expect(preview.html).toContain("<strong>explained</strong>");
    expect((await owner.get("/api/admin/editions/broken")).statusCode).toBe(422);
    expect((await owner.get("/api/admin/editions/missing")).statusCode).toBe(404);
    expect((await owner.get("/api/admin/editions/..%2F..%2Fetc%2Fpasswd")).statusCode).toBe(400);

    const sent = await owner.post("/api/admin/editions/2026-06-engines/send");
    expect(sent.statusCode).toBe(202);
    const confirmed = json(
      await owner.post("/api/admin/subscribers/search"),
      subscribersResponseSchema,
    ).counts.confirmed;
    expect(json(sent, queuedResponseSchema).queued).toBe(confirmed);
    await expect
      .poll(
        async () =>
          json(await owner.get("/api/admin/editions"), editionsResponseSchema).editions.find(
            (e) => e.slug === "2026-06-engines",
          )?.progress?.sent,
        { timeout: 15_000 },
      )
      .toBe(confirmed);
    const overview = json(await owner.get("/api/admin/overview"), overviewResponseSchema);
    expect(overview.editions).toEqual([
      expect.objectContaining({ slug: "2026-06-engines", sent: confirmed, failed: 0 }),
    ]);
  });

  it("tells before a send how many subscribers an edition reaches, the suppressed left out", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const reach = async () => {
      const { confirmedSubscribers, suppressedSubscribers } = json(
        await owner.get("/api/admin/editions"),
        editionsResponseSchema,
      );
      return { confirmed: confirmedSubscribers, suppressed: suppressedSubscribers };
    };
    const bounced = "reach-bounced@example.org";
    await confirmedSubscriber(t, bounced);
    const before = await reach();
    // A hard bounce, as the mail server's refusal records it.
    await runSql(
      t,
      "insert into suppressions (email_hash, domain, reason, source, detail, created_at) values (?, 'example.org', 'hard_bounce', 'smtp', null, ?)",
      [t.addressKey(bounced), new Date().toISOString()],
    );
    const after = await reach();
    expect(after).toEqual({ confirmed: before.confirmed, suppressed: before.suppressed + 1 });
    const asked = await admin(
      adminEnv(t),
      "newsletter",
      "send",
      path.join(editionsDir, "2026-06-engines.md"),
    );
    expect(asked.code).toBe(2);
    const reached = after.confirmed - after.suppressed;
    // Sent earlier in this file: it reaches those who have not had it, of these.
    expect(asked.stderr).toContain(
      `who have not had it yet, of ${reached} confirmed subscriber${reached === 1 ? "" : "s"}, not ${after.suppressed} suppressed address`,
    );
  });

  it("charts 90 days of comments, reactions and subscribers", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const overview = json(await owner.get("/api/admin/overview"), overviewResponseSchema);
    expect(overview.activity).toHaveLength(90);
    const today = dateKey(clock.now(), overview.zone);
    const last = overview.activity.at(-1)!;
    expect(last.day).toBe(today);
    expect(last.comments).toBeGreaterThanOrEqual(2);
    const reader = t.visitor();
    await reader.react("mythology", "garuda", "love");
    await reader.react("science", "wifi", "idea");
    const after = json(await owner.get("/api/admin/overview"), overviewResponseSchema);
    expect(after.activity.at(-1)!.reactions).toBe(last.reactions + 2);
    expect(after.subscribers.at(-1)).toMatchObject({ day: today });
    const latest = after.subscribers.at(-1)!;
    expect(latest.confirmed + latest.pending).toBeGreaterThan(0);
    expect(after.mostEngaged.map((i) => i.id)).toEqual(expect.arrayContaining(["garuda", "wifi"]));
  });

  it("charts each day from the owner's midnight, in the zone of the Bookings hours", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const before = json(await owner.get("/api/admin/overview"), overviewResponseSchema);
    // The sample owner's zone, as the Readers screen's days.
    expect(before.zone).toBe("Asia/Kolkata");
    const today = dateKey(clock.now(), before.zone);
    expect(before.activity.at(-1)?.day).toBe(today);
    // A reaction in the first second of the owner's today: 18:30 UTC of the day before in Kolkata.
    const [year, month, day] = today.split("-").map(Number) as [number, number, number];
    const midnight = instantOf({ year, month, day }, 0, before.zone) ?? Number.NaN;
    const at = new Date(Math.min(midnight + 1000, clock.now().getTime())).toISOString();
    await t.visitor().react("mythology", "garuda", "love");
    await runSql(
      t,
      "update mythology_reactions set created_at = ? where id = (select max(id) from mythology_reactions)",
      [at],
    );
    const after = json(await owner.get("/api/admin/overview"), overviewResponseSchema);
    expect(after.activity.at(-1)).toMatchObject({
      day: today,
      reactions: (before.activity.at(-1)?.reactions ?? 0) + 1,
    });
    expect(after.activity.at(-2)?.reactions).toBe(before.activity.at(-2)?.reactions);
  });

  it("charts an address kept from before double opt-in as confirmed, as the Subscribers screen does", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const overview = async () =>
      json(await owner.get("/api/admin/overview"), overviewResponseSchema).subscribers.at(-1)!;
    const before = await overview();
    // What an upgrade from a version before double opt-in leaves (migration 003):
    // confirmed, with no time of confirming.
    await runSql(
      t,
      "insert into subscribers (email, unsubscribe_token, created_at, status) values (?, ?, ?, 'confirmed')",
      ["kept-from-before@example.com", "kept-from-before-token", new Date().toISOString()],
    );
    const screen = json(
      await owner.post("/api/admin/subscribers/search", { q: "kept-from-before" }),
      subscribersResponseSchema,
    ).subscribers;
    expect(screen.map((row) => row.status)).toEqual(["confirmed"]);
    expect(await overview()).toEqual({
      ...before,
      confirmed: before.confirmed + 1,
      pending: before.pending,
    });
  });

  it("reports health with the settings' secrets masked", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    // A Fediverse message given up two days ago is shown; one 31 days ago is past its keeping.
    const givenUp = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    const record =
      "insert into fediverse_given_up (kind, activity, why, given_up_at) values (?, ?, ?, ?)";
    const activity = `${siteUrl}/fediverse/notes/7#delete-1`;
    await runSql(t, record, ["ewe:take-back", null, "Error", givenUp(31)]);
    const recent = givenUp(2);
    await runSql(t, record, ["outbox", activity, "no result within 120 s", recent]);
    const health = json(await owner.get("/api/admin/health"), healthResponseSchema);
    expect(health.fediverseGivenUp).toEqual({
      total: 1,
      latest: [
        {
          id: expect.any(Number),
          kind: "outbox",
          activity,
          why: "no result within 120 s",
          at: recent,
        },
      ],
    });
    expect(health.database).toEqual({ kind: backend, reachable: true });
    expect(health.liveEvents).toBe("listening");
    expect(health.version).toMatch(/^\d+\.\d+\.\d+$/);
    const settings = new Map(health.settings.map((s) => [s.name, s.value]));
    expect(settings.get("SITE_URL")).toBe(siteUrl);
    expect(settings.get("EDITIONS_DIR")).toBe(editionsDir);
    if (t.databaseUrl) {
      const password = new URL(t.databaseUrl).password;
      if (password) expect(JSON.stringify(health)).not.toContain(password);
      expect(settings.get("DATABASE_URL")).toContain(new URL(t.databaseUrl).hostname);
    }
  });

  it("lists the latest Fediverse messages given up and counts the rest, in a storm of failures", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    await runSql(t, "delete from fediverse_given_up");
    // One more than the screen lists, all given up in the same millisecond, none with an activity.
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const storm = limits.givenUpShown + 1;
    const values = Array.from({ length: storm }, () => "('outbox', null, 'TypeError', ?)");
    await runSql(
      t,
      `insert into fediverse_given_up (kind, activity, why, given_up_at) values ${values.join(", ")}`,
      Array(storm).fill(at),
    );
    const newest = new Date().toISOString();
    await runSql(
      t,
      "insert into fediverse_given_up (kind, activity, why, given_up_at) values ('fanout', null, 'Error', ?)",
      [newest],
    );
    const { fediverseGivenUp } = json(await owner.get("/api/admin/health"), healthResponseSchema);
    expect(fediverseGivenUp.total).toBe(storm + 1);
    const { latest } = fediverseGivenUp;
    expect(latest).toHaveLength(limits.givenUpShown);
    expect(latest[0]).toMatchObject({ kind: "fanout", at: newest });
    expect(latest.slice(1).every((each) => each.at === at && each.activity === null)).toBe(true);
    // Each its own record: the newest of the same millisecond first.
    const ids = latest.slice(1).map((each) => each.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    await runSql(t, "delete from fediverse_given_up");
    expect(
      json(await owner.get("/api/admin/health"), healthResponseSchema).fediverseGivenUp,
    ).toEqual({ total: 0, latest: [] });
  });

  it("refuses a passkey it does not know, or an answer that does not verify", async () => {
    const stranger = new Owner(t);
    const options = await stranger.post("/api/admin/passkey-sign-in/options");
    expect(options.statusCode).toBe(200);
    expect(json(options, passkeyOptionsResponseSchema).options.rpId).toBe("ewe.test");
    for (const response of [
      { id: "unknown-credential", rawId: "unknown-credential", type: "public-key", response: {} },
      { nonsense: true },
    ]) {
      const refused = await stranger.post("/api/admin/passkey-sign-in", { response });
      expect(refused.statusCode).toBe(401);
      expect(refused.cookies).toEqual([]);
    }
    const owner = new Owner(t);
    await owner.signIn();
    const garbage = await owner.post("/api/admin/passkeys", {
      name: "Forged",
      response: { id: "x", rawId: "x", type: "public-key", response: { clientDataJSON: "e30" } },
    });
    expect(garbage.statusCode).toBe(400);
    expect(json(await owner.get("/api/admin/session"), whoAmIResponseSchema).passkeys).toEqual([]);
  });

  it("moves a passkey's signature counter only upwards: the same count twice signs in once", async () => {
    const store = await openStore(
      t.databaseUrl
        ? { kind: "postgres", connectionString: t.databaseUrl }
        : { kind: "sqlite", file: path.join(t.dataDir, "engage.sqlite") },
    );
    const owner = createOwnerRepository(store);
    const key = { publicKey: new Uint8Array([1]), transports: [] };
    try {
      await owner.addPasskey({ ...key, id: "counting", name: "Counting key", counter: 4 });
      expect(await owner.passkeyUsed("counting", 5)).toBe(true);
      // Two answers with one count (at once, or from a copy of the key): the second is refused.
      expect(await owner.passkeyUsed("counting", 5)).toBe(false);
      expect(await owner.passkeyUsed("counting", 3)).toBe(false);
      expect(await owner.passkeyUsed("counting", 6)).toBe(true);
      // A key that keeps no count answers 0 each time.
      await owner.addPasskey({ ...key, id: "uncounted", name: "Uncounted key", counter: 0 });
      expect(await owner.passkeyUsed("uncounted", 0)).toBe(true);
      expect(await owner.passkeyUsed("uncounted", 0)).toBe(true);
    } finally {
      await owner.removePasskey("counting");
      await owner.removePasskey("uncounted");
      await store.close();
    }
  });

  it("refuses passkey names that would show reversed or blank in the console and the audit", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    for (const name of ["Laptop \u202Egnp.exe", "\u2066Phone\u2069", "Key\u200B", "\u200B\u200B"]) {
      const refused = await owner.post("/api/admin/passkeys", {
        name,
        response: { id: "x", rawId: "x", type: "public-key", response: {} },
      });
      expect(refused.statusCode, JSON.stringify(name)).toBe(400);
      expect(json(refused, errorResponseSchema).error.issues, JSON.stringify(name)).toEqual([
        expect.objectContaining({ path: "body.name" }),
      ]);
    }
    expect(json(await owner.get("/api/admin/session"), whoAmIResponseSchema).passkeys).toEqual([]);
  });

  it("signs out", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const signedOut = await owner.post("/api/admin/sign-out");
    expect(signedOut.statusCode).toBe(204);
    expect(owner.cookie).toBeUndefined();
    // The pages' cookie with the owner's name goes with it.
    expect(signedOut.cookies.find((c) => c.name === "ewe_owner_name")).toMatchObject({
      value: "",
      path: "/",
    });
    expect((await owner.get("/api/admin/session")).statusCode).toBe(401);
  });
});

describe.each(backends)("moderating from the console on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { env: { MODERATION: "all" } });
  });
  afterAll(async () => {
    await t.close();
  });

  it("queues held comments first, approves, rejects and bans, each audited", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const sessionId = json(await owner.get("/api/admin/session"), whoAmIResponseSchema).session.id;
    const first = t.visitor();
    const second = t.visitor();
    const kept = json(
      await first.comment("soap", "Does soap work in hard water?", "Asha"),
      commentResponseSchema,
    ).comment;
    const dropped = json(
      await second.comment("soap", "Cheap followers here", "Bot"),
      commentResponseSchema,
    ).comment;
    const readerView = () =>
      t
        .visitor()
        .get("/api/items/science/soap/comments")
        .then((r) => json(r, commentsResponseSchema).comments);
    expect(await readerView()).toEqual([]);

    const listed = json(await owner.get("/api/admin/comments"), consoleCommentsResponseSchema);
    expect(listed.pending.map((c) => c.id)).toEqual([kept.id, dropped.id]);
    expect(listed.pending[0]).toMatchObject({ status: "pending", userName: "Asha" });

    expect((await owner.post(`/api/admin/comments/${kept.id}/approve`)).statusCode).toBe(204);
    expect((await readerView()).map((c) => c.id)).toEqual([kept.id]);
    expect((await owner.post(`/api/admin/comments/${dropped.id}/reject`)).statusCode).toBe(204);
    const writersView = json(
      await second.get("/api/items/science/soap/comments"),
      commentsResponseSchema,
    ).comments;
    expect(writersView.map((c) => c.id)).toEqual([kept.id]);
    expect(
      json(await owner.get("/api/admin/comments"), consoleCommentsResponseSchema).pending,
    ).toEqual([]);
    expect((await owner.post(`/api/admin/comments/${dropped.id}/reject`)).statusCode).toBe(404);

    expect((await owner.post(`/api/admin/comments/${kept.id}/ban`, { days: 0 })).statusCode).toBe(
      400,
    );
    // A misspelt field would otherwise be dropped, and the ban last until lifted.
    const misspelt = await owner.post(`/api/admin/comments/${kept.id}/ban`, { day: 7 });
    expect(misspelt.statusCode).toBe(400);
    expect(json(misspelt, errorResponseSchema).error.code).toBe("validation_failed");
    expect((await owner.post(`/api/admin/comments/${kept.id}/ban`, { days: 7 })).statusCode).toBe(
      204,
    );
    const refused = await first.comment("soap", "One more question", "Asha");
    expect(refused.statusCode).toBe(403);

    const trail = (await admin(adminEnv(t), "audit")).stdout;
    expect(trail).toContain(`\t${sessionId}\tcomment approve\t${kept.id}\n`);
    expect(trail).toContain(`\t${sessionId}\tcomment reject\t${dropped.id}\n`);
    expect(trail).toContain(`\t${sessionId}\tvisitor ban\tcomment ${kept.id}, browser, 7 days\n`);
  });

  it("counts on the overview the held comments the comments screen counts, none deleted", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const held = json(
      await t.visitor().comment("soap", "Is cold-process soap gentler?", "Ravi"),
      commentResponseSchema,
    ).comment;
    // A deleted comment's place that is held, as an imported export may bring.
    const place = json(
      await t.visitor().comment("soap", "Gone, its place kept", "Mina"),
      commentResponseSchema,
    ).comment;
    await runSql(t, "update science_comments set content = '', deleted_at = ? where id = ?", [
      new Date().toISOString(),
      place.id,
    ]);
    const screen = json(await owner.get("/api/admin/comments"), consoleCommentsResponseSchema);
    expect(screen.pending.map((c) => c.id)).toEqual([held.id]);
    expect(screen.counts.pending).toBe(1);
    const overview = json(await owner.get("/api/admin/overview"), overviewResponseSchema);
    expect(overview.moderation.held).toBe(screen.counts.pending);
  });

  it("lists every comment a page at a time, the held queue on the first page only", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const post = freshItem("science");
    const held = json(
      await t.visitor().comment(post, "Does a saucer cool it faster?", "Uma"),
      commentResponseSchema,
    ).comment;
    const published: number[] = [];
    for (const n of [1, 2, 3, 4, 5]) {
      const { id } = json(
        await t.visitor().comment(post, `I blew on my tea ${n} times and it cooled.`, "Ravi"),
        commentResponseSchema,
      ).comment;
      expect((await owner.post(`/api/admin/comments/${id}/approve`)).statusCode).toBe(204);
      published.unshift(id);
    }
    const page = async (after?: string) =>
      json(
        await owner.get(
          `/api/admin/comments?post=${post}&limit=2${after ? `&after=${after}` : ""}`,
        ),
        consoleCommentsResponseSchema,
      );
    const seen: number[] = [];
    let current = await page();
    expect(current.pending.map((c) => c.id)).toEqual([held.id]);
    for (let pages = 1; ; pages++) {
      seen.push(...current.comments.map((c) => c.id));
      if (current.next === null) {
        expect(pages).toBe(3);
        break;
      }
      current = await page(current.next);
      expect(current.pending).toEqual([]);
    }
    expect(seen).toEqual(published);
    // A cursor this list did not hand out is refused, not read.
    const forged = Buffer.from("2026-01-01T00:00:00.000Z~1 or 1=1").toString("base64url");
    for (const after of [forged, "not-a-cursor"]) {
      const refused = await owner.get(`/api/admin/comments?after=${after}`);
      expect(refused.statusCode).toBe(400);
      expect(json(refused, errorResponseSchema).error.message).toContain("not a cursor");
    }
  });

  it("charts the comments readers see, as `stats` counts them: none held, kept as spam or deleted", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const overview = async () => {
      const { activity, mostEngaged } = json(
        await owner.get("/api/admin/overview"),
        overviewResponseSchema,
      );
      return {
        today: activity.at(-1)?.comments,
        wifi: mostEngaged.find((item) => item.id === "wifi")?.comments ?? 0,
      };
    };
    const before = await overview();
    const write = async (content: string) =>
      json(await t.visitor().comment("wifi", content, "Ravi"), commentResponseSchema).comment;
    await write("Does the router's height matter?");
    const published = await write("Why do walls slow Wi-Fi down?");
    const spam = await write("Buy cheap routers at my shop today");
    const deleted = await write("Which band goes through concrete?");
    for (const { id } of [published, spam, deleted])
      expect((await owner.post(`/api/admin/comments/${id}/approve`)).statusCode).toBe(204);
    expect((await owner.post(`/api/admin/comments/${spam.id}/spam`)).statusCode).toBe(204);
    expect((await admin(adminEnv(t), "comments", "delete", String(deleted.id))).code).toBe(0);

    const after = await overview();
    expect(after).toEqual({ today: (before.today ?? 0) + 1, wifi: before.wifi + 1 });
    const stats = (await admin(adminEnv(t), "stats")).stdout;
    expect(stats).toMatch(new RegExp(`\\bwifi\\s+(\\d+\\s+){4}${after.wifi}\\n`));
  });
});

describe("signing in by mail", () => {
  let smtp: SmtpSink;
  let t: TestApp;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp("sqlite", {
      env: {
        SMTP_URL: smtp.url,
        OWNER_EMAIL: "owner@example.com",
        OWNER_SIGN_IN_ATTEMPTS_PER_HOUR: "5",
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  afterEach(() => {
    smtp.received.length = 0;
  });

  it("mails a link to OWNER_EMAIL only, with the same answer for any address", async () => {
    const stranger = await new Owner(t).post("/api/admin/sign-in/mail", {
      email: "someone@example.com",
    });
    const theOwner = await new Owner(t).post("/api/admin/sign-in/mail", {
      email: "Owner@Example.com",
    });
    expect(stranger.statusCode).toBe(202);
    expect(theOwner.statusCode).toBe(202);
    expect(stranger.body).toBe(theOwner.body);
    await smtp.waitFor((received) => received.length >= 1);
    expect(smtp.received.map((m) => m.to)).toEqual([["owner@example.com"]]);
    const mail = smtp.received[0];
    if (!mail) throw new Error("no sign-in mail");
    // A machine's mail, in the site's template: out-of-office replies stay away.
    expect(header(mail, "Auto-Submitted")).toBe("auto-generated");
    expect(header(mail, "Subject")).toBe("Your sign-in link to the console");
    const text = mail.parsed.text ?? "";
    const token = /#token=([\w-]{43})/.exec(text)?.[1] ?? "";
    expect(text).toContain(`${siteUrl}/admin/sign-in#token=${token}`);
    expect(mail.parsed.html).toContain("Sign in to the console</a>");
    expect(mail.parsed.html).toContain("Engage with <span");
    const owner = new Owner(t);
    expect((await owner.post("/api/admin/sign-in", { token })).statusCode).toBe(200);
    expect((await owner.get("/api/admin/session")).statusCode).toBe(200);
  });

  it("limits sign-in attempts per address with 429 and Retry-After", async () => {
    const answers: number[] = [];
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i < 6; i++) {
      last = await t.app.inject({
        method: "POST",
        url: "/api/admin/sign-in",
        remoteAddress: "203.0.113.7",
        headers: { origin: siteUrl },
        payload: { token: "B".repeat(43) },
      });
      answers.push(last.statusCode);
    }
    expect(answers).toEqual([404, 404, 404, 404, 404, 429]);
    expect(Number(last?.headers["retry-after"])).toBeGreaterThan(0);
    const elsewhere = await t.app.inject({
      method: "POST",
      url: "/api/admin/sign-in",
      remoteAddress: "203.0.113.8",
      headers: { origin: siteUrl },
      payload: { token: "B".repeat(43) },
    });
    expect(elsewhere.statusCode).toBe(404);

    // Locked out of guessing, not of signing in: the owner's genuine link
    // from the command line still works from the same shared address.
    const login = await admin(adminEnv(t), "login");
    const genuine = await t.app.inject({
      method: "POST",
      url: "/api/admin/sign-in",
      remoteAddress: "203.0.113.7",
      headers: { origin: siteUrl },
      payload: { token: linkToken(login.stdout) },
    });
    expect(genuine.statusCode).toBe(200);
  });

  it("hands out passkey challenges without keeping them, so asks from a shared address keep no passkey out", async () => {
    const owner = new Owner(t);
    await owner.signIn();
    const key = new SoftPasskey();
    const registration = json(
      await owner.post("/api/admin/passkeys/options"),
      passkeyOptionsResponseSchema,
    ).options as { challenge: string };
    const registered = await owner.post("/api/admin/passkeys", {
      name: "Phone",
      response: key.register(registration.challenge),
    });
    expect(registered.statusCode).toBe(201);
    const ask = () =>
      t.app.inject({
        method: "POST",
        url: "/api/admin/passkey-sign-in/options",
        remoteAddress: "203.0.113.21",
        headers: { origin: siteUrl },
      });
    const rows = async () => (await runSql(t, "select challenge from owner_challenges")).length;
    const before = await rows();
    // More asks than the address's failed attempts (5): a stranger beside the owner asking on.
    const answers: number[] = [];
    for (let i = 0; i < 8; i++) answers.push((await ask()).statusCode);
    expect(answers).toEqual(Array(8).fill(200));
    expect(await rows()).toBe(before);
    const { challenge } = json(await ask(), passkeyOptionsResponseSchema).options as {
      challenge: string;
    };
    const signedIn = await t.app.inject({
      method: "POST",
      url: "/api/admin/passkey-sign-in",
      remoteAddress: "203.0.113.21",
      headers: { origin: siteUrl },
      payload: { response: key.assert(challenge) },
    });
    expect(signedIn.statusCode).toBe(200);
    await owner.delete(`/api/admin/passkeys/${key.id}`);
  });

  it("counts only failures: sign-ins that work never use up the address's attempts", async () => {
    const from = (token: string) =>
      t.app.inject({
        method: "POST",
        url: "/api/admin/sign-in",
        remoteAddress: "203.0.113.9",
        headers: { origin: siteUrl },
        payload: { token },
      });
    for (let i = 0; i < 6; i++) {
      const login = await admin(adminEnv(t), "login");
      expect((await from(linkToken(login.stdout))).statusCode).toBe(200);
    }
    expect((await from("C".repeat(43))).statusCode).toBe(404);
  });

  it("mails one link at a time, so strangers asking cannot use up the owner's mails", async () => {
    // Whatever an earlier test left in the mailbox is used first.
    for (const mail of smtp.received) {
      const token = /#token=([\w-]{43})/.exec(mail.parsed.text ?? "")?.[1] ?? "";
      await new Owner(t).post("/api/admin/sign-in", { token });
    }
    smtp.received.length = 0;
    for (let i = 0; i < 12; i++) {
      const asked = await t.app.inject({
        method: "POST",
        url: "/api/admin/sign-in/mail",
        remoteAddress: `198.51.100.${i + 1}`,
        headers: { origin: siteUrl },
        payload: { email: "owner@example.com" },
      });
      expect(asked.statusCode).toBe(202);
    }
    await smtp.waitFor((received) => received.length >= 1);
    await expect
      .poll(
        async () =>
          (
            await runSql(
              t,
              "select channel from owner_sign_in_links where channel = 'mail' and used_at is null",
            )
          ).length,
      )
      .toBe(1);
    expect(smtp.received).toHaveLength(1);
    // The one link mailed is the owner's way in.
    const token = /#token=([\w-]{43})/.exec(smtp.received[0]?.parsed.text ?? "")?.[1] ?? "";
    expect((await new Owner(t).post("/api/admin/sign-in", { token })).statusCode).toBe(200);
    // Once it is used, asking again mails a new one.
    await new Owner(t).post("/api/admin/sign-in/mail", { email: "owner@example.com" });
    await smtp.waitFor((received) => received.length >= 2);
  });
});

describe("the session cookie over https", () => {
  it("is __Host- prefixed and Secure", async () => {
    const t = await startTestApp("sqlite", { env: { SITE_URL: "https://ewe.example" } });
    try {
      const login = await admin({ ...adminEnv(t), SITE_URL: "https://ewe.example" }, "login");
      expect(login.stdout).toMatch(/^https:\/\/ewe\.example\/admin\/sign-in#token=/);
      const response = await t.app.inject({
        method: "POST",
        url: "/api/admin/sign-in",
        headers: { origin: "https://ewe.example" },
        payload: { token: linkToken(login.stdout) },
      });
      expect(response.statusCode).toBe(200);
      expect(response.cookies).toEqual([
        expect.objectContaining({
          name: "__Host-ewe_owner",
          secure: true,
          httpOnly: true,
          sameSite: "Strict",
          path: "/",
        }),
        expect.objectContaining({ name: "ewe_owner_name", secure: true, sameSite: "Strict" }),
      ]);
      expect(response.cookies[0]).not.toHaveProperty("domain");
    } finally {
      await t.close();
    }
  });
});

describe("the settings the Health view shows", () => {
  it("masks the secrets, the passwords in the database, mail and bounce mailbox URLs, and the webhook's path", async () => {
    const { maskedSettings } = await import("../../server/console/settings.ts");
    const settings = new Map(
      maskedSettings(
        loadConfig({
          NODE_ENV: "test",
          COOKIE_SECRET: "a-cookie-secret-of-at-least-32-characters",
          DATABASE_URL: "postgres://ewe:db-pass-word@db.internal:5432/ewe",
          SMTP_URL: "smtps://mailer:smtp-pass-word@smtp.example.com:465",
          BOUNCE_ADDRESS: "bounces@example.com",
          BOUNCE_IMAP_URL: "imaps://bounces:imap-pass-word@imap.example.com/INBOX",
          OWNER_EMAIL: "owner@example.com",
          WEBHOOK_URL:
            "https://hook-user:hook-pass@hooks.example.com/services/T0/B0/path-token?key=query-token",
          WEBHOOK_SECRET: "a-webhook-secret-of-at-least-32-characters",
          BOOKING_BUSY_CALENDAR_URL: "webcal://p01-caldav.icloud.com/published/2/calendar-token",
        }),
      ).map((s) => [s.name, s.value]),
    );
    const shown = JSON.stringify([...settings]);
    for (const secret of [
      "a-cookie-secret",
      "db-pass-word",
      "smtp-pass-word",
      "imap-pass-word",
      "a-webhook-secret",
      "hook-user",
      "hook-pass",
      "path-token",
      "query-token",
      "calendar-token",
    ]) {
      expect(shown).not.toContain(secret);
    }
    expect(settings.get("DATABASE_URL")).toBe("postgres://ewe:******@db.internal:5432/ewe");
    expect(settings.get("SMTP_URL")).toBe("smtps://mailer:******@smtp.example.com:465");
    expect(settings.get("BOUNCE_IMAP_URL")).toBe("imaps://bounces:******@imap.example.com/INBOX");
    expect(settings.get("COOKIE_SECRET")).toMatch(/hidden/);
    expect(settings.get("WEBHOOK_SECRET")).toMatch(/hidden/);
    expect(settings.get("WEBHOOK_URL")).toBe("https://hooks.example.com/•••••• (path hidden)");
    expect(settings.get("BOOKING_BUSY_CALENDAR_URL")).toBe(
      "https://p01-caldav.icloud.com/•••••• (path hidden)",
    );
    expect(settings.get("OWNER_EMAIL")).toBe("owner@example.com");
    // Unset, with the value in force worked out from the others.
    expect(settings.get("NOTIFY_COMMENTS")).toBe("each (default)");
    expect(settings.get("SITE_URL")).toBe("http://localhost:3000 (default)");
  });

  it("says which secret and model are in use when they are not set, and what an unset setting means", async () => {
    const { maskedSettings } = await import("../../server/console/settings.ts");
    const settings = new Map(
      maskedSettings(loadConfig({ NODE_ENV: "test", DATA_DIR: "/srv/ewe" })).map((s) => [
        s.name,
        s.value,
      ]),
    );
    expect(settings.get("COOKIE_SECRET")).toBe(
      "•••••• (generated, kept in /srv/ewe/cookie-secret)",
    );
    expect(settings.get("SPAM_MODEL_FILE")).toMatch(/build\/spam-model\.json \(default\)$/);
    expect(settings.get("DATABASE_URL")).toBe("not set: SQLite, /srv/ewe/engage.sqlite");
    expect(settings.get("SMTP_URL")).toBe("not set: mails are written to /srv/ewe/outbox");
    // Whether mail is signed: no key made yet with `mail dkim`.
    expect(settings.get("DKIM_KEY_FILE")).toBe(
      'not set: no key at /srv/ewe/dkim-key.json, so mail goes out unsigned (docs/mail.md, "Signed mail")',
    );
    expect(settings.get("OWNER_EMAIL")).toMatch(/^not set: CONTACT_EMAIL \(.+\) is used$/);
    // Only what is truly off shows as not set.
    expect(settings.get("WEBHOOK_URL")).toBeNull();
    // On-off settings read as the docs write them, on or off, not true or false.
    expect(settings.get("HOLD_LINKS_FROM_NEW")).toBe("on");
    expect(settings.get("ANALYTICS")).toBe("on");
    expect(settings.get("ALLOW_PRIVATE_ADDRESSES_IN_TESTS")).toBe("off");
    expect(settings.get("TRUST_PROXY")).toBe("false");
  });

  it("names the DKIM key in use once `mail dkim` has made it", async () => {
    const { maskedSettings } = await import("../../server/console/settings.ts");
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-dkim-"));
    writeFileSync(path.join(dataDir, "dkim-key.json"), "{}\n");
    const settings = new Map(
      maskedSettings(loadConfig({ NODE_ENV: "test", DATA_DIR: dataDir })).map((s) => [
        s.name,
        s.value,
      ]),
    );
    expect(settings.get("DKIM_KEY_FILE")).toBe(`${path.join(dataDir, "dkim-key.json")} (default)`);
  });
});

describe("subscriber addresses in the console", () => {
  it("are in no URL and no log line, and an erasure leaves none in the audit trail", async () => {
    const logs = capturedLogs("info");
    const t = await startTestApp("sqlite", { logger: logs.logger });
    try {
      const owner = new Owner(t);
      await owner.signIn();
      await confirmedSubscriber(t, "private.reader@example.com");
      const found = await owner.post("/api/admin/subscribers/search", { q: "private.reader" });
      expect(json(found, subscribersResponseSchema).subscribers).toEqual([
        expect.objectContaining({ email: "private.reader@example.com" }),
      ]);
      const removed = await owner.post("/api/admin/subscribers/remove", {
        email: "private.reader@example.com",
      });
      expect(removed.statusCode).toBe(204);

      const requests = logs.lines.filter((line) => line.req).map((line) => line.req?.url);
      expect(requests).toEqual(
        expect.arrayContaining(["/api/admin/subscribers/search", "/api/admin/subscribers/remove"]),
      );
      expect(JSON.stringify(logs.lines)).not.toContain("private.reader");
      const trail = await runSql(t, "select action, object from owner_audit");
      expect(trail).toContainEqual({ action: "subscriber remove", object: "1 address" });
      expect(JSON.stringify(trail)).not.toContain("private.reader");
      // The old ways of asking, with the address in the URL, are gone.
      expect((await owner.get("/api/admin/subscribers?q=private.reader")).statusCode).toBe(404);
      expect(
        (await owner.delete("/api/admin/subscribers/private.reader%40example.com")).statusCode,
      ).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe("the console's pages under other spellings of their address", () => {
  it("send a signed-out browser to sign in, with the console's headers, however the path is written", async () => {
    const t = await startTestApp("sqlite", {
      clientFiles: {
        "admin/index.html": "<!doctype html><title>Overview</title>",
        "admin/comments/index.html": "<!doctype html><title>Comments</title>",
        "admin/sign-in/index.html": "<!doctype html><title>Sign in</title>",
      },
    });
    try {
      for (const url of [
        "/admin/",
        "/%61dmin/",
        "/%61%64%6d%69%6e/comments/",
        "/adm%69n/comments/",
        "//admin/",
        "/x/../admin/",
        "/./admin/comments/",
      ]) {
        const response = await t.app.inject({ method: "GET", url });
        // A screen asked for is named, to come back to once signed in.
        const then = url.includes("comments") ? "?then=%2Fadmin%2Fcomments" : "";
        expect([url, response.statusCode, response.headers.location]).toEqual([
          url,
          303,
          `/admin/sign-in${then}`,
        ]);
      }
      for (const url of ["/admin/sign-in/", "/%61dmin/sign-in/", "/admin/sign%2Din/"]) {
        const response = await t.app.inject({ method: "GET", url });
        expect(response.statusCode, url).toBe(200);
        expect(response.headers["cache-control"], url).toBe("no-store");
        expect(response.headers["x-robots-tag"], url).toBe("noindex, nofollow");
        expect(response.headers["content-security-policy"], url).toContain("frame-src 'self'");
      }
    } finally {
      await t.close();
    }
  });
});
