import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultContentRoot, loadContent } from "../content/load.ts";
import { collectionMinimums, collectionShortfalls, wordRows } from "./content-minimums.ts";

let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "content-"));
  cpSync(defaultContentRoot, root, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the content's minimums", () => {
  it("are met by the site's content", () => {
    const content = loadContent(root);
    expect(collectionShortfalls(content)).toEqual([]);
    expect(wordRows(content).filter((row) => row.words < row.minimum)).toEqual([]);
  });

  it("name a collection that falls below its minimum", () => {
    rmSync(path.join(root, "science/soap.md"));
    expect(collectionShortfalls(loadContent(root))).toEqual([
      `science/: at least ${collectionMinimums.science} files are needed, found ${collectionMinimums.science - 1}`,
    ]);
  });
});
