import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { errorCodes } from "../contract/api.ts";

const root = path.join(import.meta.dirname, "..");

/*
 * The README and the pages of docs/ name files and folders of the project;
 * each must exist. The decision records are history and may name what has
 * since gone.
 */
describe("the paths the docs name", () => {
  /** Folders the docs tell the owner to make. */
  const toBeMade = new Set(["content/images/owner/"]);
  const pages = ["README.md", ...readdirSync(path.join(root, "docs")).map((f) => `docs/${f}`)];
  const named = pages
    .filter((page) => page.endsWith(".md"))
    .flatMap((page) =>
      [
        ...readFileSync(path.join(root, page), "utf8").matchAll(
          /(?<![\w/.-])(?:app|bench|contract|content|docs|newsletter|public|scripts|server|tests)\/[\w./[\]-]*[\w\]/]/g,
        ),
      ].map(([found]) => ({ page, found: found.replace(/\]$/, "") })),
    );

  it("finds paths to check", () => {
    expect(named.length).toBeGreaterThan(300);
  });

  it("each exists", () => {
    const missing = named.filter(
      ({ found }) => !toBeMade.has(found) && !existsSync(path.join(root, found)),
    );
    expect(missing).toEqual([]);
  });
});

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
