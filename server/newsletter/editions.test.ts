import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readEdition } from "./editions.ts";

/* An edition's frontmatter written wrong says what to write instead. */
const folder = mkdtempSync(path.join(tmpdir(), "editions-"));
const edition = (frontmatter: string) => {
  const file = path.join(folder, "04-kettle-noise.md");
  writeFileSync(file, `---\n${frontmatter}\n---\nHello.\n`);
  return () => readEdition(file, "https://ewe.test");
};

describe("an edition's frontmatter", () => {
  it("without a subject, or with another field, says that it holds the subject alone", () => {
    expect(edition("title: Why a kettle goes quiet")).toThrow(
      "04-kettle-noise.md: subject is required, one line of text; title: an edition's frontmatter holds its subject alone (--- subject: … ---).",
    );
    expect(edition("subject: Why a kettle goes quiet")().subject).toBe("Why a kettle goes quiet");
  });

  it("refuses a subject of more than one line, which a header could not hold", () => {
    for (const subject of [
      '"Engines\\r\\nBcc: all@example.com"',
      '"Engines\\nin June"',
      "|\n  Engines\n  in June",
    ]) {
      expect(edition(`subject: ${subject}`)).toThrow(
        "04-kettle-noise.md: subject must be one line",
      );
    }
  });
});

describe("an edition's links", () => {
  it("are made absolute in double, single or no quotes, and each is listed", () => {
    const file = path.join(folder, "05-links.md");
    writeFileSync(
      file,
      `---\nsubject: Links\n---\n<a href='/science/soap'>soap</a> <a class=x HREF=/about>about</a> <img alt="" src = "/og/x.png">\n`,
    );
    const { html, links } = readEdition(file, "https://ewe.test");
    expect(links.map((link) => link.absolute)).toEqual([
      "https://ewe.test/science/soap",
      "https://ewe.test/about",
      "https://ewe.test/og/x.png",
    ]);
    expect(html).toMatch(/<a [^>]*href="https:\/\/ewe\.test\/science\/soap">soap<\/a>/);
    expect(html).toMatch(/<a [^>]*class=x HREF="https:\/\/ewe\.test\/about">about<\/a>/);
    expect(html).toMatch(/<img [^>]*alt="" src="https:\/\/ewe\.test\/og\/x\.png">/);
  });
});

describe("an edition named by its slug", () => {
  it("is not found, and the file with .md is offered", () => {
    writeFileSync(
      path.join(folder, "05-first-week.md"),
      "---\nsubject: A first week\n---\nHello.\n",
    );
    const slug = path.join(folder, "05-first-week");
    expect(() => readEdition(slug, "https://ewe.test")).toThrow(
      `There is no file ${slug}. Did you mean ${slug}.md?`,
    );
    const none = path.join(folder, "06-none");
    expect(() => readEdition(none, "https://ewe.test")).toThrow(/^There is no file .*06-none\.$/);
  });
});
