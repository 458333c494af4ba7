import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { listedPaths } from "../app/navigation.ts";
import { servicePath, siteItems } from "../content/items.ts";
import { countWords, loadContent } from "../content/load.ts";
import { readEdition } from "../server/newsletter/editions.ts";
import { projectRoot } from "./build-inputs.ts";

/*
 * What readers get to read: the content, the newsletter's editions, the page
 * templates, the pages and mails the server writes, and the files served as
 * they are (public/). Documentation and code comments may use example hosts;
 * nothing a reader sees may.
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

/** A server module without its comments: what it can write into a page or a mail. */
function withoutComments(file: string): string {
  const source = readFileSync(file, "utf8");
  if (!file.endsWith(".ts")) return source.replace(/<!--[\s\S]*?-->/g, "");
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.ESNext);
  return ts.createPrinter({ removeComments: true }).printFile(parsed);
}

const exampleHostsIn = (files: string[], read: (file: string) => string) =>
  files.flatMap((file) =>
    [...read(file).matchAll(exampleHost)].map(
      (match) => `${path.relative(projectRoot, file)}: ${match[0]}`,
    ),
  );

const body = (file: string) => readFileSync(file, "utf8").replace(/^---\n[\s\S]*?\n---\n/, "");

describe("reader-facing text", () => {
  it("names no .example host in the content, the editions or the page templates", () => {
    const files = [
      ...filesUnder("content", /\.(md|svg)$/),
      ...editions,
      ...filesUnder("app", /\.(astro|tsx|ts)$/),
    ];
    expect(files.length).toBeGreaterThan(100);
    expect(exampleHostsIn(files, (file) => readFileSync(file, "utf8"))).toEqual([]);
  });

  it("names no .example host in what the server writes (pages and mails) or in public/, comments aside", () => {
    const files = [
      ...filesUnder("server", /\.ts$/),
      ...filesUnder("public", /\.(svg|html|txt|xml|json|webmanifest|css|js)$/),
    ];
    expect(files.length).toBeGreaterThan(100);
    expect(exampleHostsIn(files, withoutComments)).toEqual([]);
  });

  it("reads past comments but not past strings", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-reader-text-"));
    const module = path.join(dir, "mail.ts");
    writeFileSync(
      module,
      [
        "/** Like `smtp://mail.example.com`, a comment. */",
        "// evil.example in a line comment",
        "export const footer = `Read more at https://engage-with-engineer.example/about`; // and here",
        'export const origin = "https://site.example"; /* gone.example */',
      ].join("\n"),
    );
    const svg = path.join(dir, "icon.svg");
    writeFileSync(svg, "<svg><!-- drawn for icons.example --><text>x.example</text></svg>");
    expect(
      exampleHostsIn([module, svg], withoutComments).map((found) => found.split(": ")[1]),
    ).toEqual(["engage-with-engineer.example", "site.example", "x.example"]);
    rmSync(dir, { recursive: true, force: true });
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
  const pages = new Set([
    ...listedPaths,
    ...siteItems(content).map((item) => item.path),
    ...content.services.map((service) => servicePath(service.id)),
  ]);

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
