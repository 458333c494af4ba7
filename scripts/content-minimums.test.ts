import { rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadContent } from "../content/load.ts";
import { contentCopy } from "../tests/support/content-copy.ts";
import { collectionShortfalls, pieceShortfalls, wordRows } from "./content-minimums.ts";

const copy = contentCopy();

describe("the content's minimums", () => {
  it("are met by the site's content", () => {
    const content = loadContent(copy.root);
    expect(collectionShortfalls(content)).toEqual([]);
    expect(wordRows(content).filter((row) => row.words < row.minimum)).toEqual([]);
    expect(pieceShortfalls(content)).toEqual([]);
  });

  it("name a piece below its minimum of words, by its file, for content:check", () => {
    copy.edit("science/soap.md", (source) =>
      source.replace(/\n---\n[\s\S]*$/, "\n---\n\nSoap cleans.\n"),
    );
    expect(pieceShortfalls(loadContent(copy.root))).toEqual([
      "science/soap.md: 2 words, and pieces here need at least 150; write more (npm run content:stats counts every piece)",
    ]);
  });

  it("name a collection that falls below its minimum", () => {
    rmSync(path.join(copy.root, "science/soap.md"));
    expect(collectionShortfalls(loadContent(copy.root))).toEqual([
      "science/: at least 9 files are needed, found 8",
    ]);
  });
});
