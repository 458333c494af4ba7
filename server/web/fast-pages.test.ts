import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createFastPages, type FastPages } from "./fast-pages.ts";
import type { Variant } from "./site-files.ts";

const pageHeaders = {
  "content-security-policy": "default-src 'self'",
  "x-frame-options": "DENY",
};
const body = Buffer.from("<!doctype html><title>About</title><h1>About the engineer</h1>");
const variant: Variant = {
  body,
  etag: '"about"',
  headers: {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "public, max-age=0, must-revalidate",
    etag: '"about"',
  },
};
/** What the route sent for the page: the page headers, the file's, and this answer's own. */
const sentByRoute = {
  ...pageHeaders,
  ...variant.headers,
  "content-length": String(body.length),
  "x-request-id": "first",
  date: "Fri, 27 Nov 2026 10:00:00 GMT",
};

describe("the fast path for built pages", () => {
  let server: Server | undefined;
  afterEach(
    () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  );

  /** A server that asks `fast` first and counts what it leaves to the route. */
  async function serve(options: { sample?: () => boolean } = {}) {
    const left: string[] = [];
    const logged: unknown[] = [];
    const fast: FastPages = createFastPages({
      pageHeaders,
      apiHeaders: { "content-security-policy": "default-src 'none'" },
      guarded: (path) => path.startsWith("/admin"),
      choose: (path) => (path === "/about" || path === "/admin" ? variant : null),
      codingOf: (request) =>
        request.headers["accept-encoding"]?.includes("br") ? "br" : "identity",
      requestId: (request) => String(request.headers["x-request-id"] ?? "new-id"),
      accessLog: {
        debug: false,
        sample: options.sample ?? (() => false),
        write: (request, answer) => logged.push({ url: request.url, ...answer }),
      },
    });
    server = createServer((request, response) => {
      if (fast.serve(request, response)) return;
      left.push(`${request.method} ${request.url}`);
      response.writeHead(299).end();
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const get = (path: string, init: RequestInit = {}) => fetch(`${origin}${path}`, init);
    return { fast, left, logged, get };
  }

  it("answers a page the route has sent, with the route's headers, its bytes and a request id of its own", async () => {
    const { fast, left, get } = await serve();
    expect((await get("/about")).status).toBe(299);
    fast.record("/about", "/*", variant, sentByRoute);
    const again = await get("/about?from=feed", { headers: { "x-request-id": "proxy-7" } });
    expect(again.status).toBe(200);
    expect(Buffer.from(await again.arrayBuffer()).equals(body)).toBe(true);
    for (const [name, value] of Object.entries({ ...pageHeaders, ...variant.headers })) {
      expect(again.headers.get(name)).toBe(value);
    }
    expect(again.headers.get("content-length")).toBe(String(body.length));
    expect(again.headers.get("x-request-id")).toBe("proxy-7");
    expect(left).toEqual(["GET /about"]);
  });

  it("leaves to the route what it must decide: other methods, conditions, ranges, unknown paths, and all once closing", async () => {
    let logNext = false;
    const { fast, left, logged, get } = await serve({ sample: () => logNext });
    fast.record("/about", "/*", variant, sentByRoute);
    await get("/about", { method: "HEAD" });
    await get("/about", { headers: { "if-none-match": '"about"' } });
    await get("/about", { headers: { range: "bytes=0-9" } });
    await get("/elsewhere");
    // The access log's one read in so many: answered here, and its line written here.
    logNext = true;
    expect((await get("/about", { headers: { "x-request-id": "proxy-8" } })).status).toBe(200);
    logNext = false;
    expect((await get("/about")).status).toBe(200);
    expect(logged).toEqual([
      {
        url: "/about",
        id: "proxy-8",
        route: "/*",
        status: 200,
        bytes: body.length,
        started: expect.any(Number),
      },
    ]);
    fast.stop();
    await get("/about");
    expect(left).toEqual([
      "HEAD /about",
      "GET /about",
      "GET /about",
      "GET /elsewhere",
      "GET /about",
    ]);
  });

  it("answers a filled-in page only while its route still holds it, and only when asked with no query", async () => {
    const { fast, left, get } = await serve();
    let kept = true;
    const science = Buffer.from("<!doctype html><title>Science</title><p>3 comments</p>");
    const own = {
      "cache-control": "public, max-age=0, must-revalidate",
      "content-type": "text/html; charset=utf-8",
      etag: '"science-3"',
      vary: "accept-encoding",
    };
    fast.recordLive(
      "/science",
      { headers: {} } as IncomingMessage,
      {
        route: "/science",
        body: science,
        sent: { ...pageHeaders, ...own, "content-length": String(science.length) },
        own,
      },
      () => kept,
    );
    const again = await get("/science");
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(science.toString());
    expect(again.headers.get("etag")).toBe('"science-3"');
    // Another coding than the one recorded, a query, and then a write that replaced the page.
    await get("/science", { headers: { "accept-encoding": "br" } });
    await get("/science?comments=after-5");
    kept = false;
    await get("/science");
    expect(left).toEqual(["GET /science", "GET /science?comments=after-5", "GET /science"]);
  });

  it("answers an API read everyone gets alike only to a reader who sends no cookie", async () => {
    const { fast, left, get } = await serve();
    const comments = Buffer.from('{"comments":[],"total":0}');
    const own = { "cache-control": "no-cache", etag: '"c0"', vary: "accept-encoding, cookie" };
    const sent = {
      "content-security-policy": "default-src 'none'",
      ...own,
      "content-length": String(comments.length),
    };
    const path = "/api/items/science/soap/comments";
    // Asked with a cookie: a reader's own answer, never recorded for others.
    fast.recordLive(
      path,
      { headers: { cookie: "v=1" } } as IncomingMessage,
      { route: path, body: comments, sent, own, api: true },
      () => true,
    );
    await get(path);
    fast.recordLive(
      path,
      { headers: {} } as IncomingMessage,
      { route: path, body: comments, sent, own, api: true },
      () => true,
    );
    expect(await (await get(path)).text()).toBe(comments.toString());
    await get(path, { headers: { cookie: "v=1" } });
    expect(left).toEqual([`GET ${path}`, `GET ${path}`]);
  });

  it("answers a reader's own API read only to their very Cookie and Accept-Encoding, while it stands", async () => {
    const { fast, left, get } = await serve();
    const own = {
      "cache-control": "private, no-cache",
      etag: '"c0.a"',
      vary: "accept-encoding, cookie",
    };
    const theirs = Buffer.from('{"comments":[],"total":1,"own":{"ids":[7],"held":[]}}');
    const sent = {
      "content-security-policy": "default-src 'none'",
      ...own,
      "content-length": String(theirs.length),
    };
    const path = "/api/items/science/soap/comments";
    const asked = { cookie: "v=reader.sig", "accept-encoding": "gzip, br" };
    let stands = true;
    const record = (headers: Record<string, string>) =>
      fast.recordLive(
        path,
        { headers } as IncomingMessage,
        { route: path, body: theirs, sent, own, api: true, reader: true },
        () => stands,
      );
    // Made for a reader, asked without a cookie or with headers no browser sends: never recorded.
    record({});
    await get(path);
    const padded = { ...asked, "accept-encoding": `gzip,${" ".repeat(300)}br` };
    record(padded);
    await get(path, { headers: padded });
    record(asked);
    const again = await get(path, { headers: asked });
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(theirs.toString());
    expect(again.headers.get("cache-control")).toBe("private, no-cache");
    // Anyone else, the same reader with another cookie beside theirs or another
    // Accept-Encoding, and everyone once it no longer stands: the route's.
    await get(path);
    await get(path, { headers: { ...asked, cookie: "v=other.sig" } });
    await get(path, { headers: { ...asked, cookie: "v=reader.sig; w=1" } });
    await get(path, { headers: { ...asked, "accept-encoding": "br" } });
    await get(`${path}?limit=5`, { headers: asked });
    stands = false;
    await get(path, { headers: asked });
    expect(left).toEqual([
      `GET ${path}`,
      `GET ${path}`,
      `GET ${path}`,
      `GET ${path}`,
      `GET ${path}`,
      `GET ${path}`,
      `GET ${path}?limit=5`,
      `GET ${path}`,
    ]);
  });

  it("never records an answer another hook touched, nor a guarded path", async () => {
    const { fast, left, get } = await serve();
    // The console's hook set its own policy on this answer: not the page's.
    fast.record("/about", "/*", variant, {
      ...sentByRoute,
      "content-security-policy": "default-src 'none'",
    });
    // A header the route does not send.
    fast.record("/about", "/*", variant, { ...sentByRoute, "set-cookie": "session=1" });
    // Bytes other than the file's.
    fast.record("/about", "/*", variant, { ...sentByRoute, "content-length": "3" });
    // The console's pages need the owner's session, checked by a hook, every time.
    fast.record("/admin", "/*", variant, sentByRoute);
    await get("/about");
    await get("/admin");
    expect(left).toEqual(["GET /about", "GET /admin"]);
  });
});
