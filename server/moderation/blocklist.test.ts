import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createBlocklist } from "./blocklist.ts";

const root = mkdtempSync(path.join(os.tmpdir(), "ewe-blocklist-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the owner's blocklist file", () => {
  it("is created on the first start, with DATA_DIR when the folder does not exist yet", () => {
    // On PostgreSQL no database file makes DATA_DIR first.
    const dataDir = path.join(root, "data");
    const warnings: string[] = [];
    const list = createBlocklist(dataDir, { warn: (_obj, msg) => warnings.push(msg) });
    expect(warnings).toEqual([]);
    expect(readFileSync(list.file, "utf8")).toContain("# Blocked words, links and domains");
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  });
});
