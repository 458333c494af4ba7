import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import { buildApp } from "../server/app.ts";
import { loadConfig } from "../server/config.ts";
import { clientDir } from "./build-inputs.ts";

/** The built site on the real server (loopback, a data folder of its own) and a Chromium to measure it in. */
export async function measuredSite(name: string, executablePath: string) {
  if (!existsSync(path.join(clientDir, "index.html"))) {
    console.error('No build found: run "npm run build" first.');
    process.exit(1);
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `ewe-${name}-`));
  const app = await buildApp({
    config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent" }, { productionRules: false }),
    clientRoot: clientDir,
  });
  const origin = await app.listen({ host: "127.0.0.1", port: 0 });
  const browser = await chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
  return {
    origin,
    browser,
    async close() {
      await browser.close();
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
