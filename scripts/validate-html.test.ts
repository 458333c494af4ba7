import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { renderActionPage } from "../server/lib/action-page.ts";
import { islandStyleInHead } from "./island-styles.ts";
import { htmlMistakes, validatePages } from "./validate-html.ts";

/*
 * `npm run lint:html` on pages small enough to read: one as the build writes
 * them, one with the two mistakes the built pages once had (a <style> in the
 * body, a <figcaption> that is not the figure's own child).
 */

const islandStyle = "<style>astro-island,astro-slot,astro-static-slot{display:contents}</style>";
const pageWith = (body: string, head = "") =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A page</title>${head}</head><body>${body}</body></html>`;
const quote =
  "<figure><blockquote><p>Measure twice.</p></blockquote><figcaption>A carpenter</figcaption></figure>";
const good = pageWith(
  `<header><p>Engage with Engineer</p><astro-island>${quote}</astro-island></header><main><h1>Quotes</h1></main>`,
  islandStyle,
);
const bad = pageWith(
  `<header>${islandStyle}<p>Engage with Engineer</p></header><main><h1>Quotes</h1><figure><div><blockquote><p>Measure twice.</p></blockquote><figcaption>A carpenter</figcaption></div></figure></main>`,
);

/** A build folder holding `pages` under client/, by path. */
function buildWith(pages: Record<string, string>): string {
  const buildDir = mkdtempSync(path.join(os.tmpdir(), "ewe-html-"));
  for (const [page, html] of Object.entries(pages)) {
    const file = path.join(buildDir, "client", page);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, html);
  }
  return buildDir;
}

const script = path.join(import.meta.dirname, "validate-html.ts");
async function lintHtml(buildDir: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, ...args], {
      env: { ...process.env, BUILD_DIR: buildDir },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("the built pages' HTML check", () => {
  it("passes a page the server writes, which starts as the built ones do", async () => {
    const page = renderActionPage({ title: "Nothing to delete", body: "<p>It is gone.</p>" });
    expect(page.startsWith("<!DOCTYPE html>\n")).toBe(true);
    expect(await htmlMistakes(page)).toEqual([]);
  });

  it("passes a valid page and names each mistake of an invalid one, by page and rule", async () => {
    const buildDir = buildWith({ "index.html": good, "quotes/index.html": bad });
    const { pages, report } = await validatePages(path.join(buildDir, "client"));
    expect(pages).toEqual(["index.html", path.join("quotes", "index.html")]);
    const found = report.results.flatMap((result) =>
      result.messages.map((message) => ({
        page: path.relative(path.join(buildDir, "client"), result.filePath),
        rule: message.ruleId,
        message: message.message,
      })),
    );
    expect(found).toEqual([
      {
        page: path.join("quotes", "index.html"),
        rule: "element-permitted-content",
        message: "<style> element is not permitted as content under <header>",
      },
      {
        page: path.join("quotes", "index.html"),
        rule: "element-permitted-content",
        message: "<figcaption> element is not permitted as content under <div>",
      },
    ]);
  });

  it("fails the command with the mistakes listed, and passes once they are fixed", async () => {
    const broken = await lintHtml(buildWith({ "index.html": good, "quotes/index.html": bad }));
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("quotes/index.html:1:");
    expect(broken.stderr).toContain("[element-permitted-content]");
    expect(broken.stderr).toContain("2 HTML errors in the pages of");

    const fixed = await lintHtml(buildWith({ "index.html": good }));
    expect(fixed).toMatchObject({ code: 0, stderr: "" });
    expect(fixed.stdout).toMatch(/^HTML OK: 1 pages in /);
  });

  it("skips a checkout with no build only when asked to", async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), "ewe-html-"));
    expect(await lintHtml(empty, "--if-built")).toMatchObject({ code: 0, stderr: "" });
    const asked = await lintHtml(empty);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain("No built pages in");
  });
});

/*
 * What the owner's writing can break on a page, which axe no longer reads on
 * every built page but this check does (docs/decisions/067-axe-per-layout-and-tests-on-the-bundle.md):
 * each fault planted in a page shaped as an item's, and the rule that names it.
 */
const itemPage = (article: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Soap</title></head><body><header><a href="/">Engage with Engineer</a><nav aria-label="Main"><a href="/science" aria-current="page">Science in Everyday</a></nav></header><main><h1>Why soap cleans</h1><article id="item" class="prose-content">${article}</article><button type="button">Like</button></main><footer><p>Contact</p></footer></body></html>`;
const written = itemPage(
  '<h2 id="why">Why</h2><p><img src="/images/soap.webp" alt="Soap bubbles" width="10" height="10"></p><h3>Micelles</h3><p lang="sa">Shanti</p><table><thead><tr><th>Water</th><th>Lather</th></tr></thead><tbody><tr><td>Soft</td><td>Much</td></tr></tbody></table><p><a href="/science/soap#why">Read why</a></p><p>Water, <strong>soft</strong> or hard (<a href="/science">more</a>): <em>H<sub>2</sub>O</em>.</p><ul><li>Fat</li><li><code>NaOH</code></li></ul>',
);
/** Each fault, as what it replaces in the page and with what, and the rule that names it. */
const planted: [fault: string, written: string | RegExp, planted: string, rule: string][] = [
  ["an image without alt", ' alt="Soap bubbles"', "", "wcag/h37"],
  ["a heading that skips a level", "<h3>Micelles</h3>", "<h4>Micelles</h4>", "heading-level"],
  ["a second h1", '<h2 id="why">Why</h2>', '<h1 id="why">Why</h1>', "heading-level"],
  ["no h1", "<h1>Why soap cleans</h1>", "", "ewe/one-h1"],
  ["an empty heading", "<h3>Micelles</h3>", "<h3></h3>", "empty-heading"],
  ["a link with no text", ">Read why</a>", "></a>", "wcag/h30"],
  ["a link with an unnamed icon alone", ">Read why</a>", "><svg></svg></a>", "wcag/h30"],
  ["a button with no text", ">Like</button>", "></button>", "text-content"],
  ["a repeated id", "<h3>", '<h3 id="why">', "no-dup-id"],
  ["a page without a language", '<html lang="en">', "<html>", "element-required-attributes"],
  ["a lang that is no language tag", 'lang="sa"', 'lang="Sanskrit text"', "ewe/page-language"],
  ["an empty lang", 'lang="sa"', 'lang=""', "ewe/page-language"],
  ["a table header cell with no text", "<th>Water</th>", "<th></th>", "ewe/table-headers"],
  ["a table with no header cell", /<thead>.*<\/thead>/, "", "ewe/table-headers"],
  ["words run into a link", "<p><a href", "<p>Soap explained, read<a href", "ewe/words-apart"],
  [
    "a word run onto emphasis",
    "<strong>soft</strong> or",
    "<strong>soft</strong>or",
    "ewe/words-apart",
  ],
  [
    "words run into code in a link",
    '(<a href="/science">more</a>)',
    'see<a href="/science"><code>more</code></a>',
    "ewe/words-apart",
  ],
];

