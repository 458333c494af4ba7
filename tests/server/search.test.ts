import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/test-app.ts";

/** The site's search runs Pagefind in the browser (docs/decisions/014-search-and-your-data.md). */
describe("what the search needs from the server", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      clientFiles: {
        "pagefind/pagefind.js": "export async function init() {}",
        "pagefind/pagefind-worker.js": "self.onmessage = () => {};",
        "pagefind/pagefind-entry.json": '{"version":"1.5.2","languages":{}}',
      },
    });
  });
  afterAll(() => t?.close());

  const scriptSources = async (url: string) => {
    const response = await t.app.inject({ method: "GET", url });
    const policy = String(response.headers["content-security-policy"]);
    const directive = policy.split(";").find((part) => part.trim().startsWith("script-src"));
    return directive?.trim().split(/\s+/).slice(1) ?? [];
  };

  it("lets pages compile WebAssembly, and still run no eval() and no inline script but their own", async () => {
    for (const url of ["/", "/pagefind/pagefind-worker.js"]) {
      const sources = await scriptSources(url);
      expect(sources).toContain("'self'");
      expect(sources).toContain("'wasm-unsafe-eval'");
      expect(sources).not.toContain("'unsafe-eval'");
      expect(sources).not.toContain("'unsafe-inline'");
    }
  });

  it("serves the index's script as JavaScript, which a module import requires", async () => {
    const response = await t.app.inject({ method: "GET", url: "/pagefind/pagefind.js" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^(text|application)\/javascript/);
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
  });
});
