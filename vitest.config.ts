import { defineConfig } from "vitest/config";
import { loadConfig, publicConfig } from "./server/config.ts";

// Three projects, one layer each: `npm run test:components` runs the components
// (happy-dom) and the plain Node units without PostgreSQL or Chromium; `npm run
// test:server` runs the server against SQLite and a PostgreSQL its global setup starts.
export default defineConfig({
  define: {
    __SITE_CONFIG__: JSON.stringify(publicConfig(loadConfig({}, { productionRules: false }))),
    __SITE_OWNER__: JSON.stringify(loadConfig({}, { productionRules: false }).owner),
  },
  test: {
    projects: [
      "vitest.server.config.ts",
      {
        extends: true,
        test: {
          name: "components",
          environment: "happy-dom",
          include: ["app/**/*.test.tsx", "app/**/*.test.ts"],
          setupFiles: ["tests/setup/components.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "node",
          environment: "node",
          // Some of these start git, the build's scripts or a child Node: on a
          // busy 2-core machine one such test takes well over Vitest's 5 s default.
          testTimeout: 60_000,
          include: [
            "contract/**/*.test.ts",
            "content/**/*.test.ts",
            "server/**/*.test.ts",
            "scripts/**/*.test.ts",
          ],
        },
      },
    ],
  },
});
