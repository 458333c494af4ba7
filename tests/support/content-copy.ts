import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";
import { defaultContentRoot } from "../../content/frontmatter.ts";

/**
 * A copy of content/ for each test of the suite that calls this, in a
 * temporary folder removed after the test: `root` is the folder, and `edit`
 * changes one of its files.
 */
export function contentCopy() {
  const copy = {
    root: "",
    edit(file: string, change: (source: string) => string) {
      const full = path.join(copy.root, file);
      writeFileSync(full, change(readFileSync(full, "utf8")));
    },
  };
  beforeEach(() => {
    copy.root = mkdtempSync(path.join(tmpdir(), "content-"));
    cpSync(defaultContentRoot, copy.root, { recursive: true });
  });
  afterEach(() => rmSync(copy.root, { recursive: true, force: true }));
  return copy;
}