describe("what the writing can break on a page", () => {
  it("passes the page as written", async () => {
    expect(await htmlMistakes(written)).toEqual([]);
  });

  it.each(planted)("names %s", async (_fault, from, to, rule) => {
    const page = written.replace(from, to);
    expect(page).not.toBe(written);
    const found = await htmlMistakes(page);
    expect(found.map((mistake) => mistake.split(":")[0])).toContain(rule);
  });
});

describe("the islands' style rule", () => {
  it("moves from the body to the end of the head, once, and the page then validates", async () => {
    const twice = pageWith(
      `<header>${islandStyle}<p>Engage with Engineer</p></header><main><h1>Quotes</h1>${islandStyle}</main>`,
    );
    const moved = islandStyleInHead(twice);
    expect(moved).toBe(
      pageWith(
        "<header><p>Engage with Engineer</p></header><main><h1>Quotes</h1></main>",
        islandStyle,
      ),
    );
    expect(islandStyleInHead(moved)).toBe(moved);
    const noIslands = pageWith("<main><h1>Quotes</h1></main>");
    expect(islandStyleInHead(noIslands)).toBe(noIslands);
    const { report } = await validatePages(path.join(buildWith({ "index.html": moved }), "client"));
    expect(report.results.flatMap((result) => result.messages)).toEqual([]);
  });
});
