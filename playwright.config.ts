import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

// E2E_PORT lets two checkouts run their browser tests side by side.
const port = Number(process.env.E2E_PORT ?? 4173);
export const baseURL = `http://127.0.0.1:${port}`;
/** The same site on PostgreSQL, for the engagement tests. */
const postgresPort = port + 1;

/**
 * The settings the browser tests build and serve the site with. The chatbot
 * provider is outside this machine, so the tests stand in for its script.
 */
const siteEnv = {
  SITE_URL: baseURL,
  CONTACT_EMAIL: "owner@example.com",
  CHATBOT_SCRIPT_URL: "https://chatbot.invalid/embed.js",
  CHATBOT_BOT_ID: "test-bot",
  OWNER_LINKEDIN_URL: "https://www.linkedin.com/in/engage-with-engineer-test",
  // These tests comment faster than a person; the comment form's own timing is
  // tested at its default in moderation.spec.ts, on servers of its own.
  COMMENT_MIN_SECONDS: "1",
};

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  // Generous: the suite must pass on a loaded 2-core machine; tests wait on
  // conditions, so a fast machine does not wait any longer.
  timeout: 60_000,
  expect: { timeout: 5_000 },
  reporter: [["list"]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    launchOptions: {
      // Debian's Chromium; Playwright never downloads a browser here.
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    {
      name: "desktop",
      use: { ...devices["Desktop Chrome"], viewport: { width: 1280, height: 800 } },
    },
    {
      name: "narrow",
      use: { ...devices["Desktop Chrome"], viewport: { width: 800, height: 900 } },
    },
    {
      name: "postgres",
      testMatch: "engagement.spec.ts",
      use: {
        ...devices["Desktop Chrome"],
        viewport: { width: 1280, height: 800 },
        baseURL: `http://127.0.0.1:${postgresPort}`,
      },
    },
  ],
  webServer: [
    {
      // Rebuilds first when the build was made with other settings.
      command: "node scripts/ensure-build.ts && node server/main.ts",
      gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
      // Its log (warnings and worse) shows beside the tests, a crash's reason included.
      stdout: "pipe",
      url: `${baseURL}/healthz`,
      reuseExistingServer: false,
      timeout: 120_000,
      env: {
        ...siteEnv,
        HOST: "127.0.0.1",
        PORT: String(port),
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "ewe-e2e-")),
        LOG_LEVEL: "warn",
      },
    },
    {
      command: "node scripts/ensure-build.ts && node tests/e2e/support/serve-on-postgres.ts",
      // Lets the script stop the server and its PostgreSQL cluster.
      gracefulShutdown: { signal: "SIGTERM", timeout: 15_000 },
      stdout: "pipe",
      url: `http://127.0.0.1:${postgresPort}/readyz`,
      reuseExistingServer: false,
      timeout: 180_000,
      env: {
        ...siteEnv,
        HOST: "127.0.0.1",
        PORT: String(postgresPort),
        DATA_DIR: mkdtempSync(path.join(tmpdir(), "ewe-e2e-pg-")),
        COOKIE_SECRET: "e2e-postgres-cookie-secret-0123456789abcdef",
        LOG_LEVEL: "warn",
      },
    },
  ],
});
