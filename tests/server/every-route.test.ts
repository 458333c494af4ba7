import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Owner } from "./support/owner.ts";
import { backends, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * Every route Fastify registered, as an attacker would try it: malformed
 * bodies, broken path parameters and query strings, signed out and signed in
 * as the owner. None may answer 5xx. The routes are read from the app itself,
 * so a route added tomorrow is tried too. On both databases: PostgreSQL
 * refuses some text SQLite stores (a NUL), which a schema must refuse first.
 */

/** Method and path of each route in `printRoutes({ commonPrefix: false })`'s tree. */
function routesOf(tree: string): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  const prefixes: string[] = [];
  for (const line of tree.split("\n")) {
    const match = /^([│ ]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? "").length / 4;
    prefixes.length = depth;
    const path = (prefixes[depth - 1] ?? "") + (match[2] ?? "");
    prefixes[depth] = path;
    for (const method of (match[3] ?? "").split(", ")) {
      if (method && method !== "HEAD") routes.push({ method, path });
    }
  }
  return routes;
}

const json = { "content-type": "application/json" };
const form = { "content-type": "application/x-www-form-urlencoded" };
const broken = "%E0%A4%A";

/** What each route is sent: a URL (its parameters filled in by `fill`), a body and headers. */
const attempts = (fill: (value: string) => string, url: string) => [
  { url: fill(broken) },
  { url: fill("a".repeat(3000)) },
  { url: fill("..%2f%00") },
  { url: fill("99999999999999999999") },
  { url: `${url}?${broken}=1&q=${broken}&token=1&token=2&limit=1e309&id=-1` },
  { url: `${url}?q=%00&token=%ED%A0%80&p=${"x".repeat(5000)}&from=2026-02-30` },
  { url, payload: "{not json", headers: json },
  { url, payload: `${"[".repeat(5000)}${"]".repeat(5000)}`, headers: json },
  { url, payload: '[{"a":1e309}]', headers: json },
  {
    url,
    payload: '{"token":"\\ud800","email":"a\\u0000@b","id":"1","q":[],"content":{}}',
    headers: json,
  },
  { url, payload: `token=${broken}&email=%00&confirm=1&confirm=2`, headers: form },
  { url, payload: "--x\r\nbroken", headers: { "content-type": "multipart/form-data; boundary=x" } },
  { url, payload: '{"a":1}', headers: { "content-type": "text/plain" } },
  {
    url,
    headers: {
      cookie: `ewe_visitor=${broken}; __Host-ewe_owner=a.b`,
      accept: "application/activity+json",
    },
  },
  { url, headers: { signature: `keyId="${broken}",signature="AAAA"`, authorization: "Basic !!" } },
];

describe.each(backends)("every route given malformed input, on %s", (backend) => {
  let t: TestApp;
  let owner: Owner;
  beforeAll(async () => {
    t = await startTestApp(backend);
    owner = new Owner(t);
  });
  afterAll(() => t?.close());

  it.each(["signed out", "signed in as the owner"])("never answers 5xx, %s", async (who) => {
    if (who !== "signed out") expect((await owner.signIn()).statusCode).toBe(200);
    // Signing out and ending sessions last, so the owner stays signed in for the rest.
    const routes = routesOf(t.app.printRoutes({ commonPrefix: false })).sort(
      (a, b) =>
        Number(/sign-out|sessions\//.test(a.path)) - Number(/sign-out|sessions\//.test(b.path)),
    );
    expect(routes.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const { method, path } of routes) {
      const url = path === "*" ? "/admin/x" : path.replace(/:\w+/g, "1");
      const fill = (value: string) => (path === "*" ? `/${value}` : path.replace(/:\w+/g, value));
      for (const attempt of attempts(fill, url)) {
        const sendsBody = method !== "GET" && attempt.payload !== undefined;
        const response = await t.app.inject({
          method: method as "GET",
          url: attempt.url,
          headers: {
            origin: siteUrl,
            ...(who === "signed out" || !owner.cookie ? {} : { cookie: owner.cookie }),
            ...attempt.headers,
          },
          ...(sendsBody ? { payload: attempt.payload } : {}),
        });
        if (response.statusCode >= 500) {
          failures.push(
            `${response.statusCode} ${method} ${attempt.url.slice(0, 80)} ${String(attempt.payload ?? "").slice(0, 60)}`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
