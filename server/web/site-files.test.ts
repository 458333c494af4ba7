import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliCompressSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { codedVariant, identityOf, loadSiteFiles } from "./site-files.ts";

/*
 * What the built site's table holds in memory (docs/decisions/029-pages-from-memory.md):
 * the build's brotli copies of its text files, which every browser takes, and the
 * files as written only once a client asked for them so. The idle server's memory
 * budget (docs/testing.md, "Performance budgets") held both, about 5 MB more.
 */

const root = mkdtempSync(path.join(tmpdir(), "ewe-site-files-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A large page, as the list pages and feeds are: 2 MB as written, a few KB in brotli.
const page = `<!doctype html><title>Science</title>${"<p>Steam and heat relax the cotton fibres.</p>".repeat(45_000)}`;
mkdirSync(path.join(root, "science"));
writeFileSync(path.join(root, "science/index.html"), page);
writeFileSync(path.join(root, "science/index.html.br"), brotliCompressSync(page));
writeFileSync(path.join(root, "index.html"), "<!doctype html><title>Home</title>");

/** Bytes held outside V8's heap (Buffers) since `before`, in KB. */
const heldKb = (before: number) => (process.memoryUsage().arrayBuffers - before) / 1024;

describe("the built site's table in memory", () => {
  it("holds a page's brotli copy, not the page as written, at start and once a browser took it", () => {
    const before = process.memoryUsage().arrayBuffers;
    const files = loadSiteFiles(root);
    const science = files.get("/science");
    expect(science?.compressible).toBe(true);
    expect(heldKb(before)).toBeLessThan(256);
    if (!science) return;
    const br = codedVariant(science, "br");
    expect(br?.headers["content-encoding"]).toBe("br");
    expect(br?.body.length).toBeLessThan(64 * 1024);
    expect(heldKb(before)).toBeLessThan(256);
    // A client without compression gets the page as written, and it is kept from then on.
    const identity = identityOf(science);
    expect(identity?.body.toString()).toBe(page);
    expect(identity?.etag).not.toBe(br?.etag);
    // Kept: the table's own copy, not read again. (Not by the heap's growth: this
    // worker's other files free theirs meanwhile, and once it read below zero.)
    expect(science.identity).toBe(identity);
    expect(identityOf(science)?.body).toBe(identity?.body);
  });
});
