import { configDefaults, defineConfig, type ViteUserConfig } from "vitest/config";
import { compileCacheDir } from "./tests/support/compile-cache.ts";

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * What the server tests and the fault suite share: real SQLite files and one
 * real PostgreSQL server (started once by the global setup), through Fastify's
 * inject or server processes of their own.
 */
export const serverTestOptions = {
  environment: "node",
  globalSetup: ["tests/server/global-setup.ts"],
  // Generous, as in the browser tests: tests that start processes and
  // databases must pass on a loaded 2-core machine; they wait on conditions,
  // so a fast machine does not wait any longer.
  testTimeout: 60_000,
  // expect.poll's own default is one second: too short for a poll that
  // runs a command line or reads a database on a loaded machine.
  expect: { poll: { timeout: 15_000 } },
  hookTimeout: 60_000,
  // Three files at a time, where Vitest's default on two cores is one: these
  // tests mostly wait (on child servers, PostgreSQL, timeouts), and `npm
  // test` runs them beside the browser tests, which they must not outlast
  // (docs/decisions/028-how-the-suite-stays-fast.md, 078: two made them the
  // long pole; four, measured in session 60, did not end them sooner: see
  // docs/benchmarks.md, "Test suite"). Each file has its own database, data
  // folder and ports.
  maxWorkers: 3,
  // Each file used to start a worker of its own and import the server into
  // it again: about a second of CPU per file, a fifth of the project's CPU.
  // The files share no mutable module state (each builds its own apps,
  // databases and folders), so each of the workers imports it once.
  isolate: false,
  // A young generation of 32 MB halves (semi-space) where V8's default is
  // 16: a worker holds every file's module graph, apps and databases, and
  // with the default it spent 5-14 % of a heavy file's time collecting
  // (docs/benchmarks.md, "Test suite").
  execArgv: ["--max-semi-space-size=32"],
  // The server's own modules (and the contract and content it imports) are
  // loaded by Node, as in production, not transformed by Vite: the same code
  // for less CPU (docs/benchmarks.md, "Test suite"). A test therefore gives
  // the server what it stands in for as an option; it cannot spy on a module.
  server: {
    deps: { external: [new RegExp(`^${escaped(import.meta.dirname)}/(server|contract|content)/`)] },
  },
  env: {
    // Node's compile cache (docs/decisions/038-start-and-idle.md) for what the
    // workers load natively: the packages, and each SMTP thread a test app
    // starts (server/outbox/mailer.ts as a Worker), which otherwise compiles
    // nodemailer anew. The folder is the one the server processes use.
    NODE_COMPILE_CACHE: compileCacheDir,
  },
} satisfies ViteUserConfig["test"];

// The everyday server tests (`npm test`): every behaviour, on both databases.
// The tests that kill, restart, stop PostgreSQL, fill a disk or send at scale
// are the fault suite's, under tests/server/faults/ (vitest.faults.config.ts,
// `npm run test:faults`; docs/decisions/051-two-suites.md): this project
// reads every other file under tests/server/, so none runs twice or never.
export default defineConfig({
  test: {
    ...serverTestOptions,
    name: "server",
    include: ["tests/server/**/*.test.ts"],
    exclude: [...configDefaults.exclude, "tests/server/faults/**"],
  },
});
