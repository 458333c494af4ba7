import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limits } from "../../contract/limits.ts";
import { writeSearchIndex } from "../../scripts/search-index.ts";
import { searchesPerMinute, searchesPerMinutePerNetwork } from "../../server/web/search-page.ts";
import { fakeBuiltSite } from "../support/built-site.ts";
import { startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * /search, the search page that works without JavaScript (docs/product.md,
 * "Search"): the server answers a search with the built page, the words back
 * in its field and the results in its placeholder, read from the index the
 * build writes for the dialog. The index here is a real one, written by
 * Pagefind (scripts/search-index.ts) from a few small pages.
 */

const page = (section: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>x</title></head><body><header>Engage with Engineer</header><main data-pagefind-body data-pagefind-meta="section:${section}">${body}</main><footer>Footer text</footer></body></html>`;

/** The site's pages as the build writes them, cut down to what the search reads. */
const pages = {
  "science/index.html": page(
    "Science in Everyday",
    `<h1>Science in Everyday</h1><p>Wi-Fi, ironing, pressure cookers and soap.</p>
<details data-card="pressure-cooker" class="card"><summary><h3>Why does a pressure cooker cook faster?</h3></summary><p>Sealing the steam raises the pressure.</p></details>`,
  ),
  "science/pressure-cooker/index.html": page(
    "Science in Everyday",
    `<h1>Why does a pressure cooker cook faster?</h1><p>Sealing the steam in raises the pressure by about one bar, which lifts the boiling point of water. Never force the lid &lt;b&gt; open.</p>`,
  ),
  "services/index.html": page(
    "Services",
    `<h1>Services</h1><p>Design, engines and training.</p>
<h2 id="dfmea-title">DFMEA</h2><p>Design failure mode and effects analysis: a DFMEA that changes the design, each DFMEA reviewed.</p>
<h2 id="training-title">Training</h2><p>Courses for teams.</p>`,
  ),
  "about/index.html": page(
    "About Me",
    "<h1>About Me</h1><p>Engines, tolerance stack-ups and DFMEA for twenty years.</p>",
  ),
};

/** The built search page (app/pages/search.astro), cut down: the field and the placeholder. */
const searchTemplate = `<!doctype html><html lang="en"><head><title>Search | Engage with Engineer</title><meta name="robots" content="noindex"><script>document.documentElement.classList.add("js")</script></head><body>
<header><a href="/search" aria-label="Search">S</a></header><main><h1>Search the site</h1>
<form action="/search" method="get" role="search"><label for="search-terms">Search the site</label><input id="search-terms" type="search" name="q" maxlength="200" data-search-terms><button type="submit">Search</button></form>
<ewe-fragment data-part="search-results"></ewe-fragment></main></body></html>`;

/** Every file under `root`, by its path there. */
function filesUnder(root: string, folder: string): Record<string, Buffer> {
  return Object.fromEntries(
    readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const full = path.join(entry.parentPath, entry.name);
        return [path.relative(root, full).split(path.sep).join("/"), readFileSync(full)];
      }),
  );
}

/** The text of the page's answer: its message and its results, without the template. */
const resultsOf = (body: string) => body.slice(body.indexOf("</form>"), body.indexOf("</main>"));
const titleOf = (body: string) => /<title>([^<]*)<\/title>/.exec(body)?.[1];
const fieldOf = (body: string) => /<input id="search-terms"[^>]*>/.exec(body)?.[0] ?? "";
const hrefsOf = (body: string) =>
  [...resultsOf(body).matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]);

describe("the search page", () => {
  let t: TestApp;
  beforeAll(async () => {
    const built = fakeBuiltSite(pages, mkdtempSync(path.join(os.tmpdir(), "ewe-search-")));
    try {
      expect(await writeSearchIndex(built, ["/science/pressure-cooker"])).toBe(4);
      t = await startTestApp("sqlite", {
        clientFiles: {
          ...pages,
          ...filesUnder(built, "pagefind"),
          "search/index.html": searchTemplate,
        },
      });
    } finally {
      rmSync(built, { recursive: true, force: true });
    }
    // Pagefind indexes in a process of its own, which on a loaded two-core
    // machine (the browser tests run beside these) took longer than the
    // default minute once.
  }, 180_000);
  afterAll(() => t?.close());

  const search = (query: string, remoteAddress = "127.0.0.1") =>
    t.app.inject({ method: "GET", url: `/search${query}`, remoteAddress });

  it("answers the bare page with its form and a prompt, revalidated like any page and kept out of search engines", async () => {
    // The built file's own address is the page too, never its empty template.
    for (const url of ["", "/", "/index.html"]) {
      const response = await search(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(response.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
      expect(response.headers["x-robots-tag"]).toBe("noindex");
      expect(response.body).toContain('<form action="/search" method="get" role="search">');
      expect(response.body).not.toContain("<ewe-fragment");
      expect(fieldOf(response.body)).toContain('value=""');
      expect(resultsOf(response.body)).toContain("Type a word or two, then press Search.");
    }
    const first = await search("");
    const again = await t.app.inject({
      method: "GET",
      url: "/search",
      headers: { "if-none-match": String(first.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it("lists each piece of writing once, on its own page, with its section and an excerpt", async () => {
    const response = await search("?q=pressure+cooker");
    expect(response.statusCode).toBe(200);
    const results = resultsOf(response.body);
    expect(results).toContain("2 pages found for “pressure cooker”.");
    expect(hrefsOf(response.body)).toEqual(["/science/pressure-cooker", "/science"]);
    expect(results).toContain(
      '<h2 class="search-result-title"><a href="/science/pressure-cooker">Why does a pressure cooker cook faster?</a></h2>',
    );
    expect(results).toContain('<p class="search-result-section">Science in Everyday</p>');
    expect(results).toMatch(/<mark>pressure<\/mark> <mark>cooker<\/mark> cook faster\?/);
    // The words are given back in the field, to change and search again.
    expect(fieldOf(response.body)).toContain('value="pressure cooker"');
    // And they lead the title, which a tab, the history and a screen reader say.
    expect(titleOf(response.body)).toBe("“pressure cooker”: Search | Engage with Engineer");
    expect(titleOf((await search("")).body)).toBe("Search | Engage with Engineer");
  });

  it("leads to the part of a page under a heading when most of the matches sit there", async () => {
    const response = await search("?q=dfmea");
    expect(hrefsOf(response.body)).toEqual(["/services#dfmea-title", "/about"]);
    expect(resultsOf(response.body)).toContain(">Services › DFMEA</a>");
  });

  it("finds words by their start, in either number, across case and accents, and needs every word", async () => {
    expect(hrefsOf((await search("?q=COOKERS")).body)).toEqual([
      "/science/pressure-cooker",
      "/science",
    ]);
    expect(hrefsOf((await search("?q=points")).body)).toEqual(["/science/pressure-cooker"]);
    expect(hrefsOf((await search("?q=soaps")).body)).toEqual(["/science"]);
    expect(hrefsOf((await search("?q=Bo%C3%AEling")).body)).toEqual(["/science/pressure-cooker"]);
    expect(hrefsOf((await search("?q=pressure+dfmea")).body)).toEqual([]);
  });

  it("says when nothing matches", async () => {
    const response = await search("?q=qqqqqq");
    expect(response.statusCode).toBe(200);
    expect(resultsOf(response.body)).toContain("Nothing found for “qqqqqq”.");
    expect(resultsOf(response.body)).not.toContain("<ol");
  });

  it("offers the words with a slip of one letter put right when nothing matches", async () => {
    // A letter dropped, one added, one changed, two swapped; the words kept in order.
    for (const [typed, meant] of [
      ["presure+cooker", "pressure cooker"],
      ["pressure+cookker", "pressure cooker"],
      ["Boiling+piont", "boiling point"],
      ["stem+bioling", "steam boiling"],
      ["pressure+cocker", "pressure cooker"],
    ] as const) {
      const results = resultsOf((await search(`?q=${typed}`)).body);
      expect(results, typed).toContain(
        `Nothing found for “${typed.replace("+", " ")}”. Try other words, or fewer. Did you mean <a href="/search?q=${encodeURIComponent(meant)}">“${meant}”</a>?`,
      );
      const href = /Did you mean <a href="([^"]*)"/.exec(results)?.[1] ?? "";
      expect(hrefsOf((await search(href.slice("/search".length))).body).length).toBeGreaterThan(0);
    }
    // None where no slip explains it, nor where the words put right still find nothing.
    for (const typed of ["qqqqqq", "pressure+dfmea", "presure+dfmea", "stm"]) {
      expect(resultsOf((await search(`?q=${typed}`)).body), typed).not.toContain("Did you mean");
    }
  });

  it("escapes what the reader typed and what the pages hold, wherever it is shown", async () => {
    const attack = `"><script>alert(1)</script><img src=x onerror=alert(2)>'`;
    const response = await search(`?q=${encodeURIComponent(attack)}`);
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain("<script>alert(1)");
    expect(response.body).not.toContain("<img src=x");
    expect(fieldOf(response.body)).toContain(
      'value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#39;"',
    );
    expect(resultsOf(response.body)).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(titleOf(response.body)).toBe(
      "“&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&#39;”: Search | Engage with Engineer",
    );
    // A page's own text that looks like markup is shown as text.
    const lid = await search("?q=lid");
    expect(resultsOf(lid.body)).toContain("&lt;b&gt;");
    expect(resultsOf(lid.body)).not.toContain("<b>");
    // Control characters and line breaks do not reach the page.
    const controls = await search("?q=soap%00%0D%0Aset-cookie:x%1B");
    expect(controls.statusCode).toBe(200);
    expect(controls.headers["set-cookie"]).toBeUndefined();
    expect(fieldOf(controls.body)).toContain('value="soap set-cookie:x"');
    // Nor bidi overrides and isolates, which would turn the page's text around them.
    const bidi = await search("?q=soap%E2%80%AEx%E2%81%A6y%E2%80%8F");
    expect(bidi.statusCode).toBe(200);
    expect(fieldOf(bidi.body)).toContain('value="soap x y"');
    expect(resultsOf(bidi.body)).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f]/);
    // An escape that is not UTF-8 is kept as the text it is, never a 500.
    const broken = await search("?q=%FF%FE%ED%A0%80");
    expect(broken.statusCode).toBe(200);
    expect(fieldOf(broken.body)).toContain('value="%FF%FE%ED%A0%80"');
  });

  it("gives back a search with a dollar sign as typed, in the field and the title", async () => {
    // "$`", "$'", "$&" and "$$" say "the page before", "after", "the match" and "$" to a
    // string's replace: the page's own markup would land in the field's value.
    const words = "soap $` $' $& $$";
    const response = await search(`?q=${encodeURIComponent(words)}`);
    expect(response.statusCode).toBe(200);
    expect(fieldOf(response.body)).toContain(
      `value="soap $\` $&#39; $&amp; $$" data-search-terms>`,
    );
    expect(titleOf(response.body)).toBe(
      "“soap $` $&#39; $&amp; $$”: Search | Engage with Engineer",
    );
    expect(response.body.match(/<title>/g)).toHaveLength(1);
    expect(response.body.match(/<input /g)).toHaveLength(1);
  });

  it("keeps every answer to a search out of caches and search engines", async () => {
    for (const query of ["?q=soap", "?q=", `?q=${"x".repeat(300)}`, "?q=a&q=b"]) {
      const response = await search(query);
      expect(response.headers["cache-control"], query).toBe("no-store");
      expect(response.headers["x-robots-tag"], query).toBe("noindex");
      expect(response.headers["set-cookie"], query).toBeUndefined();
      // The page's policy: its own inline script by its hash, no other inline script.
      const scriptSrc = String(response.headers["content-security-policy"])
        .split(";")
        .find((part) => part.trim().startsWith("script-src"));
      expect(scriptSrc).toMatch(/'sha256-/);
      expect(scriptSrc).not.toContain("'unsafe-inline'");
    }
  });

  it("sends a search's answer compressed to a client that accepts it, the same page", async () => {
    const plain = await search("?q=pressure");
    for (const [coding, decode] of [
      ["br", brotliDecompressSync],
      ["gzip", gunzipSync],
    ] as const) {
      const response = await t.app.inject({
        method: "GET",
        url: "/search?q=pressure",
        headers: { "accept-encoding": coding },
      });
      expect(response.headers["content-encoding"]).toBe(coding);
      expect(decode(response.rawPayload).toString()).toBe(plain.body);
    }
  });

  it("asks for words when there are none", async () => {
    for (const query of ["?q=", "?q=+++", "?q=%20%09"]) {
      const response = await search(query);
      expect(response.statusCode, query).toBe(200);
      expect(resultsOf(response.body)).toContain("Type a word or two, then press Search.");
    }
    const punctuation = await search("?q=%21%3F%21");
    expect(resultsOf(punctuation.body)).toContain("“!?!” has no words to look for.");
  });

  it("answers a search too long for the field 400, with the field holding what fits", async () => {
    const fits = "soap ".repeat(limits.searchTermsMax / 5).trim();
    expect((await search(`?q=${encodeURIComponent(fits)}`)).statusCode).toBe(200);
    for (const length of [limits.searchTermsMax + 1, 5000]) {
      const response = await search(`?q=${"w".repeat(length)}`);
      expect(response.statusCode, String(length)).toBe(400);
      expect(resultsOf(response.body)).toContain(
        `A search can be at most ${limits.searchTermsMax} characters long, and this one has ${length}.`,
      );
      expect(fieldOf(response.body)).toContain(`value="${"w".repeat(limits.searchTermsMax)}"`);
    }
    // Cut where an emoji's two halves fall either side of the limit, the field keeps the
    // characters whole: no "�" where the emoji was.
    const emoji = `w${"😀".repeat(limits.searchTermsMax / 2)}`;
    const cut = await search(`?q=${encodeURIComponent(emoji)}`);
    expect(cut.statusCode).toBe(400);
    expect(fieldOf(cut.body)).toContain(`value="w${"😀".repeat(limits.searchTermsMax / 2 - 1)}"`);
    expect(cut.body).not.toContain("\ufffd");
  });

  it("answers several searches in one address 400", async () => {
    const response = await search("?q=soap&q=tea");
    expect(response.statusCode).toBe(400);
    expect(resultsOf(response.body)).toContain("several searches at once");
  });

  it(`lets one address search ${searchesPerMinute} times a minute, then asks it to wait`, async () => {
    const flooder = "203.0.113.9";
    for (let i = 0; i < searchesPerMinute; i += 1) {
      expect((await search(`?q=soap${i}`, flooder)).statusCode).toBe(200);
    }
    const refused = await search(`?q=${encodeURIComponent("<b>soap</b>")}`, flooder);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused.headers["cache-control"]).toBe("no-store");
    expect(resultsOf(refused.body)).toContain(
      `more than ${searchesPerMinute} searches in a minute`,
    );
    expect(fieldOf(refused.body)).toContain('value="&lt;b&gt;soap&lt;/b&gt;"');
    // The page itself, and other addresses, are not held up.
    expect((await search("", flooder)).statusCode).toBe(200);
    expect((await search("?q=soap", "203.0.113.10")).statusCode).toBe(200);
  });

  it(`lets one IPv6 network search ${searchesPerMinutePerNetwork} times a minute from all its addresses, then asks it to wait`, async () => {
    // Each /64 is one address with its own allowance; a /48 holds 65,536 of them.
    const inNetwork = (n: number) => `2001:db8:7:${n.toString(16)}::1`;
    const perAddress = searchesPerMinute / 2;
    for (let i = 0; i < searchesPerMinutePerNetwork; i += 1) {
      const response = await search(`?q=soap${i}`, inNetwork(Math.floor(i / perAddress)));
      expect(response.statusCode).toBe(200);
    }
    const refused = await search("?q=soap", inNetwork(0xfff));
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(resultsOf(refused.body)).toContain(
      `more than ${searchesPerMinutePerNetwork} searches in a minute from your network`,
    );
    // Another network is not held up.
    expect((await search("?q=soap", "2001:db8:8::1")).statusCode).toBe(200);
  });
});
