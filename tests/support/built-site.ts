import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * A stand-in for the built site (build/client), for tests that need the
 * server, not the pages: a home page, the 404 page and whatever `files` adds,
 * by path under the root ("science/index.html").
 */
export function fakeBuiltSite(
  files: Record<string, string | Buffer> = {},
  root = mkdtempSync(path.join(os.tmpdir(), "ewe-client-")),
): string {
  const all = {
    "index.html": "<!doctype html><title>home</title>",
    "404.html": "<!doctype html><title>not found</title>",
    ...files,
  };
  for (const [file, content] of Object.entries(all)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  return root;
}

/**
 * A placeholder the build leaves for the server to fill in from its read
 * cache (docs/architecture.md, "Pages"); app/pages/*.astro writes these.
 */
export const fragment = (target: string, part: string, title?: string) =>
  `<ewe-fragment data-for="${target}" data-part="${part}"${title === undefined ? "" : ` data-title="${title}"`}></ewe-fragment>`;

/** /science as built, cut down to two cards (soap and wifi) and the section's JSON-LD. */
export const fakeSciencePage = `<!doctype html><html><head>${fragment("science", "jsonld").replace("<ewe-fragment", '<ewe-fragment slot="head"')}</head><body>
<details><summary>Soap ${fragment("science:soap", "summary", "How does soap clean?")}</summary>
<div>${fragment("science:soap", "comments")}</div></details>
<details><summary>Wi-Fi ${fragment("science:wifi", "summary", "Wi-Fi &amp; &quot;you&quot;")}</summary>
<div>${fragment("science:wifi", "comments")}</div></details></body></html>`;
