import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** sha256 sources for every inline <script> of the prerendered pages, for the CSP. */
export function inlineScriptHashes(root: string): string[] {
  const hashes = new Set<string>();
  const pages = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((file) =>
    file.endsWith(".html"),
  );
  for (const page of pages) {
    const html = readFileSync(path.join(root, page), "utf8");
    for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
      const body = match[1] ?? "";
      if (body.trim() === "") continue;
      hashes.add(`sha256-${createHash("sha256").update(body).digest("base64")}`);
    }
  }
  return [...hashes].sort();
}
