import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { siteName } from "../app/lib/site-name.ts";
import { listedPaths, prerenderedPaths } from "../app/navigation.ts";
import { siteItems } from "../content/items.ts";
import {
  ContentError,
  defaultContentRoot,
  loadContent,
  type SiteContent,
} from "../content/load.ts";
import { loadConfig } from "../server/config.ts";
import { buildDir, buildInputsHash, clientDir, projectRoot, stampFile } from "./build-inputs.ts";
import { buildServer, serverBuildDir } from "./build-server.ts";
import { sitemapXml, writeFeeds } from "./feeds.ts";
import { itemShareCard, writeShareImages } from "./og-images.ts";
import { robotsTxt } from "./robots.ts";
import { writeSearchIndex } from "./search-index.ts";
import { ensureSpamModel } from "./spam-model.ts";

// 1. Content first: a broken file stops the build with its name, before Vite runs.
let content: SiteContent;
try {
  content = loadContent();
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

// 3. Files for search engines, from the route list of the prerender less the unlisted pages,
// plus every item's own page; the feeds; the share images
// (docs/decisions/013-item-pages-and-feeds.md).
const config = loadConfig(process.env, { productionRules: false });
const { siteUrl } = config;
const items = siteItems(content);
const today = new Date().toISOString().slice(0, 10);
writeFileSync(path.join(clientDir, "sitemap.xml"), sitemapXml(siteUrl, listedPaths, items, today));
const shareImages = await writeShareImages(
  [
    {
      path: "/og-image.png",
      eyebrow: "Engines · AI · Science · Stories",
      title: content.home.headline,
      footer: siteName,
      image: content.home.images[0] ?? null,
      icon: "zap",
    },
    ...items.map((item) => itemShareCard(item, siteName)),
  ],
  {
    clientDir,
    contentRoot: defaultContentRoot,
    cacheDir: path.join(buildDir, ".share-images"),
    sprite: readFileSync(path.join(projectRoot, "app/components/icons/sprite.svg"), "utf8"),
  },
);
const feeds = writeFeeds(
  clientDir,
  {
    siteUrl,
    siteName,
    ownerName: config.owner.name,
    contactEmail: config.contactEmail,
    description: content.home.description,
  },
  items,
);
console.info(
  `Wrote ${feeds.length} feeds and ${shareImages.drawn + shareImages.reused} share images (${shareImages.reused} unchanged)`,
);
writeFileSync(path.join(clientDir, "robots.txt"), robotsTxt(siteUrl));

// Search: Pagefind indexes the built pages (scripts/search-index.ts), before
// compression so that its scripts are precompressed too.
const searchablePages = await writeSearchIndex(
  clientDir,
  items.map((item) => item.path),
);
if (searchablePages === 0) {
  console.error("The search index holds no pages: is data-pagefind-body missing from <main>?");
  process.exit(1);
}

// 4. Precompressed copies, gzip and brotli. The hashed files under assets/
// (the islands' scripts, the style sheet, the icon sprite) are fetched by every
// reader and cached for good: their gzip is zopfli's, about 3 % smaller than
// zlib's best. Everything else (pages, feeds, the search index's scripts)
// changes with each build and is mostly fetched as brotli: zlib's best does,
// in a hundredth of the time (zopfli on them was 11 of the build's 27 s).
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
    const gzip = file.startsWith(`assets${path.sep}`)
      ? await gzipAsync(source, { numiterations: 15 })
      : gzipSync(source, { level: constants.Z_BEST_COMPRESSION });
    const brotli = brotliCompressSync(source, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
    });
    // A compressed copy is only worth sending when it is smaller.
    if (gzip.length < source.length) writeFileSync(`${full}.gz`, gzip);
    if (brotli.length < source.length) writeFileSync(`${full}.br`, brotli);
  }),
);

// 5. The spam classifier, trained on its corpus (docs/decisions/025-spam-that-learns.md),
// again only when the corpus or the code that reads it changed.
if (ensureSpamModel()) console.info("Trained the spam model: build/spam-model.json");

writeFileSync(stampFile, buildInputsHash());
console.info(
  `Built ${prerenderedPaths.length + items.length} pages into ${path.relative(projectRoot, clientDir)}/`,
);

// 6. The server, bundled into JavaScript (docs/decisions/039-server-bundle.md).
await buildServer();
console.info(`Bundled the server into ${path.relative(projectRoot, serverBuildDir)}/`);
