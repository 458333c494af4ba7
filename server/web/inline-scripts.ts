import { createHash } from "node:crypto";

/**
 * The types of an inline <script> a browser runs, and that the CSP's
 * script-src therefore governs: no type, a JavaScript type, a module, an
 * import map or speculation rules. Any other type (the pages' JSON-LD) is a
 * data block, never run: hashing it would only lengthen the policy that goes
 * out with every page (docs/decisions/020-api-headers-and-cheap-hooks.md).
 */
export const runs =
  /^(?:|module|importmap|speculationrules|(?:text|application)\/(?:java|ecma)script)$/i;

/**
 * sha256 sources for every inline <script> of the prerendered pages that a
 * browser runs, for the CSP; the pages as the site's table in memory holds
 * them (site-files.ts, `htmlPages`), so that a start reads the built site once.
 * Each page is searched as bytes and only its scripts are decoded: decoding
 * every page whole was a share of each start.
 */
export function inlineScriptHashes(pages: Iterable<Buffer>): string[] {
  const hashes = new Set<string>();
  for (const page of pages) {
    for (let at = page.indexOf(scriptOpen); at !== -1; at = page.indexOf(scriptOpen, at + 1)) {
      const tagEnd = page.indexOf(">", at);
      if (tagEnd === -1) break;
      const close = page.indexOf(scriptClose, tagEnd);
      if (close === -1) break;
      const attributes = page.toString("utf8", at + scriptOpen.length, tagEnd);
      if (/\bsrc=/.test(attributes)) continue;
      const type = /\btype\s*=\s*["']?([^"'\s>]*)/i.exec(attributes)?.[1] ?? "";
      const body = page.toString("utf8", tagEnd + 1, close);
      at = close;
      if (!runs.test(type.trim()) || body.trim() === "") continue;
      hashes.add(`sha256-${createHash("sha256").update(body).digest("base64")}`);
    }
  }
  return [...hashes].sort();
}

const scriptOpen = "<script";
const scriptClose = "</script>";
