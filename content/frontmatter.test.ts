import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadItemIndex, loadServiceTitles } from "./catalog.ts";
import {
  ContentError,
  defaultContentRoot,
  markdownFiles,
  readFrontmatter,
  readFrontmatterFields,
} from "./frontmatter.ts";

let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "content-fields-"));
  mkdirSync(path.join(root, "science"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string) {
  writeFileSync(path.join(root, file), text);
}

describe("the fields the server reads from a frontmatter", () => {
  it("are what the whole frontmatter says, however they are written", () => {
    write(
      "science/tricky.md",
      [
        "---",
        "# A comment before the fields",
        "sources:",
        "  - title: not this title",
        "    url: https://example.com",
        "title: >-",
        "  Why does ice float:",
        "  a question of bonds",
        "id: 'ice'   # quoted, with a comment",
        "tabs:",
        "  id: nested-not-this",
        "---",
        "Body text",
      ].join("\n"),
    );
    expect(readFrontmatterFields(root, "science/tricky.md", ["id", "title"])).toEqual({
      id: "ice",
      title: "Why does ice float: a question of bonds",
    });
  });

  it("match the whole parse for every item and service of the site's content", () => {
    for (const folder of ["mythology", "science", "services"]) {
      for (const file of markdownFiles(defaultContentRoot, folder)) {
        const whole = readFrontmatter(defaultContentRoot, file).data as Record<string, unknown>;
        expect(
          readFrontmatterFields(defaultContentRoot, file, ["id", "title", "order"]),
          file,
        ).toEqual({
          id: whole.id,
          title: whole.title,
          ...("order" in whole ? { order: whole.order } : {}),
        });
      }
    }
    expect(loadItemIndex().science.size).toBeGreaterThan(0);
    expect(loadServiceTitles().length).toBeGreaterThan(0);
  });

  it("name the file when one of them is not valid YAML", () => {
    write("science/broken.md", "---\nid: broken\ntitle: [unclosed\n---\n");
    expect(() => readFrontmatterFields(root, "science/broken.md", ["id", "title"])).toThrow(
      ContentError,
    );
    expect(() => readFrontmatterFields(root, "science/broken.md", ["id", "title"])).toThrow(
      /science\/broken\.md: frontmatter is not valid YAML/,
    );
  });
});
