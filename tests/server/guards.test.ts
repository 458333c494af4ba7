import { statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  commentResponseSchema,
  commentsResponseSchema,
  errorResponseSchema,
  reactionsResponseSchema,
} from "../../contract/api.ts";
import { legacyVisitorCookie } from "../../server/engagement/visitor.ts";
import { waitFor } from "../support/wait-for.ts";
import { runSql, seedConfirmed } from "./support/sql.ts";
import {
  backends,
  freshItem,
  json,
  siteUrl,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

describe.each(backends)("guards on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  const count = async (postId: string) =>
    json(await t.visitor().get(`/api/items/science/${postId}/comments`), commentsResponseSchema)
      .comments.length;

  describe("same origin", () => {
    const post = (postId: string, headers: Record<string, string>) =>
      t.app.inject({
        method: "POST",
        url: `/api/items/science/${postId}/comments`,
        headers,
        payload: { content: "hello", userName: "Alex", formToken: t.commentToken() },
      });

    it.each([
      ["no Origin or Referer", {}],
      ["another site's Origin", { origin: "https://evil.example" }],
      ["the opaque origin of a sandboxed page", { origin: "null" }],
      // An Origin sent decides: the Referer is read only when there is none.
      [
        "an opaque origin with a Referer on the site",
        { origin: "null", referer: `${siteUrl}/science` },
      ],
      ["another site's Referer", { referer: "https://evil.example/page" }],
      ["a look-alike host", { origin: "http://ewe.test.evil.example" }],
      ["another port", { origin: "http://ewe.test:8080" }],
      // DNS rebinding: evil.example resolves to this server, so Host and Origin agree.
      [
        "a rebound host, Origin and Host agreeing",
        { origin: "http://evil.example", host: "evil.example" },
      ],
      [
        "the address the request was sent to",
        { origin: "http://127.0.0.1:4173", host: "127.0.0.1:4173" },
      ],
      [
        "a Referer on a rebound host",
        { referer: "http://evil.example/science", host: "evil.example" },
      ],
    ])("refuses a write with %s: 403 cross_origin, nothing stored", async (_case, headers) => {
      const postId = freshItem("science");
      const response = await post(postId, headers);
      expect(response.statusCode).toBe(403);
      expect(json(response, errorResponseSchema).error.code).toBe("cross_origin");
      expect(await count(postId)).toBe(0);
    });

    it.each([
      ["SITE_URL's origin", { origin: siteUrl }],
      ["a Referer on the site", { referer: `${siteUrl}/science` }],
      ["SITE_URL's origin, whatever the Host", { origin: siteUrl, host: "127.0.0.1:3001" }],
    ])("accepts a write with %s", async (_case, headers) => {
      expect((await post(freshItem("science"), headers)).statusCode).toBe(201);
    });

    it("needs no Origin for reads", async () => {
      const response = await t.app.inject({
        method: "GET",
        url: "/api/items/science/wifi/reactions",
      });
      expect(response.statusCode).toBe(200);
    });
  });

  describe("bodies", () => {
    it.each([
      ["text/plain", "text/plain"],
      ["a form", "application/x-www-form-urlencoded"],
      ["multipart", "multipart/form-data; boundary=x"],
      ["no content type", undefined],
    ])("refuses %s with 415", async (_case, contentType) => {
      const postId = freshItem("science");
      const response = await t.app.inject({
        method: "POST",
        url: `/api/items/science/${postId}/comments`,
        headers: { origin: siteUrl, ...(contentType ? { "content-type": contentType } : {}) },
        payload: JSON.stringify({ content: "hello", userName: "Alex" }),
      });
      expect(response.statusCode).toBe(415);
      expect(json(response, errorResponseSchema).error.code).toBe("unsupported_media_type");
      expect(await count(postId)).toBe(0);
    });

    it("accepts JSON with a charset", async () => {
      const response = await t.app.inject({
        method: "POST",
        url: "/api/subscribers",
        headers: { origin: siteUrl, "content-type": "application/json; charset=utf-8" },
        payload: JSON.stringify({ email: "charset@example.com", formToken: t.formToken() }),
      });
      expect(response.statusCode).toBe(202);
    });

    // Once, on SQLite: refused by the body's parser before any statement.
    if (backend === "sqlite") {
      describe("whatever the database", () => {
        it.each([
          ["truncated JSON", '{"content": "hello", "userName": '],
          ["single quotes", "{'content': 'hello'}"],
          [
            "a prototype-polluting key",
            '{"__proto__": {"admin": true}, "content": "x", "userName": "A"}',
          ],
        ])("refuses %s with 400 invalid_json", async (_case, payload) => {
          const response = await t
            .visitor()
            .post(`/api/items/science/${freshItem("science")}/comments`, payload);
          expect(response.statusCode).toBe(400);
          expect(json(response, errorResponseSchema).error.code).toBe("invalid_json");
        });

        it.each([
          ["an array", "[]"],
          ["a string", '"hello"'],
          ["null", "null"],
          ["a number", "42"],
          ["nothing", ""],
        ])("refuses %s as a body with 400", async (_case, payload) => {
          const response = await t.visitor().post("/api/subscribers", payload);
          expect(response.statusCode).toBe(400);
        });
      });
    }

    it("refuses a 1 MB body with 413, storing nothing", async () => {
      const postId = freshItem("science");
      const response = await t
        .visitor()
        .post(
          `/api/items/science/${postId}/comments`,
          JSON.stringify({ content: "x".repeat(1024 * 1024), userName: "Alex" }),
        );
      expect(response.statusCode).toBe(413);
      expect(json(response, errorResponseSchema).error.code).toBe("payload_too_large");
      expect(await count(postId)).toBe(0);
    });

    it("takes a DELETE labelled JSON with no body", async () => {
      const alex = t.visitor();
      const id = freshItem("science");
      await alex.react("science", id, "like");
      const response = await alex.request(
        "DELETE",
        `/api/items/science/${id}/reactions/like`,
        undefined,
        {
          "content-type": "application/json",
        },
      );
      expect(response.statusCode).toBe(200);
    });
  });

  describe("visitor cookie", () => {
    it("is set on the first write: signed, HttpOnly, SameSite=Lax, site-wide", async () => {
      const response = await t.visitor().react("science", freshItem("science"), "like");
      const cookie = response.cookies.find((c) => c.name === "ewe_visitor");
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
      expect(cookie?.value).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9+/_-]+=*$/);
      expect(cookie?.maxAge).toBeGreaterThan(30 * 24 * 3600);
    });

    it("is not reissued to a visitor who has one", async () => {
      const alex = t.visitor();
      await alex.react("science", freshItem("science"), "like");
      const again = await alex.react("science", freshItem("science"), "like");
      expect(again.headers["set-cookie"]).toBeUndefined();
    });

    it("is not set by a refused edit or deletion from a client without one", async () => {
      const postId = freshItem("science");
      const alex = t.visitor();
      const { comment } = json(await alex.comment(postId, "mine"), commentResponseSchema);
      await alex.react("science", postId, "like");
      const tampered = `ewe_visitor=${(alex.cookie ?? "").split("=")[1]!.slice(1)}`;
      for (const cookie of [undefined, tampered]) {
        const stranger = t.visitor();
        stranger.cookie = cookie;
        const refusals = [
          await stranger.patch(`/api/comments/${comment.id}`, { content: "x", userName: "Alex" }),
          await stranger.delete(`/api/comments/${comment.id}`),
          await stranger.delete(`/api/items/science/${postId}/reactions/like`),
          await stranger.patch("/api/comments/999999", { content: "x", userName: "Alex" }),
          await stranger.delete("/api/comments/999999"),
        ];
        expect(refusals.map((response) => response.statusCode)).toEqual([403, 403, 404, 404, 404]);
        for (const response of refusals) expect(response.headers["set-cookie"]).toBeUndefined();
      }
      expect(
        json(await alex.get(`/api/items/science/${postId}/comments`), commentsResponseSchema)
          .comments,
      ).toHaveLength(1);
    });

    it("is not trusted when tampered with", async () => {
      const id = freshItem("science");
      const alex = t.visitor();
      await alex.react("science", id, "love");
      const [value = "", signature] = (alex.cookie ?? "").split("=")[1]!.split(".");
      const forged = t.visitor();
      // Another id with the first one's signature: its last two characters changed.
      const other = value.endsWith("AA") ? "BA" : "AA";
      forged.cookie = `ewe_visitor=${value.slice(0, -2)}${other}.${signature}`;
      expect(
        json(await forged.get(`/api/items/science/${id}/reactions`), reactionsResponseSchema).mine,
      ).toEqual([]);
      expect((await forged.delete(`/api/items/science/${id}/reactions/love`)).statusCode).toBe(404);
      const unsigned = t.visitor();
      unsigned.cookie = `ewe_visitor=${value}`;
      expect(
        json(await unsigned.get(`/api/items/science/${id}/reactions`), reactionsResponseSchema)
          .mine,
      ).toEqual([]);
    });

    it("never appears in a response body, nor does the client's address", async () => {
      const alex = t.visitor();
      const postId = freshItem("science");
      const bodies = [
        (await alex.react("science", postId, "idea")).body,
        (await alex.comment(postId, "hello")).body,
        (await alex.get(`/api/items/science/${postId}/comments`)).body,
        (await alex.get(`/api/items/science/${postId}/reactions`)).body,
      ];
      const visitorId = (alex.cookie ?? "").split("=")[1]!.split(".")[0]!;
      for (const body of bodies) {
        expect(body).not.toContain(visitorId);
        expect(body).not.toContain("127.0.0.1");
        expect(body).not.toMatch(/visitor/i);
      }
    });

    // Once, on SQLite: the cookie's secret is a file in DATA_DIR, not a row.
    if (backend === "sqlite") {
      describe("whatever the database", () => {
        it("is signed with a generated secret kept in DATA_DIR with mode 0600", () => {
          const mode = statSync(path.join(t.dataDir, "cookie-secret")).mode & 0o777;
          expect(mode).toBe(0o600);
        });
      });
    }
  });

  // Once, on SQLite: an unknown path is answered before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("answers JSON 404 for an unknown API path", async () => {
        const response = await t.visitor().get("/api/nothing-here");
        expect(response.statusCode).toBe(404);
        expect(json(response, errorResponseSchema).error.code).toBe("not_found");
      });
    });
  }
});

