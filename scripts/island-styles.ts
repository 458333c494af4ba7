import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AstroIntegration } from "astro";

/*
 * Astro writes the islands' one style rule (`astro-island{display:contents}`
 * and its slots) as a <style> just before a page's first island: inside
 * <header> or <body>, where HTML allows no <style>
 * (docs/decisions/034-valid-html.md). After the build it moves to the end of
 * <head>, where it applies from the first paint as before. The page policy
 * allows inline styles ('unsafe-inline', server/web/security-headers.ts) and
 * hashes only scripts, which stay where they are.
 */

const islandStyle = "<style>astro-island,astro-slot,astro-static-slot{display:contents}</style>";

/** The page with the islands' <style> taken out of its body and put once at the end of its head. */
export function islandStyleInHead(html: string): string {
  const without = html.replaceAll(islandStyle, "");
  const head = without.indexOf("</head>");
  if (without === html || head === -1) return html;
  return `${without.slice(0, head)}${islandStyle}${without.slice(head)}`;
}

/** Runs islandStyleInHead over every page Astro built. */
export function islandStylesInHead(): AstroIntegration {
  return {
    name: "island-styles-in-head",
    hooks: {
      "astro:build:done": ({ dir }) => {
        const root = fileURLToPath(dir);
        const pages = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((file) =>
          file.endsWith(".html"),
        );
        for (const page of pages) {
          const file = path.join(root, page);
          const html = readFileSync(file, "utf8");
          const moved = islandStyleInHead(html);
          if (moved !== html) writeFileSync(file, moved);
        }
      },
    },
  };
}
