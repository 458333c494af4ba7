import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";
import { contentImages } from "./scripts/vite-content-images.ts";
import { plainDynamicImports } from "./scripts/vite-plain-dynamic-imports.ts";
import { loadConfig, publicConfig } from "./server/config.ts";

export default defineConfig({
  plugins: [plainDynamicImports(), tailwindcss(), reactRouter(), contentImages()],
  define: {
    __SITE_CONFIG__: JSON.stringify(
      publicConfig(loadConfig(process.env, { productionRules: false })),
    ),
  },
  build: {
    // Hashed assets are cached for a year by the server; no source maps shipped.
    sourcemap: false,
    modulePreload: false,
    rolldownOptions: {
      output: {
        // One chunk for what every page needs compresses better than four.
        codeSplitting: {
          groups: [
            {
              name: "framework",
              test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]|app[\\/]root\.tsx|^\0vite\/preload-helper/,
            },
            {
              // Pieces most pages share: one file compresses far better than ten,
              // while a piece only two pages use stays with them.
              name: "pages",
              minShareCount: 5,
              test: /app[\\/](components|lib)[\\/]|app[\\/]features[\\/]reactions[\\/]reaction-buttons/,
            },
          ],
        },
      },
    },
  },
});
