import { rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The built site is served from memory (server/web/site-files.ts): these
 * check what a browser and a cache in between see, over a real socket.
 */

const aboutHtml = `<!doctype html><html><head><title>About</title></head><body><main><h1>About the engineer</h1>${"<p>Gears, fuel cells and the physics of everyday things, explained plainly.</p>".repeat(40)}</main></body></html>`;
const styleSheet = `body{font-family:system-ui}${".card{margin:1rem;padding:1rem;border:1px solid #ccc}".repeat(40)}`;
// A PDF only needs to be bytes here: its viewer asks for parts of it.
const brochure = Buffer.from(Array.from({ length: 4000 }, (_, i) => i % 251));

// Bytes enough to stand for a picture: a PNG's signature and some data.
const picture = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256)),
]);

describe("the built site, served from memory", () => {
  let t: TestApp;
  let origin = "";
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      clientFiles: {
        "about/index.html": aboutHtml,
        // The build's own compressed copies, which are sent as they are.
        "about/index.html.br": brotliCompressSync(aboutHtml),
        "about/index.html.gz": gzipSync(aboutHtml),
        // An asset with no compressed copies: the server makes them once.
        "assets/app.Ab12Cd34.css": styleSheet,
        "brochure.pdf": brochure,
        // A page of the owner's console: the same table serves it, behind the owner's session.
        "admin/index.html": "<!doctype html><title>Console</title><h1>Console</h1>",
        // A page a mail's link opens with its token (the unsubscribe link).
        "unsubscribe/index.html": "<!doctype html><title>Unsubscribe</title><h1>Unsubscribe</h1>",
        // Pictures, read on their first request: one asked for, one taken away before that.
        "images/gears.png": picture,
        "images/retired.png": picture,
        // The share cards and the site's icons, which other sites and mail programs show.
        "og-image.png": picture,
        "og/science/pressure-cooker.png": picture,
        "assets/photo.Ef56Gh78.webp": picture,
        "favicon.svg": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"></svg>',
        "favicon.ico": picture,
        ".env": "SECRET=do-not-serve",
        "images/.hidden.png": "not for readers",
      },
    });
    origin = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(() => t?.close());

  /** A raw request: the body as it travelled, not decoded. */
  const get = (
    path: string,
    headers: Record<string, string> = {},
    method = "GET",
  ): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const request = httpRequest(`${origin}${path}`, { method, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
      });
      request.on("error", reject).end();
    });

  it("answers a page at its address, with and without the slash, revalidated on every visit", async () => {
    for (const path of ["/about", "/about/", "/about/index.html"]) {
      const page = await get(path);
      expect(page.status, path).toBe(200);
      expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(page.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
      expect(page.headers.etag).toMatch(/^"[\w-]+"$/);
      expect(page.body.toString()).toBe(aboutHtml);
      expect(page.headers["content-length"]).toBe(String(Buffer.byteLength(aboutHtml)));
    }
    const home = await get("/?utm_source=newsletter");
    expect(home.status).toBe(200);
    expect(home.body.toString()).toContain("<title>home</title>");
  });

  it("sends the build's brotli or gzip copy to a browser that accepts it", async () => {
    const br = await get("/about", { "accept-encoding": "gzip, deflate, br, zstd" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("accept-encoding");
    expect(br.body.equals(brotliCompressSync(aboutHtml))).toBe(true);
    const gzip = await get("/about", { "accept-encoding": "gzip" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gzip.body.equals(gzipSync(aboutHtml))).toBe(true);
    const refused = await get("/about", { "accept-encoding": "br;q=0, gzip;q=0" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(refused.body.toString()).toBe(aboutHtml);
    // Each coding is its own representation, with its own validator.
    expect(new Set([br.headers.etag, gzip.headers.etag, refused.headers.etag]).size).toBe(3);
  });

  it("answers 304 to a reader who holds the current copy, and the page to one who does not", async () => {
    const first = await get("/about", { "accept-encoding": "br" });
    const again = await get("/about", {
      "accept-encoding": "br",
      "if-none-match": String(first.headers.etag),
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    const stale = await get("/about", { "accept-encoding": "br", "if-none-match": '"old"' });
    expect(stale.status).toBe(200);
  });

  it("lets browsers keep hashed assets for good, compressed once by the server when the build did not", async () => {
    const plain = await get("/assets/app.Ab12Cd34.css");
    expect(plain.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const br = await get("/assets/app.Ab12Cd34.css", { "accept-encoding": "br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.body.length).toBeLessThan(styleSheet.length);
    const held = await get("/assets/app.Ab12Cd34.css", {
      "accept-encoding": "br",
      "if-none-match": String(br.headers.etag),
    });
    expect(held.status).toBe(304);
  });

  it("reads a picture on its first request and keeps it; one the build took away before any request is not found", async () => {
    const first = await get("/images/gears.png");
    expect(first.status).toBe(200);
    expect(first.headers["content-type"]).toBe("image/png");
    expect(first.body.equals(picture)).toBe(true);
    // A redeploy under a running server: the server answers from what it holds until restarted.
    rmSync(path.join(t.clientRoot, "images/gears.png"));
    rmSync(path.join(t.clientRoot, "images/retired.png"));
    const again = await get("/images/gears.png");
    expect(again.status).toBe(200);
    expect(again.body.equals(picture)).toBe(true);
    expect(again.headers.etag).toBe(first.headers.etag);
    const retired = await get("/images/retired.png");
    expect(retired.status).toBe(404);
    expect(retired.headers["content-type"]).toBe("text/html; charset=utf-8");
  });

  it("answers a page read again as it did the first time (the fast path in front of Fastify)", async () => {
    const comparable = (headers: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(headers).filter(([name]) => !["date", "x-request-id"].includes(name)),
      );
    for (const coding of ["br", "gzip", "identity"]) {
      const reads = [];
      for (let i = 0; i < 3; i += 1)
        reads.push(await get("/about/", { "accept-encoding": coding }));
      const [first, ...later] = reads;
      for (const read of later) {
        expect(read.status).toBe(200);
        expect(comparable(read.headers)).toEqual(comparable(first?.headers ?? {}));
        expect(read.body.equals(first?.body ?? Buffer.alloc(0))).toBe(true);
        expect(read.headers["x-request-id"]).not.toBe(first?.headers["x-request-id"]);
      }
    }
    // Still a 304 for the reader who holds it, and the console still behind its session.
    const held = await get("/about/", { "accept-encoding": "br" });
    const revalidated = await get("/about/", {
      "accept-encoding": "br",
      "if-none-match": String(held.headers.etag),
    });
    expect(revalidated.status).toBe(304);
    for (let i = 0; i < 3; i += 1) expect((await get("/admin")).status).toBe(303);
  });

  it("answers HEAD with the headers and no body", async () => {
    const head = await get("/about", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(head.headers.etag).toMatch(/^"/);
    expect(head.body.length).toBe(0);
  });

  it("gives a PDF viewer the part of the file it asks for", async () => {
    const part = await get("/brochure.pdf", { range: "bytes=100-199" });
    expect(part.status).toBe(206);
    expect(part.headers["content-range"]).toBe(`bytes 100-199/${brochure.length}`);
    expect(part.body.equals(brochure.subarray(100, 200))).toBe(true);
    const tail = await get("/brochure.pdf", { range: "bytes=-10" });
    expect(tail.body.equals(brochure.subarray(-10))).toBe(true);
    const beyond = await get("/brochure.pdf", { range: "bytes=5000-" });
    expect(beyond.status).toBe(416);
    expect(beyond.headers["content-range"]).toBe(`bytes */${brochure.length}`);
    const whole = await get("/brochure.pdf");
    expect(whole.status).toBe(200);
    expect(whole.headers["content-type"]).toBe("application/pdf");
    expect(whole.body.equals(brochure)).toBe(true);
  });

  it("shows no hidden file, no folder listing and nothing outside the site: the 404 page instead", async () => {
    for (const path of [
      "/.env",
      "/images/.hidden.png",
      "/images/",
      "/assets/",
      "/../package.json",
      "/%2e%2e/%2e%2e/etc/passwd",
      "/about/index.html.br",
      "/no-such-page",
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.toString(), path).toContain("<title>not found</title>");
      expect(answer.headers["cache-control"], path).toBe("no-cache");
      expect(answer.headers["content-security-policy"], path).toContain("frame-ancestors 'none'");
    }
    const api = await get("/api/no-such-thing");
    expect(api.status).toBe(404);
    expect(JSON.parse(api.body.toString())).toEqual({
      error: { code: "not_found", message: "No such endpoint." },
    });
  });

  it("lets other sites show its pictures and share cards, and nothing else", async () => {
    const pictures = [
      "/og-image.png",
      "/og/science/pressure-cooker.png",
      "/assets/photo.Ef56Gh78.webp",
      "/images/gears.png",
      "/favicon.svg",
      "/favicon.ico",
    ];
    for (const path of pictures) {
      // The first read goes through Fastify, the later ones the fast path in front of it.
      for (let read = 0; read < 3; read += 1) {
        const answer = await get(path, { "accept-encoding": "br, gzip" });
        expect(answer.status, path).toBe(200);
        expect(answer.headers["content-type"], path).toMatch(/^image\//);
        expect(answer.headers["cross-origin-resource-policy"], path).toBe("cross-origin");
        // The rest of the page headers stay: nothing else about the answer changes.
        expect(answer.headers["x-content-type-options"], path).toBe("nosniff");
      }
      const held = await get(path);
      const revalidated = await get(path, { "if-none-match": String(held.headers.etag) });
      expect(revalidated.status, path).toBe(304);
      expect(revalidated.headers["cross-origin-resource-policy"], path).toBe("cross-origin");
      const head = await get(path, {}, "HEAD");
      expect(head.headers["cross-origin-resource-policy"], path).toBe("cross-origin");
    }
    // Pages, scripts and styles, other files, the 404 page and the API stay this site's own.
    for (const path of [
      "/about",
      "/assets/app.Ab12Cd34.css",
      "/brochure.pdf",
      "/no-such-picture.png",
      "/api/items/science/wifi/reactions",
    ]) {
      for (let read = 0; read < 2; read += 1) {
        const answer = await get(path);
        expect(answer.headers["cross-origin-resource-policy"], path).toBe("same-origin");
      }
    }
  });

  it("keeps a mail link's token out of Referer on the page it opens, read again and again", async () => {
    for (let i = 0; i < 3; i += 1) {
      const plain = await get("/unsubscribe/");
      expect(plain.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
      const opened = await get(
        `/unsubscribe/?token=q3Vn1zYh0pXc6o2m8b5KwTnRrLdAeGfHiJkS4uE7t9${i}`,
      );
      expect(opened.status).toBe(200);
      expect(opened.body.toString()).toContain("<h1>Unsubscribe</h1>");
      expect(opened.headers["referrer-policy"]).toBe("strict-origin");
    }
  });

  it("keeps the pages' security headers", async () => {
    const page = await get("/about");
    expect(page.headers["content-security-policy"]).toContain("object-src 'none'");
    expect(page.headers["x-frame-options"]).toBe("DENY");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["x-request-id"]).toBeTruthy();
  });
});
