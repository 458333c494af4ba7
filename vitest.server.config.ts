import { defineConfig } from "vitest/config";

// The engagement service's tests: real SQLite files and a real PostgreSQL
// server (started once by the global setup), through Fastify's inject.
export default defineConfig({
  test: {
    name: "server",
    environment: "node",
    include: ["tests/server/**/*.test.ts"],
    globalSetup: ["tests/server/global-setup.ts"],
    // Generous, as in the browser tests: tests that start processes and
    // databases must pass on a loaded 2-core machine; they wait on conditions,
    // so a fast machine does not wait any longer.
    testTimeout: 60_000,
    // expect.poll's own default is one second: too short for a poll that
    // runs a command line or reads a database on a loaded machine.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 60_000,
    // Two files at a time, where Vitest's default on two cores is one: these
    // tests mostly wait (on child servers, PostgreSQL, timeouts), and `npm
    // test` runs them beside the browser tests, which they must not outlast
    // (docs/decisions/028-how-the-suite-stays-fast.md). Each file has its own
    // database, data folder and ports.
    maxWorkers: 2,
  },
});
