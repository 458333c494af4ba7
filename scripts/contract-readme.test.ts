import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { errorCodes } from "../contract/api.ts";

/*
 * contract/README.md describes what the schemas cannot say (statuses, when an
 * error happens) and points to the schemas for shapes; its table of error codes
 * is the contract's list, no more and no less.
 */
const readme = readFileSync(path.join(import.meta.dirname, "../contract/README.md"), "utf8");

describe("contract/README.md", () => {
  it("lists every error code of the contract once, and no other", () => {
    const listed = [...readme.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map(([, code]) => code);
    expect(listed.toSorted()).toEqual([...errorCodes].sort());
  });

  it("names the schemas the shapes are in, rather than listing their fields", () => {
    expect(readme).toContain("`commentSchema`");
    expect(readme).toContain("`errorResponseSchema`");
    expect(readme).not.toMatch(/`Comment` is `\{/);
  });
});
