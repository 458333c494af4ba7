import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fragment, fakeSciencePage as sciencePage } from "../support/built-site.ts";
import { EventStream } from "../support/event-stream.ts";
import { waitFor } from "../support/wait-for.ts";
import { confirmedSubscriber } from "./support/newsletter.ts";
import { backends, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * /science and /mythology are served with each card's engagement in the HTML
 * (docs/architecture.md, "Pages"), filled in from the read cache where the
 * build left placeholders (tests/support/built-site.ts).
 */

/** An item's own page: its JSON-LD, written by the build, that the server completes. */
const soapBase = {
  "@context": "https://schema.org",
  "@graph": [
    { "@type": "BlogPosting", "@id": `${siteUrl}/science/soap#article`, headline: "How & why" },
    { "@type": "BreadcrumbList", itemListElement: [] },
  ],
};
const attribute = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
const soapItemPage = `<!doctype html><html><head><ewe-fragment slot="head" data-for="science:soap" data-part="jsonld" data-base="${attribute(JSON.stringify(soapBase))}"></ewe-fragment></head><body>
<h1>How does soap clean?</h1><p>${fragment("science:soap", "summary", "How does soap clean?")}</p>
<section>${fragment("science:soap", "comments")}</section></body></html>`;

const mythologyPage = `<!doctype html><html><head></head><body>
<details><summary>Garuda ${fragment("mythology:garuda", "summary", "Garuda")}</summary></details></body></html>`;

/** An app serving the three pages above. */
const startPagesApp = (backend: (typeof backends)[number]) =>
  startTestApp(backend, {
    clientFiles: {
      "science/index.html": sciencePage,
      "science/soap/index.html": soapItemPage,
      "mythology/index.html": mythologyPage,
    },
  });

describe.each(backends)("pages with their engagement on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startPagesApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });

  const page = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: "GET", url, headers });

  it("carries each card's counts and a comment posted a moment earlier, as text", async () => {
    const before = await page("/science");
    expect(before.statusCode).toBe(200);
    expect(before.headers["content-type"]).toMatch(/^text\/html/);
    expect(before.body).not.toContain("<ewe-fragment");
    expect(before.body).toContain("0 comments · 0 reactions");

    const writer = t.visitor();
    // Enough ordinary words that the spam filter publishes it: markup alone reads as junk.
    await writer.comment(
      "soap",
      "Micelles trap the grease, then water rinses it away <script>alert(1)</script> & friends",
      "Asha",
    );
    await writer.react("science", "soap", "love");
    await t.visitor().react("science", "soap", "idea");

    const after = await page("/science");
    expect(after.body).toContain("1 comment · 2 reactions");
    expect(after.body).toContain(
      "rinses it away &lt;script&gt;alert(1)&lt;/script&gt; &amp; friends",
    );
    expect(after.body).not.toContain("<script>alert(1)");
    expect(after.body).toContain(">Asha<");
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it("fills a page at its built file's own address too, never sending it empty", async () => {
    for (const url of ["/science", "/science/soap"]) {
      const filled = await page(`${url}/index.html`);
      expect(filled.statusCode, url).toBe(200);
      expect(filled.body, url).not.toContain("<ewe-fragment");
      expect(filled.body, url).toBe((await page(url)).body);
    }
  });

  it("describes each item and its comments in schema.org JSON-LD that cannot break out", async () => {
    const html = (await page("/science")).body;
    const scripts = [...html.matchAll(/<script type="application\/ld\+json">(.*?)<\/script>/gs)];
    expect(scripts).toHaveLength(1);
    const data = JSON.parse(scripts[0]?.[1] ?? "");
    const soap = data["@graph"].find((item: { "@id": string }) => item["@id"].endsWith("#soap"));
    expect(soap).toMatchObject({
      "@type": "Article",
      headline: "How does soap clean?",
      url: `${siteUrl}/science/soap`,
      commentCount: 1,
      interactionStatistic: { userInteractionCount: 2 },
    });
    expect(soap.comment[0]).toMatchObject({
      "@type": "Comment",
      text: "Micelles trap the grease, then water rinses it away <script>alert(1)</script> & friends",
      author: { "@type": "Person", name: "Asha" },
    });
    const wifi = data["@graph"].find((item: { "@id": string }) => item["@id"].endsWith("#wifi"));
    expect(wifi.headline).toBe('Wi-Fi & "you"');
  });

  it("fills an item's own page with the same engagement as its card, and refreshes both", async () => {
    const writer = t.visitor();
    await writer.comment("soap", "Seen on the item's own page", "Meera");
    await writer.comment("soap", "</script><script>alert(1)</script>", "Meera");
    const card = (await page("/science")).body;
    const item = await page("/science/soap");
    expect(item.statusCode).toBe(200);
    expect(item.body).not.toContain("<ewe-fragment");
    const summaryOf = (html: string) =>
      /<span class="engagement-summary">([^<]*)<\/span>/.exec(
        html.slice(html.indexOf("How does soap clean?")),
      )?.[1];
    expect(summaryOf(item.body)).toBe(summaryOf(card));
    expect(item.body).toContain("Seen on the item's own page");
    expect(item.body).not.toContain("<script>alert(1)");
    // Under the page's h2, the comments' heading is an h3 (an h4 in a card).
    expect(item.body).toMatch(/<h3[^>]*>Comments <span/);
    expect(card).toMatch(/<h4[^>]*>Comments <span/);
    expect((await page("/science/soap/")).statusCode).toBe(200);

    const scripts = [
      ...item.body.matchAll(/<script type="application\/ld\+json">(.*?)<\/script>/gs),
    ];
    expect(scripts).toHaveLength(1);
    const data = JSON.parse(scripts[0]?.[1] ?? "");
    expect(data["@graph"]).toHaveLength(2);
    expect(data["@graph"][0]).toMatchObject({
      "@type": "BlogPosting",
      headline: "How & why",
      commentCount: JSON.parse((await t.visitor().get("/api/items/science/soap/comments")).body)
        .comments.length,
    });
    expect(data["@graph"][1]["@type"]).toBe("BreadcrumbList");

    const before = item.headers.etag;
    await t.visitor().react("science", "soap", "like");
    const after = await page("/science/soap");
    expect(after.headers.etag).not.toBe(before);
    expect(summaryOf(after.body)).toBe(summaryOf((await page("/science")).body));
  });

  it("answers 304 to its ETag, compresses, and a story page has counts but no comments", async () => {
    const first = await page("/science", { "accept-encoding": "br, gzip" });
    expect(first.headers["content-encoding"]).toBe("br");
    expect(
      (await page("/science", { "if-none-match": first.headers.etag as string })).statusCode,
    ).toBe(304);
    expect(
      (await page("/science", { "accept-encoding": "gzip" })).headers["content-encoding"],
    ).toBe("gzip");
    await t.visitor().react("mythology", "garuda", "like");
    const story = await page("/mythology");
    expect(story.body).toContain("1 reaction<");
    expect(story.body).not.toContain("comment");
  });

  it("never shows a visitor id, an address or an email, in pages or events", async () => {
    const url = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const stream = new EventStream(url, "science:wifi");
    try {
      await stream.ready();
      const writer = t.visitor();
      await writer.comment("wifi", "Private by design", "Ravi");
      const visitorId = decodeURIComponent(writer.cookie?.split("=")[1] ?? "").split(".")[0] ?? "";
      expect(visitorId.length).toBeGreaterThan(10);
      const email = "ravi.private@example.com";
      await confirmedSubscriber(t, email);
      const event = await stream.next("comment");
      const html = (await page("/science")).body;
      for (const secret of [visitorId, email, "127.0.0.1"]) {
        expect(event.data).not.toContain(secret);
        expect(html).not.toContain(secret);
      }
    } finally {
      stream.close();
    }
  });
});

