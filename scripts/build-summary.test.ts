import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { builtPagesLine, projectRoot } from "./build-inputs.ts";

/*
 * Astro prints "N page(s) built": every HTML file it wrote, the console's and
 * the forms' answer pages with the readers'. The build's own last line counts
 * the same files, then says how many of them the sitemap and the search hold.
 */
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it("counts every page Astro wrote, and says which of them the sitemap and the search hold", () => {
  const clientDir = mkdtempSync(path.join(tmpdir(), "client-"));
  made.push(clientDir);
  for (const page of [
    "index.html",
    "404.html",
    "admin/index.html",
    "newsletter/thanks/index.html",
  ]) {
    mkdirSync(path.dirname(path.join(clientDir, page)), { recursive: true });
    writeFileSync(path.join(clientDir, page), "<!doctype html>");
  }
  writeFileSync(path.join(clientDir, "sitemap.xml"), "<urlset/>");
  writeFileSync(path.join(clientDir, "index.html.br"), "");
  expect(builtPagesLine(clientDir, { inSitemap: 1, searchable: 2 })).toBe(
    `Built 4 pages into ${path.relative(projectRoot, clientDir)}/: 1 in the sitemap, 2 in the search index`,
  );
});
