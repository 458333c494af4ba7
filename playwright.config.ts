import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";
import { baseURL, port, siteEnv, siteServer } from "./tests/e2e/support/site.ts";
import { compileCacheDir } from "./tests/support/compile-cache.ts";

// Node's compile cache for the processes the browser tests start from here:
// the runner's workers and the servers below take this environment, and a
// spec's own servers and command-line runs pass it on (own-site.ts). A warm
// cache took about a second off each `playwright test` invocation's own start.
process.env.NODE_COMPILE_CACHE = compileCacheDir;

/** The shared site's server: `npm start`'s last command on the tests' bundle (site.ts). */
const serverCommand = `node ${siteServer.args.map((arg) => `'${arg}'`).join(" ")}`;

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  // Generous: the suite must pass on a loaded 2-core machine, where a test
  // that signs the owner in, mails and checks the console took over a minute
  // beside another CPU-heavy job; tests wait on conditions, so a fast machine
  // does not wait any longer.
  timeout: 120_000,
  // Islands hydrate after load: on a loaded 2-core machine that can take more
  // than 5 s, and the console's Overview, after signing in, more than 10 s;
  // a wait on a condition ends as soon as it holds.
  expect: { timeout: 20_000 },
  reporter: [["list"]],
  use: {
    baseURL,
    // No trace unless asked for: recording one for every test in case it
    // fails costs a tenth of the run's CPU (docs/decisions/023-traces-on-request.md).
    // A failure still writes the page's accessibility tree (error-context.md);
    // `--trace retain-on-failure` on the command line records traces again.
    trace: "off",
    launchOptions: {
      // Debian's Chromium, as its headless shell: the same engine without the
      // desktop browser around it, for a third less CPU per test
      // (docs/decisions/022-headless-shell.md). E2E_CHROMIUM=/usr/bin/chromium
      // runs the suite in the full browser. Playwright never downloads one here.
      executablePath: process.env.E2E_CHROMIUM ?? "/usr/bin/chromium-headless-shell",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        // Without a GPU, Chromium composites each frame through SwiftShader,
        // GL emulated on the CPU; software compositing draws the same pages
        // for about 9 % less CPU (docs/benchmarks.md, "Test suite").
        "--disable-gpu-compositing",
        // Not `--disable-threaded-compositing`: it seems to save a fifth, but the
        // shell then draws no frame, so clicks wait for ever (decision 028).
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  // One project, so its two workers serve every test to the end. A test whose
  // outcome depends on the width (the drawer, the header's controls, sizes,
  // whole-page axe on one page of each layout) runs again at 800 px from its
  // spec (`atBothWidths`, tests/e2e/support/fixtures.ts), and the live events
  // again on the site on PostgreSQL (engagement.spec.ts): projects of their own
  // stopped both workers and started two more, each loading its specs and
  // launching its browser, twice at the run's end
  // (docs/decisions/028-how-the-suite-stays-fast.md).
  projects: [
    {
      name: "desktop",
      use: { ...devices["Desktop Chrome"], viewport: { width: 1280, height: 800 } },
    },
  ],
  webServer: [
    {
      // Rebuilds first when the build was made with other settings, or its
      // bundle of the server with other sources; then runs that bundle.
      command: `node scripts/ensure-build.ts --browser-tests && ${serverCommand}`,
      gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
      // Its log (warnings and worse) shows beside the tests, a crash's reason included.
      stdout: "pipe",
      url: `${baseURL}/healthz`,
      reuseExistingServer: false,
      // It builds the site first when needed, which takes minutes on a loaded machine.
      timeout: 360_000,
      env: {
        ...siteEnv,
        ...siteServer.env,
        HOST: "127.0.0.1",
        PORT: String(port),
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "ewe-e2e-")),
        LOG_LEVEL: "warn",
      },
    },
  ],
});