describe("the page on a second instance", () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp("postgres", { clientFiles: { "science/index.html": sciencePage } });
    b = await startTestApp("postgres", {
      databaseUrl: a.databaseUrl,
      clientFiles: { "science/index.html": sciencePage },
    });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("shows a comment written on the first one as soon as it hears of it", async () => {
    const read = async () => (await b.app.inject({ method: "GET", url: "/science" })).body;
    expect(await read()).toContain("0 comments");
    await a.visitor().comment("soap", "Crossed over");
    await waitFor(async () => (await read()).includes("Crossed over"), {
      timeoutMs: 5_000,
      what: "the page on B shows A's comment",
    });
  });

  it("has a comment deleted on the first gone from its page and its read, fast path too, once its stream says so", async () => {
    const origin = await b.app.listen({ host: "127.0.0.1", port: 0 });
    // Over a socket: a page or read served twice unchanged is answered by the fast path.
    const read = async (path: string) => (await fetch(`${origin}${path}`)).text();
    const both = async () => [
      await read("/science"),
      await read("/api/items/science/soap/comments"),
    ];
    const stream = new EventStream(origin, "science:soap");
    try {
      await stream.ready();
      const alex = a.visitor();
      const { comment } = JSON.parse((await alex.comment("soap", "Deleted on A soon")).body);
      await stream.find("comment", (event) => event.commentId === comment.id);
      for (let i = 0; i < 3; i += 1) {
        for (const text of await both()) expect(text).toContain("Deleted on A soon");
      }
      expect((await alex.delete(`/api/comments/${comment.id}`)).statusCode).toBe(204);
      await stream.find(
        "comment",
        (event) => event.commentId === comment.id && event.action === "deleted",
      );
      // The caches of B heard of it before its streams did.
      for (const text of await both()) expect(text).not.toContain("Deleted on A soon");
    } finally {
      stream.close();
    }
  });
});

/*
 * Over a socket, a filled-in page read again is answered by the fast path in
 * front of Fastify (server/web/fast-pages.ts) for as long as the page cache
 * still holds that version; `inject` never reaches that path.
 */
describe.each(backends)("pages with their engagement over a socket on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startPagesApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("over a socket, sends a page read again as before, and never once a write has changed it", async () => {
    const origin = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const read = async (path: string, encoding = "gzip, deflate, br") => {
      const response = await fetch(`${origin}${path}`, {
        headers: { "accept-encoding": encoding },
      });
      return { headers: Object.fromEntries(response.headers), text: await response.text() };
    };
    const comparable = ({ headers }: { headers: Record<string, string> }) => {
      const { date: _date, "x-request-id": _id, ...rest } = headers;
      return rest;
    };
    for (const path of ["/science", "/science/soap", "/mythology/"]) {
      const [first, second, third] = [await read(path), await read(path), await read(path)];
      expect(comparable(second)).toEqual(comparable(first));
      expect(comparable(third)).toEqual(comparable(first));
      expect([second.text, third.text]).toEqual([first.text, first.text]);
    }
    const before = await read("/science/soap");
    await t.visitor().comment("soap", "Over a socket: soap molecules have a head that loves water");
    // The write's event reaches the page cache through the bus: wait for the page to change.
    await waitFor(async () => (await read("/science/soap")).text.includes("head that loves water"));
    const after = await read("/science/soap");
    expect(after.text).toContain("head that loves water");
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(comparable(await read("/science/soap"))).toEqual(comparable(after));
  });
});
