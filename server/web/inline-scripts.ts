import { createHash } from "node:crypto";

/**
 * sha256 sources for every inline <script> of the prerendered pages, for the
 * CSP; the pages as the site's table in memory holds them (site-files.ts,
 * `htmlPages`), so that a start reads the built site once.
 */
export function inlineScriptHashes(pages: Iterable<Buffer>): string[] {
  const hashes = new Set<string>();
  for (const page of pages) {
    const html = page.toString("utf8");
    for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
      const body = match[1] ?? "";
      if (body.trim() === "") continue;
      hashes.add(`sha256-${createHash("sha256").update(body).digest("base64")}`);
    }
  }
  return [...hashes].sort();
}
