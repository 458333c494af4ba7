import { defineConfig } from "vitest/config";

// The engagement service's tests: real SQLite files and a real PostgreSQL
// server (started once by the global setup), through Fastify's inject.
export default defineConfig({
  test: {
    name: "server",
    environment: "node",
    include: ["tests/server/**/*.test.ts"],
    globalSetup: ["tests/server/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
