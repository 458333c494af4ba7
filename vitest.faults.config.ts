import { defineConfig } from "vitest/config";
import { serverTestOptions } from "./vitest.server.config.ts";

// The fault suite (`npm run test:faults`; docs/decisions/051-two-suites.md):
// the server killed with kill -9 and restarted, PostgreSQL stopped, lost or
// frozen, a full disk, hundreds of writes at once and editions sent at scale,
// with the server tests' PostgreSQL, helpers and settings. CI runs it after
// `npm test`, on its own.
export default defineConfig({
  test: {
    ...serverTestOptions,
    name: "faults",
    include: ["tests/server/faults/**/*.test.ts"],
    // These pace real processes against clocks: a test that starts two
    // servers and kills one took over a minute beside other engineers'
    // builds. They wait on conditions, so a quiet machine waits no longer.
    testTimeout: 180_000,
  },
});
