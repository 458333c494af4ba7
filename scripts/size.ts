import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { Page } from "@playwright/test";
import { prerenderedPaths } from "../app/navigation.ts";
import { clientDir } from "./build-inputs.ts";
import { measuredSite } from "./measured-site.ts";
import { gzipCopy } from "./precompress.ts";

/**
 * The JavaScript each page costs a reader, measured in Chromium against the
 * real server (docs/decisions/006-islands.md):
 *
 * - before load: every script requested before the window's `load` event, plus
 *   every inline script, in gzip bytes as served. Budget 15 KB.
 * - reading: everything a reader who only reads is sent, once the islands that
 *   hydrate when the browser is idle have done so (the header and the topic
 *   tabs wait to be used, so pages made only of text stay at 0 KB of React).
 * - all live: everything once every island has hydrated.
 * - after opening: on the story and science pages, everything once one item is
 *   open with its reactions (and comments) shown; on a story's or science
 *   post's own page, once its discussion has been scrolled to and shows its
 *   reactions. Budget 120 KB.
 *
 * Item pages are measured on one item of each section
 * (docs/decisions/013-item-pages-and-feeds.md), /book with its free times, and
 * one service's own page.
 *
 * KB are 1,024 bytes. Exits non-zero when a budget is exceeded.
 */
const KB = 1024;
const budgets = { beforeLoad: 15 * KB, afterOpening: 120 * KB, assistant: 20 * KB };
const engagementPages = new Set(["/mythology", "/science"]);
const itemPages = [
  "/technical/ice-blog",
  "/non-technical/teamwork",
  "/mythology/garuda",
  "/mechfusion-ai/pde-and-ai",
  "/science/pressure-cooker",
];
const engagedItemPages = new Set(["/mythology/garuda", "/science/pressure-cooker"]);
/** Built pages the server fills in on each request, outside the menus: the booking page. */
const formPages = ["/book"];
/** A service's own page, standing for the nine. */
const servicePages = ["/services/dfmea"];

/**
 * What the server sends for a built asset: its precompressed .gz copy when
 * there is one. The browser tests' build has none (scripts/build-inputs.ts,
 * `browserTestsFlag`): the gzip is then made as the site's build would make it,
 * once per file, so both builds report the same bytes.
 */
const gzipBytes = new Map<string, Promise<number>>();
function servedGzipBytes(pathname: string): Promise<number> {
  let bytes = gzipBytes.get(pathname);
  if (!bytes) {
    const relative = decodeURIComponent(pathname).replace(/^\//, "");
    const file = path.join(clientDir, relative);
    bytes = existsSync(`${file}.gz`)
      ? Promise.resolve(readFileSync(`${file}.gz`).length)
      : gzipCopy(relative, readFileSync(file)).then((copy) => copy.length);
    gzipBytes.set(pathname, bytes);
  }
  return bytes;
}

/** Inline scripts that run as JavaScript (not speculation rules or JSON data). */
function inlineScripts(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll("script:not([src])")]
      .filter((script) => {
        const type = script.getAttribute("type") ?? "";
        return type === "" || type === "module" || type.includes("javascript");
      })
      .map((script) => script.textContent ?? ""),
  );
}

// Chromium's headless shell, as the browser tests use it: the same engine and
// the same requests, for less than half the CPU of the whole browser
// (docs/decisions/028-how-the-suite-stays-fast.md).
const site = await measuredSite("size", "/usr/bin/chromium-headless-shell");
const { origin, browser } = site;

type Row = {
  route: string;
  beforeLoad: number;
  afterLoad: number;
  inUse: number;
  afterOpening: number | null;
};
/** Islands hydrate when the browser is idle: on a loaded machine that took over 30 s. */
const islandsTimeoutMs = 120_000;

/**
 * Wakes the islands `selector` names (none when null), as a pointer passing over them would,
 * then waits until no island `waiting` names is left to hydrate and the network is quiet.
 */
async function wake(page: Page, selector: string | null, waiting = selector ?? "") {
  if (selector) {
    await page.locator(selector).evaluateAll((islands) => {
      for (const island of islands) island.dispatchEvent(new PointerEvent("pointerover"));
    });
  }
  await page.waitForFunction((each) => !document.querySelector(each), waiting, {
    timeout: islandsTimeoutMs,
  });
  await page.waitForLoadState("networkidle");
}

/**
 * The paths of the site's own scripts `page` requests from now on: not another origin's, and
 * not a worker's script made in the page from one it loaded already (a `blob:` address, as
 * the confetti's, whose origin is the page's).
 */
function scriptsOf(page: Page): Set<string> {
  const paths = new Set<string>();
  page.on("request", (request) => {
    if (request.resourceType() === "script" && request.url().startsWith(`${origin}/`)) {
      paths.add(new URL(request.url()).pathname);
    }
  });
  return paths;
}