// Once, on SQLite: the cookie's name is read before any statement, and what it
// owns is read as the tests above read it on both databases.
describe("the visitor cookie over https", () => {
  let t: TestApp;
  let now = new Date();
  beforeAll(async () => {
    t = await startTestApp("sqlite", { env: { SITE_URL: "https://ewe.test" }, clock: () => now });
  });
  afterAll(() => t?.close());
  const mine = async (cookie: string, id: string) => {
    const reader = t.visitor();
    reader.cookie = cookie;
    const response = await reader.get(`/api/items/science/${id}/reactions`);
    return {
      mine: json(response, reactionsResponseSchema).mine,
      setCookies: ([] as string[]).concat(response.headers["set-cookie"] ?? []),
      reader,
    };
  };

  it("is bound to the site (__Host-): Secure, site-wide, no Domain", async () => {
    const response = await t.visitor().react("science", freshItem("science"), "like");
    expect(response.cookies.map((cookie) => cookie.name)).toEqual(["__Host-ewe_visitor"]);
    const [cookie] = response.cookies;
    expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: "Lax", path: "/" });
    expect(cookie?.domain).toBeUndefined();
  });

  it("moves a reader's cookie from its old name, and keeps what is theirs", async () => {
    now = new Date();
    const id = freshItem("science");
    const alex = t.visitor();
    await alex.react("science", id, "love");
    const signed = (alex.cookie ?? "").split("=")[1] as string;
    // The same signed identity as a browser set before the name changed.
    const before = await mine(`ewe_visitor=${signed}`, id);
    expect(before.mine).toEqual(["love"]);
    expect(before.setCookies.find((c) => c.startsWith("__Host-ewe_visitor="))).toMatch(
      new RegExp(`^__Host-ewe_visitor=${signed.replace(/[.+/]/g, "\\$&")}; .*Secure`),
    );
    expect(before.setCookies.find((c) => c.startsWith("ewe_visitor="))).toMatch(
      /^ewe_visitor=; .*(Max-Age=0|Expires=Thu, 01 Jan 1970)/,
    );
    // Moved: the new name alone owns it.
    expect((await before.reader.delete(`/api/items/science/${id}/reactions/love`)).statusCode).toBe(
      200,
    );
  });

  it("prefers the site's own cookie to one planted under the old name", async () => {
    now = new Date();
    const id = freshItem("science");
    const reader = t.visitor();
    await reader.react("science", id, "like");
    const planter = t.visitor();
    await planter.react("science", freshItem("science"), "like");
    const planted = (planter.cookie ?? "").split("=")[1] as string;
    const both = await mine(`ewe_visitor=${planted}; ${reader.cookie}`, id);
    expect(both.mine).toEqual(["like"]);
    expect(both.setCookies).toEqual([]);
  });

  it("no longer reads the old name after its date", async () => {
    const id = freshItem("science");
    const alex = t.visitor();
    now = new Date();
    await alex.react("science", id, "idea");
    const signed = (alex.cookie ?? "").split("=")[1] as string;
    now = new Date(legacyVisitorCookie.until);
    const after = await mine(`ewe_visitor=${signed}`, id);
    expect(after.mine).toEqual([]);
    expect(after.setCookies).toEqual([]);
  });
});

