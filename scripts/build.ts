import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants } from "node:zlib";
import { listedPaths, prerenderedPaths } from "../app/navigation.ts";
import { ContentError, loadContent } from "../content/load.ts";
import { loadConfig } from "../server/config.ts";
import { buildInputsHash, clientDir, projectRoot, stampFile } from "./build-inputs.ts";
import { writeSearchIndex } from "./search-index.ts";

// 1. Content first: a broken file stops the build with its name, before Vite runs.
try {
  loadContent();
} catch (error) {
  if (error instanceof ContentError) {
    console.error(`Content error in content/${error.message}`);
    process.exit(1);
  }
  throw error;
}

// 2. The pages and their islands. Astro would ask the network about telemetry.
execFileSync(
  process.execPath,
  [path.join(projectRoot, "node_modules/astro/bin/astro.mjs"), "build"],
  {
    cwd: projectRoot,
    stdio: "inherit",
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1" },
  },
);

// 3. Files for search engines, from the route list of the prerender less the unlisted pages.
const { siteUrl } = loadConfig(process.env, { productionRules: false });
const today = new Date().toISOString().slice(0, 10);
writeFileSync(
  path.join(clientDir, "sitemap.xml"),
  `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${listedPaths.map((route) => `  <url><loc>${siteUrl}${route}</loc><lastmod>${today}</lastmod></url>`).join("\n")}
</urlset>
`,
);
writeFileSync(
  path.join(clientDir, "robots.txt"),
  `User-agent: *\nAllow: /\nDisallow: /api/\n\nSitemap: ${siteUrl}/sitemap.xml\n`,
);

// Search: Pagefind indexes the built pages (scripts/search-index.ts), before
// compression so that its scripts are precompressed too.
const searchablePages = await writeSearchIndex(clientDir);
if (searchablePages === 0) {
  console.error("The search index holds no pages: is data-pagefind-body missing from <main>?");
  process.exit(1);
}

// 4. Precompressed copies: zopfli gzip (smaller than zlib's best) and brotli.
// Imported late: the WebAssembly module installs global error handlers.
const { gzipAsync } = await import("@gfx/zopfli");
const compressible = /\.(html|js|css|svg|xml|txt|json|webmanifest)$/;
const targets = readdirSync(clientDir, { recursive: true, encoding: "utf8" }).filter((file) =>
  compressible.test(file),
);
await Promise.all(
  targets.map(async (file) => {
    const full = path.join(clientDir, file);
    const source = readFileSync(full);
    const gzip = await gzipAsync(source, { numiterations: 15 });
    const brotli = brotliCompressSync(source, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
    });
    // A compressed copy is only worth sending when it is smaller.
    if (gzip.length < source.length) writeFileSync(`${full}.gz`, gzip);
    if (brotli.length < source.length) writeFileSync(`${full}.br`, brotli);
  }),
);

writeFileSync(stampFile, buildInputsHash());
console.info(
  `Built ${prerenderedPaths.length} pages into ${path.relative(projectRoot, clientDir)}/`,
);
