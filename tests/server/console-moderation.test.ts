import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import {
  auditResponseSchema,
  bansResponseSchema,
  consoleCommentsResponseSchema,
  sessionsResponseSchema,
  signInResponseSchema,
  whoAmIResponseSchema,
} from "../../contract/console.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { Owner } from "./support/owner.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The console's moderation beyond one comment at a time
 * (docs/console.md): each comment listed once, filters
 * by state, the queue's count, bulk approve and reject, the ban list and
 * unban, each change audited.
 */

const ids = (comments: { id: number }[]) => comments.map((c) => c.id);

describe.each(backends)("moderating many comments from the console on %s", (backend) => {
  let t: TestApp;
  let owner: Owner;
  let sessionId: string;
  beforeAll(async () => {
    t = await startTestApp(backend, { env: { MODERATION: "all" } });
    owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    sessionId = json(await owner.get("/api/admin/session"), whoAmIResponseSchema).session.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const hold = async (text: string, name = "Asha") =>
    json(await t.visitor().comment("soap", text, name), commentResponseSchema).comment;
  const listing = async (query = "") =>
    json(await owner.get(`/api/admin/comments${query}`), consoleCommentsResponseSchema);

  it("lists a held comment once, counts each state, and filters by state", async () => {
    const first = await hold("Does soap lather in sea water?");
    const second = await hold("And in rain water?");
    expect((await owner.post(`/api/admin/comments/${second.id}/approve`)).statusCode).toBe(204);

    const all = await listing();
    expect(ids(all.pending)).toEqual([first.id]);
    expect(ids(all.comments)).toEqual([second.id]);
    expect(all.counts).toEqual({ published: 1, pending: 1, spam: 0 });

    const held = await listing("?status=pending");
    expect(ids(held.pending)).toEqual([first.id]);
    expect(held.comments).toEqual([]);
    const published = await listing("?status=published");
    expect(published.pending).toEqual([]);
    expect(ids(published.comments)).toEqual([second.id]);
    expect((await listing("?status=spam")).comments).toEqual([]);
    expect((await owner.get("/api/admin/comments?status=deleted")).statusCode).toBe(400);

    expect(json(await owner.get("/api/admin/comments/queue"))).toEqual({ pending: 1 });
    expect((await owner.post(`/api/admin/comments/${first.id}/reject`)).statusCode).toBe(204);
    expect(json(await owner.get("/api/admin/comments/queue"))).toEqual({ pending: 0 });
  });

  it("approves and rejects many at once, each audited, and says which were gone", async () => {
    const a = await hold("Why does soap foam less in hard water?", "Ravi");
    const b = await hold("Is liquid soap different?", "Ravi");
    const c = await hold("Buy cheap followers", "Spammer");
    const d = await hold("Another cheap offer", "Spammer");

    const approved = await owner.post("/api/admin/comments/bulk", {
      action: "approve",
      ids: [a.id, b.id],
    });
    expect(approved.statusCode).toBe(200);
    expect(json(approved)).toEqual({ done: 2, notFound: [] });
    const readers = json(
      await t.visitor().get("/api/items/science/soap/comments"),
      commentsResponseSchema,
    ).comments;
    expect(ids(readers)).toEqual(expect.arrayContaining([a.id, b.id]));

    const rejected = await owner.post("/api/admin/comments/bulk", {
      action: "reject",
      ids: [c.id, d.id, 2_000_000],
    });
    expect(json(rejected)).toEqual({ done: 2, notFound: [2_000_000] });
    expect(ids((await listing()).pending)).not.toEqual(expect.arrayContaining([c.id]));

    for (const body of [
      { action: "approve", ids: [] },
      { action: "publish", ids: [a.id] },
      { action: "approve", ids: Array.from({ length: 201 }, (_, i) => i + 1) },
      { action: "approve", ids: [0] },
    ]) {
      expect((await owner.post("/api/admin/comments/bulk", body)).statusCode).toBe(400);
    }

    const trail = (await admin(adminEnv(t), "audit")).stdout;
    for (const [action, id] of [
      ["comment approve", a.id],
      ["comment approve", b.id],
      ["comment reject", c.id],
      ["comment reject", d.id],
    ] as const) {
      expect(trail).toContain(`\t${sessionId}\t${action}\t${id}\n`);
    }
  });

  it("lists the bans in force with their comment, and lifts one", async () => {
    const visitor = t.visitor();
    const { comment } = json(
      await visitor.comment("soap", "Visit my shop for soap deals", "Trader"),
      commentResponseSchema,
    );
    expect(
      (
        await owner.post(`/api/admin/comments/${comment.id}/ban`, {
          days: 30,
          scope: "address",
        })
      ).statusCode,
    ).toBe(204);
    expect((await visitor.comment("soap", "Still here", "Trader")).statusCode).toBe(403);

    const { bans } = json(await owner.get("/api/admin/bans"), bansResponseSchema);
    const ban = bans.find((b) => b.comment?.id === comment.id)!;
    expect(ban).toMatchObject({
      comment: {
        id: comment.id,
        userName: "Trader",
        excerpt: "Visit my shop for soap deals",
        postTitle: expect.stringMatching(/\w/),
      },
      expiresAt: expect.any(String),
      coversAddress: true,
    });

    expect((await owner.delete(`/api/admin/bans/${ban.id}`)).statusCode).toBe(204);
    expect((await owner.delete(`/api/admin/bans/${ban.id}`)).statusCode).toBe(404);
    expect((await owner.delete("/api/admin/bans/nonsense")).statusCode).toBe(400);
    const listed = json(await owner.get("/api/admin/bans"), bansResponseSchema).bans;
    expect(listed.some((b) => b.id === ban.id)).toBe(false);
    expect((await visitor.comment("soap", "Back again, politely", "Trader")).statusCode).toBe(201);

    const trail = (await admin(adminEnv(t), "audit")).stdout;
    expect(trail).toContain(`\t${sessionId}\tvisitor unban\tban ${ban.id}\n`);
  });

  // Once, on SQLite: refused without a session cookie before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("refuses every moderation route without a session", async () => {
        const stranger = new Owner(t);
        for (const [method, url] of [
          ["GET", "/api/admin/comments/queue"],
          ["POST", "/api/admin/comments/bulk"],
          ["GET", "/api/admin/bans"],
          ["DELETE", "/api/admin/bans/1"],
        ] as const) {
          const body = method === "POST" ? { action: "approve", ids: [1] } : undefined;
          expect((await stranger.request(method, url, body)).statusCode).toBe(401);
        }
      });
    });
  }

  it("names each session by its browser and device, in the console and the audit screen", async () => {
    const phone = new Owner(t);
    const login = await admin(adminEnv(t), "login");
    const token = /#token=([\w-]{43})/.exec(login.stdout)?.[1] ?? "";
    const signedIn = await phone.request(
      "POST",
      "/api/admin/sign-in",
      { token },
      {
        "user-agent":
          "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
      },
    );
    expect(signedIn.statusCode).toBe(200);
    expect(json(signedIn, signInResponseSchema).session.device).toBe("Safari on iOS (phone)");
    const { sessions } = json(await owner.get("/api/admin/sessions"), sessionsResponseSchema);
    expect(sessions.map((s) => s.device)).toContain("Safari on iOS (phone)");

    const phoneSession = json(await phone.get("/api/admin/session"), whoAmIResponseSchema).session
      .id;
    expect((await phone.post("/api/admin/sign-out")).statusCode).toBe(204);
    const { entries } = json(await owner.get("/api/admin/audit"), auditResponseSchema);
    expect(entries[0]).toMatchObject({
      action: "sign-out",
      sessionId: phoneSession,
      device: "Safari on iOS (phone)",
    });
    const fromCli = entries.find((e) => e.sessionId === null);
    expect(fromCli).toMatchObject({ device: null });
  });
});
