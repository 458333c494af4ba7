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
