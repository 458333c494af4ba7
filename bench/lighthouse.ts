import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { prerenderedPaths, unlistedRoutes } from "../app/navigation.ts";
import { median } from "./timing.ts";

/*
 * `npm run lighthouse`: Lighthouse (mobile preset, simulated throttling) on every
 * prerendered route of the built site, and /book, served by the real server on loopback.
 * Prints the four category scores and the main metrics per route, then every
 * audit that cost a point, and exits 1 below the budget: 100 in performance,
 * accessibility, best practices and SEO, and CLS 0 (docs/decisions/006-islands.md).
 *
 * Lighthouse is not a dependency (about 170 MB): it runs through
 * `npx lighthouse@13`, which fetches it from the npm registry once. Chromium is
 * Debian's (CHROME_PATH, default /usr/bin/chromium). Scores move a few points
 * between runs on a busy machine; LIGHTHOUSE_RUNS (default 3) takes the median.
 * The site is served on LIGHTHOUSE_PORT (default 4180) with the settings of the
 * environment, SITE_URL excepted. Routes may be given: npm run lighthouse -- /about
 */

const chromePath = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const runs = Math.max(1, Number(process.env.LIGHTHOUSE_RUNS ?? 3));
// Besides the prerendered routes, /book: a built page the server fills with the free times.
const routes =
  process.argv.slice(2).length > 0 ? process.argv.slice(2) : [...prerenderedPaths, "/book"];
const budget = { performance: 100, accessibility: 100, "best-practices": 100, seo: 100 };
const categories = Object.keys(budget) as (keyof typeof budget)[];
// Pages kept out of search engines on purpose (robots noindex): their SEO score
// counts every audit but "is crawlable".
const unlisted = new Set<string>(unlistedRoutes.map((route) => route.path));

/*
 * Chromium's features turned off for the run. Lighthouse's launcher turns off the
 * first ten, and a second --disable-features would replace its list, not add to
 * it, so they are named again. The last two are the browser's own address-bar
 * pop-ups (WebUI pages): Debian's Chromium 156 loads them in a renderer of their
 * own as it starts, even headless, and on two cores that renderer's 1-2 s of CPU
 * overlapped the page's load and was counted as the page's blocking time
 * (docs/decisions/052-the-marquee-waits-for-the-page.md).
 */
const disabledFeatures = [
  "Translate",
  "OptimizationHints",
  "MediaRouter",
  "DialMediaRouteProvider",
  "CalculateNativeWinOcclusion",
  "InterestFeedContentSuggestions",
  "CertificateTransparencyComponentUpdater",
  "AutofillServerCommunication",
  "PrivacySandboxSettings4",
  "RenderDocument",
  "WebUIOmniboxPopup",
  "WebUIOmniboxAimPopup",
];

const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-lighthouse-"));
const run = promisify(execFile);

// The pages' canonical URLs must be the audited ones, so the site is built for
// this address (ensure-build rebuilds when the settings change), into a folder
// of its own: a site served from build/client keeps its pages.
const port = Number(process.env.LIGHTHOUSE_PORT ?? 4180);
const siteEnv = {
  ...process.env,
  SITE_URL: `http://127.0.0.1:${port}`,
  BUILD_DIR: "build/lighthouse",
};

async function startSite(): Promise<{ url: string; child: ChildProcess }> {
  await run(process.execPath, ["scripts/ensure-build.ts"], {
    env: siteEnv,
    maxBuffer: 64 * 1024 * 1024,
  });
  const url = siteEnv.SITE_URL;
  const child = spawn(process.execPath, ["server/main.ts"], {
    env: { ...siteEnv, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: scratch },
    stdio: ["ignore", "ignore", "inherit"],
  });
  // A start takes seconds on a loaded machine: wait for the answer, not a fixed time.
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { url, child };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGTERM");
  throw new Error("the server did not answer /healthz within 2 minutes");
}

type Audit = { id: string; title: string; score: number | null; displayValue?: string };
type Report = {
  categories: Record<string, { score: number; auditRefs: { id: string; weight: number }[] }>;
  audits: Record<string, Audit & { numericValue?: number }>;
};

/**
 * One Lighthouse run. Lighthouse sometimes fails to record a page load's trace
 * on a busy machine ("Something went wrong with recording the trace… Please
 * run Lighthouse again", NO_NAVSTART): such a run measured nothing, so it is
 * run again, up to twice. Any other failure stops the script.
 */
