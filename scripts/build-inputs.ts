import { createHash, type Hash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { loadConfig, publicConfig } from "../server/config.ts";
import { loadConfigOrExit } from "../server/startup-line.ts";

export const projectRoot = path.resolve(import.meta.dirname, "..");
/**
 * Where this build goes: BUILD_DIR (default build/), the pages under client/.
 * The browser tests build into a folder of their own (tests/e2e/support/site.ts),
 * so a site running from build/client is never rewritten by them.
 */
export const buildDir = loadConfigOrExit(process.env, { productionRules: false }).buildDir;
export const clientDir = path.join(buildDir, "client");
export const stampFile = path.join(buildDir, ".stamp");

const inputs = [
  "app",
  "content",
  "public",
  "contract",
  "astro.config.ts",
  "package-lock.json",
  // The build's own code: a change to how pages, feeds, share images, the
  // search index or the compressed copies are made changes the build too.
  "scripts/build.ts",
  "scripts/build-inputs.ts",
  "scripts/favicon.ts",
  "scripts/feeds.ts",
  "scripts/island-styles.ts",
  "scripts/og-images.ts",
  "scripts/precompress.ts",
  "scripts/search-index.ts",
  "scripts/vite-content-images.ts",
  // The assistant's passages and index (server/assistant/index-file.ts).
  "server/assistant/index-file.ts",
  "server/assistant/passages.ts",
  "server/assistant/retrieval.ts",
  "server/assistant/terms.ts",
  // The spam classifier's model is built from its corpus.
  "server/moderation/corpus",
  "scripts/spam-model.ts",
  "scripts/spam-corpus.ts",
];

/** The files of `entry` (one file, or every file below a folder), relative to the project. */
export function filesOf(entry: string): string[] {
  const full = path.join(projectRoot, entry);
  if (!statSync(full, { throwIfNoEntry: false })) return [];
  if (statSync(full).isFile()) return [entry];
  return readdirSync(full, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(entry, name))
    .filter((name) => statSync(path.join(projectRoot, name)).isFile())
    .sort();
}

/** Every file of `entries` (as filesOf finds them), its name and its content, into `hash`. */
export function hashFiles(hash: Hash, entries: readonly string[]): Hash {
  for (const file of entries.flatMap(filesOf)) {
    hash.update(file);
    hash.update(readFileSync(path.join(projectRoot, file)));
  }
  return hash;
}

/**
 * `scripts/build.ts` and `scripts/ensure-build.ts` with this flag make the
 * build the browser tests serve: no gzip copy of any file (Chromium always
 * asks for brotli, and `npm run size` makes the gzip it reports as the build
 * would), and its server bundle in the build's own folder (build/e2e/server),
 * which the tests' sites run. The pages, their brotli copies and everything
 * else are the same.
 */
export const browserTestsFlag = "--browser-tests";

/**
 * What the built site depends on: the sources, the public settings baked
 * into it, and whether it is the browser tests' build. `npm start` rebuilds
 * when this changes.
 */
export function buildInputsHash(
  env: NodeJS.ProcessEnv = process.env,
  { forBrowserTests = false } = {},
): string {
  const hash = createHash("sha256");
  if (forBrowserTests) hash.update(browserTestsFlag);
  hash.update(JSON.stringify(publicConfig(loadConfig(env, { productionRules: false }))));
  return hashFiles(hash, inputs).digest("hex");
}

/**
 * The build's last line: every page Astro wrote (its "N page(s) built", the
 * console's and the forms' answer pages with the readers'), and how many of
 * them the sitemap and the search index hold, so the counts read together.
 */
export function builtPagesLine(
  clientDir: string,
  counts: { inSitemap: number; searchable: number },
): string {
  const pages = readdirSync(clientDir, { recursive: true, encoding: "utf8" }).filter((file) =>
    file.endsWith(".html"),
  ).length;
  return `Built ${pages} pages into ${path.relative(projectRoot, clientDir)}/: ${counts.inSitemap} in the sitemap, ${counts.searchable} in the search index`;
}
