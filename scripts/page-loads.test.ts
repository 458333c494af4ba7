import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadFaults } from "./page-loads.ts";

/*
 * What a page would make the browser's console report, found without a
 * browser (docs/decisions/068-what-a-page-loads-checked-without-a-browser.md):
 * each fault planted in a page shaped as a built science post's, beside the
 * files it loads, and what the check says of it.
 */

const island = (component: string, props: string) =>
  `<astro-island uid="1" component-url="/assets/${component}.js" component-export="ItemDiscussion" renderer-url="/assets/client.js" props="${props}" ssr client="deferred"></astro-island>`;
const discussion = island(
  "item-discussion",
  "{&quot;kind&quot;:[0,&quot;science&quot;],&quot;itemId&quot;:[0,&quot;soap&quot;]}",
);
const themeScript = "<script>document.documentElement.classList.add('js')</script>";
const itemPage = (article: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Soap</title><link rel="icon" href="/favicon.svg"><link rel="canonical" href="https://engineer.example/science/soap"><link rel="stylesheet" href="/assets/app.css">${themeScript}</head><body><header><a href="/">Engage with Engineer</a><svg><use href="/assets/sprite.svg#zap"></use></svg></header><main><h1>Why soap cleans</h1><article>${article}</article>${discussion}</main><script type="application/ld+json">{"@type":"Article"}</script></body></html>`;
const written = itemPage(
  '<p><img src="/images/soap.webp" srcset="/images/soap.webp 1x, /images/soap@2x.webp 2x" alt="Soap bubbles"></p><p style="color: teal"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt=""></p><p><a href="https://en.wikipedia.org/wiki/Soap">Soap</a></p>',
);
const files = [
  "favicon.svg",
  "assets/app.css",
  "assets/sprite.svg",
  "assets/item-discussion.js",
  "assets/client.js",
  "images/soap.webp",
  "images/soap@2x.webp",
];

/** A build's client/ folder with the page's files and `page` as /science/soap. */
function clientWith(page: string): string {
  const client = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-loads-")), "client");
  for (const file of [...files, "science/soap/index.html"]) {
    mkdirSync(path.dirname(path.join(client, file)), { recursive: true });
    writeFileSync(path.join(client, file), file.endsWith(".html") ? page : "");
  }
  return client;
}

const faultsOf = (page: string) => loadFaults(clientWith(page), ["science/soap/index.html"]);

/** Each fault, as what it replaces in the page and with what, and what the check says. */
const planted: [fault: string, written: string | RegExp, planted: string, says: RegExp][] = [
  [
    "an image the build does not hold",
    'src="/images/soap.webp"',
    'src="/images/lather.webp"',
    /<img> loads \/images\/lather\.webp, which the build does not hold/,
  ],
  [
    "a larger image of a srcset the build does not hold",
    "soap@2x.webp 2x",
    "soap@3x.webp 3x",
    /<img> loads \/images\/soap@3x\.webp, which the build does not hold/,
  ],
  [
    "an image of another site",
    'src="/images/soap.webp"',
    'src="https://images.example/soap.webp"',
    /<img> loads https:\/\/images\.example\/soap\.webp, which img-src refuses/,
  ],
  [
    "a video framed from another site",
    "<p><a href",
    '<iframe src="https://video.example/embed/soap" title="Soap"></iframe><p><a href',
    /<iframe> loads https:\/\/video\.example\/embed\/soap, which frame-src refuses/,
  ],
  [
    "a script of another site",
    "<p><a href",
    '<script src="https://widgets.example/w.js"></script><p><a href',
    /<script> loads https:\/\/widgets\.example\/w\.js, which script-src-elem refuses/,
  ],
  [
    "a stylesheet the build does not hold",
    "/assets/app.css",
    "/assets/app.old.css",
    /<link> loads \/assets\/app\.old\.css, which the build does not hold/,
  ],
  [
    "a sprite the build does not hold",
    "/assets/sprite.svg#zap",
    "/assets/icons.svg#zap",
    /<use> loads \/assets\/icons\.svg, which the build does not hold/,
  ],
  [
    "an island whose code the build does not hold",
    "/assets/item-discussion.js",
    "/assets/item-discussion.old.js",
    /<astro-island> loads \/assets\/item-discussion\.old\.js, which the build does not hold/,
  ],
  [
    "a background image in a style the build does not hold",
    'style="color: teal"',
    "style=\"background: url('/images/foam.png')\"",
    /<p> loads \/images\/foam\.png, which the build does not hold/,
  ],
  [
    "an event handler in an attribute",
    'alt="Soap bubbles"',
    'alt="Soap bubbles" onerror="this.remove()"',
    /<img onerror>: script-src-attr refuses an event handler/,
  ],
  [
    "a javascript: link",
    'href="https://en.wikipedia.org/wiki/Soap"',
    'href="javascript:alert(1)"',
    /<a href="javascript:…">: script-src refuses it/,
  ],
  [
    // The server hashes the bytes; the browser hashes the script as parsed,
    // with its line ends made \n: a script written with \r\n is refused.
    "an inline script the browser reads otherwise than the server hashes it",
    "<p><a href",
    "<script>\r\nwindow.soap = 1;\r\n</script><p><a href",
    /an inline <script> whose hash script-src does not list: \nwindow\.soap/,
  ],
  [
    "an item the server does not keep",
    "&quot;soap&quot;",
    "&quot;lather&quot;",
    /the island ItemDiscussion reads science "lather", which the server does not keep/,
  ],
  [
    "an island's props that are not JSON",
    "{&quot;kind&quot;",
    "{kind",
    /the island ItemDiscussion's props are not JSON/,
  ],
];

describe("what a page would make the browser report, without a browser", () => {
  it("finds nothing on the page as written (its data: image and style allowed)", () => {
    expect(faultsOf(written)).toEqual([]);
  });

  it.each(planted)("names %s", (_fault, from, to, says) => {
    const page = written.replace(from, to);
    expect(page).not.toBe(written);
    const faults = faultsOf(page);
    expect(faults).toHaveLength(1);
    expect(faults[0]).toMatch(/^science\/soap\/index\.html: /);
    expect(faults[0]).toMatch(says);
  });

  it("reads the console's pages, which have a policy of their own, in Chromium instead", () => {
    const client = clientWith(written);
    mkdirSync(path.join(client, "admin"), { recursive: true });
    writeFileSync(
      path.join(client, "admin", "index.html"),
      written.replace("/images/soap.webp", "/images/gone.webp"),
    );
    expect(loadFaults(client, ["admin/index.html", "science/soap/index.html"])).toEqual([]);
  });
});