async function lighthouse(url: string, attempt = 1): Promise<Report> {
  try {
    return await lighthouseOnce(url);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    if (attempt < 3 && stderr.includes("Please run Lighthouse again")) {
      console.warn(`  (${url}: Lighthouse could not record the trace; running it again)`);
      return lighthouse(url, attempt + 1);
    }
    throw error;
  }
}

async function lighthouseOnce(url: string): Promise<Report> {
  const out = path.join(scratch, "report.json");
  await run(
    "npx",
    [
      "--yes",
      "lighthouse@13",
      url,
      "--quiet",
      "--output=json",
      `--output-path=${out}`,
      `--only-categories=${categories.join(",")}`,
      `--chrome-flags=--headless=new --no-sandbox --disable-gpu --no-first-run --disable-features=${disabledFeatures.join(",")}`,
    ],
    {
      env: {
        ...process.env,
        CHROME_PATH: chromePath,
        // Chromium and Lighthouse write under these; keep that out of $HOME.
        XDG_CONFIG_HOME: path.join(scratch, "config"),
        XDG_CACHE_HOME: path.join(scratch, "cache"),
        XDG_DATA_HOME: path.join(scratch, "data"),
      },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  return JSON.parse(readFileSync(out, "utf8")) as Report;
}

const { url, child } = await startSite();
/** Every point lost; `over` marks those that break the budget. */
const problems: { text: string; over: boolean }[] = [];
try {
  console.info(`Lighthouse 13, mobile, ${runs} run(s) per route, median shown\n`);
  console.info(
    `${"route".padEnd(16)}${"perf".padStart(6)}${"a11y".padStart(6)}${"bp".padStart(6)}${"seo".padStart(6)}${"FCP".padStart(8)}${"LCP".padStart(8)}${"TBT".padStart(8)}${"CLS".padStart(7)}`,
  );
  for (const route of routes) {
    const reports: Report[] = [];
    for (let i = 0; i < runs; i++) reports.push(await lighthouse(`${url}${route}`));
    const score = (category: string) =>
      Math.round(median(reports.map((r) => (r.categories[category]?.score ?? 0) * 100)));
    const metric = (id: string) => median(reports.map((r) => r.audits[id]?.numericValue ?? 0));
    const cls = metric("cumulative-layout-shift");
    console.info(
      `${route.padEnd(16)}${categories.map((c) => String(score(c)).padStart(6)).join("")}${`${(metric("first-contentful-paint") / 1000).toFixed(1)} s`.padStart(8)}${`${(metric("largest-contentful-paint") / 1000).toFixed(1)} s`.padStart(8)}${`${Math.round(metric("total-blocking-time"))} ms`.padStart(8)}${cls.toFixed(3).padStart(7)}`,
    );
    for (const category of categories) {
      const exempt = category === "seo" && unlisted.has(route) ? "is-crawlable" : null;
      if (!exempt && score(category) < budget[category]) {
        problems.push({
          text: `${route} ${category} ${score(category)} < ${budget[category]}`,
          over: true,
        });
      }
      // What cost points, from the last run: weighted audits that did not pass.
      const report = reports.at(-1);
      for (const ref of report?.categories[category]?.auditRefs ?? []) {
        const audit = report?.audits[ref.id];
        if (ref.id === exempt || !audit || ref.weight === 0) continue;
        if (audit.score !== null && audit.score < 1) {
          problems.push({
            text: `${route} ${category}: ${audit.title}${audit.displayValue ? ` (${audit.displayValue})` : ""}`,
            // On a noindex page the score cannot tell, so any other SEO audit counts.
            over: exempt !== null,
          });
        }
      }
    }
    if (cls > 0) problems.push({ text: `${route} CLS ${cls.toFixed(3)} > 0`, over: true });
  }
} finally {
  child.kill("SIGTERM");
  rmSync(scratch, { recursive: true, force: true });
}

if (problems.length > 0) {
  const lines = problems.map(({ text, over }) => `  ${over ? "✗" : "·"} ${text}`);
  console.info(`\nBelow a perfect score (✗ breaks the budget):\n${lines.join("\n")}`);
}
const failed = problems.some((problem) => problem.over);
console.info(failed ? "\nBelow the budget." : "\nWithin the budget.");
process.exitCode = failed ? 1 : 0;
