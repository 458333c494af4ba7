import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { loadConfig, publicConfig } from "../server/config.ts";

export const projectRoot = path.resolve(import.meta.dirname, "..");
/**
 * Where this build goes: BUILD_DIR (default build/), the pages under client/.
 * The browser tests build into a folder of their own (tests/e2e/support/site.ts),
 * so a site running from build/client is never rewritten by them.
 */
export const buildDir = loadConfig(process.env, { productionRules: false }).buildDir;
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
  "scripts/feeds.ts",
  "scripts/island-styles.ts",
  "scripts/og-images.ts",
  "scripts/search-index.ts",
  "scripts/vite-content-images.ts",
  // The spam classifier's model is built from its corpus.
  "server/moderation/corpus",
  "scripts/spam-model.ts",
  "scripts/spam-corpus.ts",
];

function files(entry: string): string[] {
  const full = path.join(projectRoot, entry);
  if (!statSync(full, { throwIfNoEntry: false })) return [];
  if (statSync(full).isFile()) return [entry];
  return readdirSync(full, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(entry, name))
    .filter((name) => statSync(path.join(projectRoot, name)).isFile())
    .sort();
}

/**
 * What the built site depends on: the sources and the public settings baked
 * into it. `npm start` rebuilds when this changes.
 */
export function buildInputsHash(env: NodeJS.ProcessEnv = process.env): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify(publicConfig(loadConfig(env, { productionRules: false }))));
  for (const file of inputs.flatMap(files)) {
    hash.update(file);
    hash.update(readFileSync(path.join(projectRoot, file)));
  }
  return hash.digest("hex");
}
