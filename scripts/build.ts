import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { siteName } from "../app/lib/site-name.ts";
import { listedPaths } from "../app/navigation.ts";
import { servicePath, siteItems } from "../content/items.ts";
import { defaultContentRoot, exitOnContentError, loadContent } from "../content/load.ts";
import { checkSiteLinks } from "../content/site-links.ts";
import { writeAssistantIndex } from "../server/assistant/index-file.ts";
import { loadConfig } from "../server/config.ts";
import {
  browserTestsFlag,
  buildDir,
  buildInputsHash,
  builtPagesLine,
  clientDir,
  projectRoot,
  stampFile,
} from "./build-inputs.ts";
import { buildServer, serverBuildDir, testsServerBuildDir } from "./build-server.ts";
import { faviconIco } from "./favicon.ts";
import { sitemapXml, writeFeeds } from "./feeds.ts";
import { itemShareCard, writeShareImages } from "./og-images.ts";
import { writeCompressedCopies } from "./precompress.ts";
import { robotsTxt } from "./robots.ts";
import { writeSearchIndex } from "./search-index.ts";
import { ensureSpamModel } from "./spam-model.ts";

/** The build the browser tests serve (scripts/build-inputs.ts): steps 4 and 6 do less. */
const forBrowserTests = process.argv.includes(browserTestsFlag);

// 1. Content first: a broken file stops the build with its name, before Vite runs.
const content = exitOnContentError(() => {
  const loaded = loadContent();
  checkSiteLinks(loaded);
  return loaded;
}, "Content error in content/");

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
// Each service's own page is listed too (docs/product.md, "A page per service"),
// and /book, which a buyer may search for ("Book a call").
const sitemapPaths = [
  ...listedPaths,
  ...content.services.map((service) => servicePath(service.id)),
  "/book",
];
writeFileSync(path.join(clientDir, "sitemap.xml"), sitemapXml(siteUrl, sitemapPaths, items));
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
writeFileSync(
  path.join(clientDir, "favicon.ico"),
  faviconIco(readFileSync(path.join(projectRoot, "public/favicon.svg"), "utf8")),
);

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

// The assistant's passages and their index (server/assistant/passages.ts),
// beside the pages: the server reads it at the first question.
const passages = writeAssistantIndex(content, config.owner, { buildDir, clientDir });
console.info(`Indexed ${passages} passages for the assistant`);

// 4. Precompressed copies (scripts/precompress.ts). The browser tests' build
// has no gzip copies (Chromium always takes brotli), and its brotli is quick
// rather than smallest: the tests read what the files say, not their size.
await writeCompressedCopies(clientDir, {
  gzip: !forBrowserTests,
  brotliQuality: forBrowserTests ? 5 : 11,
});

// 5. The spam classifier, trained on its corpus (docs/decisions/025-spam-that-learns.md),
// again only when the corpus or the code that reads it changed.
const spamModel = ensureSpamModel();
if (spamModel === "trained") console.info("Trained the spam model: build/spam-model.json");
if (spamModel === "copied") console.info("Copied the spam model trained on the same inputs");

writeFileSync(stampFile, buildInputsHash(process.env, { forBrowserTests }));
console.info(
  builtPagesLine(clientDir, {
    inSitemap: sitemapPaths.length + items.length,
    searchable: searchablePages,
  }),
);

// 6. The server, bundled into JavaScript (docs/decisions/039-server-bundle.md);
// the browser tests' into their own build folder, whose sites run it
// (docs/decisions/067-axe-per-layout-and-tests-on-the-bundle.md).
const bundleDir = forBrowserTests ? testsServerBuildDir(buildDir) : serverBuildDir;
await buildServer(bundleDir, { commandLine: forBrowserTests });
console.info(`Bundled the server into ${path.relative(projectRoot, bundleDir)}/`);
