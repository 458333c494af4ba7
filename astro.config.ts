import path from "node:path";
import react from "@astrojs/react";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "astro/config";
import { deferredHydration } from "./app/islands/integration.ts";
import { islandStylesInHead } from "./scripts/island-styles.ts";
import { contentImages } from "./scripts/vite-content-images.ts";
import { loadConfig, publicConfig } from "./server/config.ts";

const config = loadConfig(process.env, { productionRules: false });
const site = publicConfig(config);

/**
 * Pages are built to static HTML; the interactive parts are React islands that
 * hydrate after the page has loaded (docs/decisions/006-islands.md). The server
 * serves BUILD_DIR/client (build/client by default) as it is. Astro's own cache
 * sits beside it, so that two builds of one checkout into two folders (the
 * site's and the tests') share nothing.
 */
export default defineConfig({
  site: site.siteUrl,
  srcDir: "./app",
  publicDir: "./public",
  outDir: path.join(config.buildDir, "client"),
  cacheDir: path.join(config.buildDir, ".astro"),
  output: "static",
  trailingSlash: "never",
  build: { format: "directory", assets: "assets" },
  devToolbar: { enabled: false },
  integrations: [react(), deferredHydration(), islandStylesInHead()],
  vite: {
    plugins: [tailwindcss(), contentImages()],
    define: {
      __SITE_CONFIG__: JSON.stringify(site),
      // The owner's profile, for the pages only (app/lib/site-owner.ts).
      __SITE_OWNER__: JSON.stringify(config.owner),
    },
    build: { sourcemap: false },
  },
});
