import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "../../support/server-process.ts";
import { siteEnv } from "./site.ts";

/**
 * The path of every page built for the browser tests: each `index.html`
 * under the build's `client/` folder, so a page added under app/pages is
 * listed without a test naming it. Playwright starts its web servers, which
 * build the site when it is missing or stale, before it reads the specs; a
 * spec listed without them (`--list`) finds no build and gets an empty list,
 * which `pageSources` lets a test notice.
 */
export function builtPages(): string[] {
  const client = path.join(projectRoot, siteEnv.BUILD_DIR, "client");
  if (!existsSync(client)) return [];
  return readdirSync(client, { recursive: true, encoding: "utf8" })
    .filter((file) => path.basename(file) === "index.html")
    .map((file) => {
      const folder = path.dirname(file).split(path.sep).join("/");
      return folder === "." ? "/" : `/${folder}`;
    })
    .sort();
}

/**
 * Every page source under app/pages, with the paths it builds as a pattern:
 * `[param]` stands for any one path segment, `index` for its folder.
 */
export function pageSources(): { file: string; paths: RegExp }[] {
  const pages = path.join(projectRoot, "app/pages");
  return readdirSync(pages, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".astro"))
    .sort()
    .map((file) => {
      const segments = file
        .slice(0, -".astro".length)
        .split(path.sep)
        .filter((segment) => segment !== "index")
        .map((segment) =>
          /^\[[^\]]+\]$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
        );
      return { file: `app/pages/${file}`, paths: new RegExp(`^/${segments.join("/")}$`) };
    });
}

/**
 * The first built page of each page source: a page's source is the one of
 * the fewest parameters whose paths it is among (/newsletter/confirm is
 * confirm.astro's, not [result].astro's). The other pages of a source differ
 * from its first in the owner's writing, which the built pages' checks read
 * on every page (scripts/validate-html.ts, scripts/page-loads.ts).
 */
export function firstOfEachSource(built: string[]): Set<string> {
  const sources = pageSources();
  const parameters = (paths: RegExp) => paths.source.split("[^/]+").length;
  const sourceOf = (page: string) =>
    sources
      .filter(({ paths }) => paths.test(page))
      .sort((a, b) => parameters(a.paths) - parameters(b.paths))[0]?.file;
  return new Set(
    sources.flatMap(({ file }) => built.find((page) => sourceOf(page) === file) ?? []),
  );
}
