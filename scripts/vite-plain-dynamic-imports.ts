import type { Plugin } from "vite";

/** Vite's id for the helper it wraps every dynamic `import()` of the client in. */
const preloadHelperId = "\0vite/preload-helper.js";

/**
 * Vite wraps each dynamic `import()` in a helper that first preloads the chunk's
 * CSS and imports. Here there is nothing to preload: the site has one style sheet,
 * loaded by every page, and `build.modulePreload` is off. Yet the helper (~0.9 kB
 * gzip) would ship in the first load of every page that can lazy-load something.
 * This replaces it with a plain call of the import.
 */
export function plainDynamicImports(): Plugin {
  return {
    name: "plain-dynamic-imports",
    enforce: "pre",
    apply: "build",
    resolveId(id) {
      return id === preloadHelperId ? id : null;
    },
    load(id) {
      return id === preloadHelperId ? "export const __vitePreload = (load) => load();" : null;
    },
  };
}
