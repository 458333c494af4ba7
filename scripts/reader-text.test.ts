import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listedPaths } from "../app/navigation.ts";
import { siteItems } from "../content/items.ts";
import { countWords, loadContent } from "../content/load.ts";
import { readEdition } from "../server/newsletter/editions.ts";
import { projectRoot } from "./build-inputs.ts";

/*
 * What readers get to read: the content, the newsletter's editions and the
 * page templates. Documentation may use example hosts; nothing a reader sees may.
 */

const editionsDir = path.join(projectRoot, "newsletter");
const editions = readdirSync(editionsDir)
  .filter((name) => name.endsWith(".md"))
  .map((name) => path.join(editionsDir, name));

function filesUnder(folder: string, pattern: RegExp): string[] {
  return readdirSync(path.join(projectRoot, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => pattern.test(file) && !/\.test\.tsx?$/.test(file))
    .map((file) => path.join(projectRoot, folder, file));
}

/** Hosts under the reserved `.example` top-level domain (RFC 2606): they never resolve. */
const exampleHost = /\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.example\b(?![.-][a-z])/gi;

/** The Markdown links of an edition: `[text](target)`. */
const links = (markdown: string) =>
  [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "");

const body = (file: string) => readFileSync(file, "utf8").replace(/^---\n[\s\S]*?\n---\n/, "");

describe("reader-facing text", () => {
  it("names no .example host in the content, the editions or the page templates", () => {
    const files = [
      ...filesUnder("content", /\.(md|svg)$/),
      ...editions,
      ...filesUnder("app", /\.(astro|tsx|ts)$/),
    ];
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(exampleHost)].map(
        (match) => `${path.relative(projectRoot, file)}: ${match[0]}`,
      ),
    );
    expect(found).toEqual([]);
  });

  it("the pattern catches an example host in a link", () => {
    expect("see https://engage-with-engineer.example/technical".match(exampleHost)).toEqual([
      "engage-with-engineer.example",
    ]);
    expect("write to contact@example.com".match(exampleHost)).toBeNull();
  });
});

describe("the newsletter's editions", () => {
  const content = loadContent();
  const pages = new Set([...listedPaths, ...siteItems(content).map((item) => item.path)]);

  it("are at least three, and none is a stub", () => {
    expect(editions.length).toBeGreaterThanOrEqual(3);
    for (const file of editions) {
      const words = countWords(body(file));
      expect(words, path.basename(file)).toBeGreaterThanOrEqual(400);
      expect(words, path.basename(file)).toBeLessThanOrEqual(700);
      expect(readEdition(file, "https://engage.example").subject.length).toBeGreaterThan(0);
    }
  });

  it("link only to pages of this site, written site-relative, that exist", () => {
    for (const file of editions) {
      const targets = links(body(file));
      expect(targets.length, path.basename(file)).toBeGreaterThanOrEqual(2);
      for (const target of targets) {
        expect(target, path.basename(file)).toMatch(/^\/[a-z0-9/-]*(#[a-z0-9-]+)?$/);
        expect(pages.has(target.replace(/#.*$/, "")), `${path.basename(file)}: ${target}`).toBe(
          true,
        );
      }
    }
  });
});