describe.each(backends)("rate limits on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: { RATE_LIMIT_WRITES_PER_VISITOR: "3", RATE_LIMIT_WRITES_PER_IP: "6" },
    });
  });
  afterAll(() => t?.close());

  it("limits writes per visitor, then per IP address, with 429 and Retry-After", async () => {
    const alex = t.visitor();
    const postId = freshItem("science");
    // Alex's first write has no identity yet, so only the IP counts it.
    for (let i = 0; i < 4; i += 1)
      expect((await alex.comment(postId, `c${i}`)).statusCode).toBe(201);
    const limited = await alex.comment(postId, "one too many");
    expect(limited.statusCode).toBe(429);
    expect(json(limited, errorResponseSchema).error.code).toBe("rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(60);

    // Others from the same address still have what is left of its allowance.
    expect((await t.visitor().comment(postId, "sam")).statusCode).toBe(201);
    const ipLimited = await t.visitor().comment(postId, "kim");
    expect(ipLimited.statusCode).toBe(429);

    // Reads are not limited, and nothing refused was stored.
    const list = await t.visitor().get(`/api/items/science/${postId}/comments`);
    expect(list.statusCode).toBe(200);
    expect(json(list, commentsResponseSchema).comments.map((c) => c.content)).toEqual([
      "c0",
      "c1",
      "c2",
      "c3",
      "sam",
    ]);
  });

  it("counts an IPv6 address by its /64, which one home or phone is given whole", async () => {
    const postId = freshItem("science");
    const from = (ip: string) =>
      t.app.inject({
        method: "POST",
        url: `/api/items/science/${postId}/reactions`,
        remoteAddress: ip,
        headers: { origin: siteUrl },
        payload: { type: "like", userName: "Kim" },
      });
    // A new address of the same /64 for each write, as its owner may pick at will.
    const statuses: number[] = [];
    for (let n = 1; n <= 7; n += 1) statuses.push((await from(`2001:db8:7:7::${n}`)).statusCode);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 429]);
    // Another home's /64 has its own allowance.
    expect((await from("2001:db8:7:8::1")).statusCode).toBe(201);
  });
});

