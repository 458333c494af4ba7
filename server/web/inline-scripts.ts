import { createHash } from "node:crypto";

/**
 * The types of an inline <script> a browser runs, and that the CSP's
 * script-src therefore governs: no type, a JavaScript type, a module, an
 * import map or speculation rules. Any other type (the pages' JSON-LD) is a
 * data block, never run: hashing it would only lengthen the policy that goes
 * out with every page (docs/decisions/020-api-headers-and-cheap-hooks.md).
 */
const runs = /^(?:|module|importmap|speculationrules|(?:text|application)\/(?:java|ecma)script)$/i;

/**
 * sha256 sources for every inline <script> of the prerendered pages that a
 * browser runs, for the CSP; the pages as the site's table in memory holds
 * them (site-files.ts, `htmlPages`), so that a start reads the built site once.
 */
export function inlineScriptHashes(pages: Iterable<Buffer>): string[] {
  const hashes = new Set<string>();
  for (const page of pages) {
    const html = page.toString("utf8");
    for (const match of html.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>([\s\S]*?)<\/script>/g)) {
      const type = /\btype\s*=\s*["']?([^"'\s>]*)/i.exec(match[1] ?? "")?.[1] ?? "";
      const body = match[2] ?? "";
      if (!runs.test(type.trim()) || body.trim() === "") continue;
      hashes.add(`sha256-${createHash("sha256").update(body).digest("base64")}`);
    }
  }
  return [...hashes].sort();
}
