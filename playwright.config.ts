import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

const port = 4173;
export const baseURL = `http://127.0.0.1:${port}`;

/**
 * The settings the browser tests build and serve the site with. The chatbot
 * provider is outside this machine, so the tests stand in for its script.
 */
const siteEnv = {
  SITE_URL: baseURL,
  CONTACT_EMAIL: "owner@example.com",
  CHATBOT_SCRIPT_URL: "https://chatbot.invalid/embed.js",
  CHATBOT_BOT_ID: "test-bot",
};

export default defineConfig({
  testDir: "tests/e2e",
  fullyParallel: true,
  workers: 2,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  reporter: process.env.CI ? [["list"]] : [["list"]],
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
  ],
  webServer: {
    // Rebuilds first when the build was made with other settings.
    command: "node scripts/ensure-build.ts && node server/main.ts",
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
});