describe.each(backends)("writes sent at once on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { env: { RATE_LIMIT_WRITES_PER_IP: "600" } });
  });
  afterAll(() => t?.close());

  it("takes a second's share of an address's allowance at once, not all of it", async () => {
    const postId = freshItem("science");
    const react = (ip: string) =>
      t.visitor({ ip }).post(`/api/items/science/${postId}/reactions`, {
        type: "like",
        userName: "Kim",
      });
    // 600 a minute is 10 a second: of 50 sent at once, 10 are taken (20 should a second end
    // among them); the rest are refused before they reach the database.
    const answers = await Promise.all(Array.from({ length: 50 }, () => react("10.72.0.1")));
    const taken = answers.filter((answer) => answer.statusCode === 201);
    const refused = answers.filter((answer) => answer.statusCode === 429);
    expect(taken.length + refused.length).toBe(50);
    expect(taken.length).toBeGreaterThanOrEqual(10);
    expect(taken.length).toBeLessThanOrEqual(20);
    expect(json(refused[0] ?? { body: "" }, errorResponseSchema).error).toMatchObject({
      code: "rate_limited",
      message: "Too many changes at once; try again in a moment.",
    });
    expect(refused[0]?.headers["retry-after"]).toBe("1");
    const counts = await t.visitor().get(`/api/items/science/${postId}/reactions`);
    expect(json(counts, reactionsResponseSchema).counts.like).toBe(taken.length);
    // Another address is not held back by it.
    expect((await react("10.72.0.2")).statusCode).toBe(201);
    // The next second the address writes again.
    await waitFor(async () => (await react("10.72.0.1")).statusCode === 201, {
      what: "a write from the address taken again",
    });
  });

  it("takes every one-click unsubscribe a mail provider posts at once from its one address", async () => {
    // The provider posts for each of its readers who pressed Unsubscribe, all from one address:
    // each POST carries its own token, and one refused is a reader still mailed after leaving.
    const readers = Array.from({ length: 40 }, (_, i) => `leaving-${i}-${backend}@example.com`);
    await seedConfirmed(t, readers);
    const tokens = (
      await runSql(t, "select email, unsubscribe_token from subscribers where email like ?", [
        `leaving-%-${backend}@example.com`,
      ])
    ).map((row) => t.links.tokenOf(String(row.unsubscribe_token)));
    expect(tokens).toHaveLength(readers.length);
    const answers = await Promise.all(
      tokens.map((token) =>
        t.app.inject({
          method: "POST",
          url: `/api/newsletter/one-click?token=${token}`,
          remoteAddress: "10.72.0.9",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          payload: "List-Unsubscribe=One-Click",
        }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(readers.map(() => 200));
    const left = await runSql(t, "select email from subscribers where email like ?", [
      `leaving-%-${backend}@example.com`,
    ]);
    expect(left).toEqual([]);
  });
});

describe("the client address behind a proxy", () => {
  const proxy = "127.0.0.1";
  const react = (t: TestApp, from: string, forwardedFor: string) =>
    t.app.inject({
      method: "POST",
      url: `/api/items/mythology/${freshItem("mythology")}/reactions`,
      remoteAddress: from,
      headers: { origin: siteUrl, "x-forwarded-for": forwardedFor },
      payload: { type: "like", userName: "Alex" },
    });

  it.each([
    ["a hop count", "1"],
    ["the proxy's address", proxy],
  ])(
    "with TRUST_PROXY as %s, a forged X-Forwarded-For cannot change the address the write limit counts",
    async (_case, trust) => {
      const t = await startTestApp("sqlite", {
        env: { TRUST_PROXY: trust, RATE_LIMIT_WRITES_PER_IP: "2" },
      });
      try {
        // The client sends made-up hops; the proxy appends the address it sees
        // (nginx's $proxy_add_x_forwarded_for), which alone must count.
        const statuses = [];
        for (let i = 1; i <= 3; i += 1) {
          statuses.push(
            (await react(t, proxy, `203.0.113.${i}, ${proxy}, 198.51.100.7`)).statusCode,
          );
        }
        expect(statuses).toEqual([201, 201, 429]);
        // Another client behind the same proxy has its own allowance.
        expect((await react(t, proxy, "198.51.100.8")).statusCode).toBe(201);
      } finally {
        await t.close();
      }
    },
  );

  it("ignores X-Forwarded-For from a client that is not a listed proxy", async () => {
    const t = await startTestApp("sqlite", {
      env: { TRUST_PROXY: proxy, RATE_LIMIT_WRITES_PER_IP: "2" },
    });
    try {
      const statuses = [];
      for (let i = 1; i <= 3; i += 1) {
        statuses.push((await react(t, "198.51.100.9", `203.0.113.${i}`)).statusCode);
      }
      expect(statuses).toEqual([201, 201, 429]);
    } finally {
      await t.close();
    }
  });
});

describe("same origin in development", () => {
  it("compares with the SITE_URL that defaults from PORT, not with the Host", async () => {
    const t = await startTestApp("sqlite", { env: { SITE_URL: "", PORT: "4321" } });
    try {
      const write = (headers: Record<string, string>) =>
        t.app.inject({
          method: "POST",
          url: "/api/items/mythology/garuda/reactions",
          headers,
          payload: { type: "like", userName: "Alex" },
        });
      expect((await write({ origin: "http://localhost:4321" })).statusCode).toBe(201);
      const rebound = await write({
        origin: "http://evil.example:4321",
        host: "evil.example:4321",
      });
      expect(rebound.statusCode).toBe(403);
      expect(json(rebound, errorResponseSchema).error.code).toBe("cross_origin");
    } finally {
      await t.close();
    }
  });
});
