import { defineConfig } from "vitest/config";
import { loadConfig, publicConfig } from "./server/config.ts";

// Four projects: `npm run test:components` runs the components (happy-dom)
// and the plain Node units without PostgreSQL or Chromium; `npm run
// test:server` runs the server against SQLite and a PostgreSQL its global
// setup starts; `npm run test:faults` runs the fault suite on the same set-up
// (docs/decisions/051-two-suites.md).
export default defineConfig({
  define: {
    __SITE_CONFIG__: JSON.stringify(publicConfig(loadConfig({}, { productionRules: false }))),
    __SITE_OWNER__: JSON.stringify(loadConfig({}, { productionRules: false }).owner),
  },
  test: {
    projects: [
      "vitest.server.config.ts",
      "vitest.faults.config.ts",
      {
        extends: true,
        test: {
          name: "components",
          environment: "happy-dom",
          // One environment and module graph per worker, not per file, as the
          // server tests do (docs/decisions/028-how-the-suite-stays-fast.md):
          // the files share no module state, and Testing Library empties the
          // document after each test. 7 CPU-seconds became 2.
          isolate: false,
          // `npm test` runs them at a low priority beside the build and the
          // browser tests: a test may wait longer than Vitest's 5 s default
          // for the CPU. They wait on conditions, so a quiet machine waits no longer.
          testTimeout: 30_000,
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
          // Each file's imports once per worker, not once per file: 17
          // CPU-seconds became 11. No file changes another's module state.
          isolate: false,
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