/** One route, in a page (and browser context, so a cache) of its own. */
async function measure(route: string): Promise<Row> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    const all = scriptsOf(page);
    let early = new Set<string>();
    page.on("load", () => {
      early = new Set(all);
    });
    await page.goto(`${origin}${route}`, { waitUntil: "load" });
    const inline = (await inlineScripts(page)).reduce(
      (sum, body) => sum + gzipSync(body, { level: 9 }).length,
      0,
    );
    const sum = async (paths: Set<string>) =>
      (await Promise.all([...paths].map(servedGzipBytes))).reduce(
        (total, bytes) => total + bytes,
        inline,
      );

    // What a reader who only reads is sent: the islands that hydrate when the
    // browser is idle (the header and the topic tabs wait to be used, /book's
    // form for the reader's first move).
    await wake(
      page,
      null,
      'astro-island[ssr]:not(:has(form)):not(:has(.item-discussion)):not([opts*="interaction"]):not([opts*="activity"])',
    );
    const afterLoad = await sum(all);

    // Then every island woken, as a pointer passing over them would (a move
    // with no movement is a pointer at rest, which wakes nothing); the
    // footer's form and an item page's discussion hydrate only when seen.
    await page.evaluate(() => dispatchEvent(new PointerEvent("pointermove", { movementX: 1 })));
    await wake(
      page,
      'astro-island[ssr][opts*="interaction"]',
      "astro-island[ssr]:not(:has(form)):not(:has(.item-discussion))",
    );
    const inUse = await sum(all);

    let afterOpening: number | null = null;
    if (engagementPages.has(route) || engagedItemPages.has(route)) {
      if (engagementPages.has(route)) await page.locator("main [data-trigger]").first().click();
      else await page.locator(".item-discussion").scrollIntoViewIfNeeded();
      await page
        .getByRole("button", { name: /^Like \d+$/ })
        .first()
        .waitFor();
      await page.waitForLoadState("networkidle");
      afterOpening = await sum(all);
    }
    return { route, beforeLoad: await sum(early), afterLoad, inUse, afterOpening };
  } finally {
    await page.close();
  }
}

/**
 * "Chat with Me" on /services, which hydrates at its first use: the JavaScript
 * that use fetches on a page where nothing else has woken (React with it),
 * or, with `othersFirst`, after the page's other islands have brought React:
 * its own code. Each in a page (and cache) of its own. Budget for its own
 * code: 20 KB.
 */
async function measureAssistant(othersFirst: boolean): Promise<number> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  try {
    const fetched = scriptsOf(page);
    await page.goto(`${origin}/services`, { waitUntil: "load" });
    await page.waitForLoadState("networkidle");
    if (othersFirst) {
      await wake(
        page,
        'astro-island[ssr][opts*="interaction"]:not([component-url*="assistant-chat"])',
      );
    }
    const before = new Set(fetched);
    await wake(page, 'astro-island[ssr][component-url*="assistant-chat"]');
    const paths = [...fetched].filter((each) => !before.has(each));
    return (await Promise.all(paths.map(servedGzipBytes))).reduce((sum, n) => sum + n, 0);
  } finally {
    await page.close();
  }
}

// Most of a route's time is waiting for the network to go quiet: four
// routes at a time, each in its own context, and the table in route order.
const routes = [...prerenderedPaths, ...formPages, ...servicePages, ...itemPages];
const rows: Row[] = [];
let assistant = { firstUse: 0, ownCode: 0 };
try {
  let next = 0;
  const worker = async () => {
    while (next < routes.length) {
      const index = next++;
      rows[index] = await measure(routes[index]!).catch((error: unknown) => {
        throw new Error(`${routes[index]}: ${error instanceof Error ? error.message : error}`);
      });
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  assistant = { firstUse: await measureAssistant(false), ownCode: await measureAssistant(true) };
} finally {
  await site.close();
}

const kb = (bytes: number | null) => (bytes === null ? "" : `${(bytes / KB).toFixed(1)} KB`);
console.info("JavaScript per page, gzip as served, measured in Chromium (1 KB = 1,024 bytes)\n");
console.info(
  `${"route".padEnd(42)}${"before load".padStart(13)}${"reading".padStart(13)}${"all live".padStart(13)}${"item opened".padStart(13)}`,
);
for (const row of rows) {
  console.info(
    `${row.route.padEnd(42)}${kb(row.beforeLoad).padStart(13)}${kb(row.afterLoad).padStart(13)}${kb(row.inUse).padStart(13)}${kb(row.afterOpening).padStart(13)}`,
  );
}
console.info(
  `\n/services, "Chat with Me" at its first use: ${kb(assistant.firstUse)} (React with it), its own code ${kb(assistant.ownCode)}`,
);
console.info(
  `\nBudgets: before load ≤ ${kb(budgets.beforeLoad)} on every page; ≤ ${kb(budgets.afterOpening)} with an item open; the assistant's own code ≤ ${kb(budgets.assistant)}.`,
);
const over = rows.filter(
  (row) =>
    row.beforeLoad > budgets.beforeLoad ||
    (row.afterOpening !== null && row.afterOpening > budgets.afterOpening),
);
if (assistant.ownCode > budgets.assistant) over.push({ route: "/services (Chat with Me)" } as Row);
if (over.length > 0) {
  console.error(`Over budget: ${over.map((row) => row.route).join(", ")}`);
  process.exit(1);
}
