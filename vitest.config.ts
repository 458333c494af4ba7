import { defineConfig } from "vitest/config";
import { loadConfig, publicConfig } from "./server/config.ts";

// Kept apart from vite.config.ts so the React Router plugin never runs under Vitest.
export default defineConfig({
  define: {
    __SITE_CONFIG__: JSON.stringify(publicConfig(loadConfig({}, { productionRules: false }))),
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
          include: ["content/**/*.test.ts", "server/**/*.test.ts", "scripts/**/*.test.ts"],
        },
      },
    ],
  },
});
