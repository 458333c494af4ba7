import path from "node:path";
import { type BrowserContext, devices } from "@playwright/test";
import { measuredSite } from "./measured-site.ts";

/**
 * The first tap on a phone, measured in Chromium: a Pixel 7's screen and
 * touch, the CPU slowed 4× (as Lighthouse's mobile run does), against the
 * real server on loopback. For each run a fresh page loads /about, and the
 * reader's first tap goes to one control:
 *
 * - "Toggle menu": the drawer, a native <dialog> (app/layouts/site-header.astro);
 * - "Search": an island that hydrates on that very tap, which is what the
 *   menu was before (docs/decisions/031-menu-without-hydration.md);
 * - the page's heading: a tap on text, the floor this browser and machine set.
 *
 * A tap's latency is the Event Timing duration of its interaction: from the
 * touch to the first frame painted after the handlers ran, the figure behind
 * Interaction to Next Paint. For the menu and the search it also prints the
 * time from the touch until their dialog is on screen, hydration included.
 * Prints medians of `RUNS` runs (default 7).
 *
 * This machine has no GPU, so Chromium blurs the drawer's backdrop in software,
 * which a phone composites on its GPU. `BACKDROP=flat` draws it without the
 * blur, as the browser tests do on their headless shell
 * (docs/decisions/048-drawer-backdrop-blurred.md); `CHROMIUM=…` picks the
 * browser (default Debian's /usr/bin/chromium; the tests' is
 * /usr/bin/chromium-headless-shell).
 */
const runs = Number(process.env.RUNS ?? 7);
const cpuSlowdown = 4;
const flatBackdrop = process.env.BACKDROP === "flat";
const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";

const site = await measuredSite("menu-latency", executablePath);
const { origin, browser } = site;

type Tap = { latency: number; shown: number | null };

/** One fresh page, one first tap on `target`. */
async function firstTap(context: BrowserContext, target: "menu" | "search" | "text"): Promise<Tap> {
  const page = await context.newPage();
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: cpuSlowdown });
    if (flatBackdrop) {
      await page.addInitScript(() => {
        const sheet = new CSSStyleSheet();
        sheet.replaceSync(".site-menu::backdrop { backdrop-filter: none !important; }");
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
      });
    }
    await page.addInitScript(() => {
      const state = { interactions: new Map<number, number>(), start: 0, shown: 0 };
      (window as unknown as { tapState: typeof state }).tapState = state;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as PerformanceEventTiming[]) {
          if (!entry.interactionId) continue;
          const longest = state.interactions.get(entry.interactionId) ?? 0;
          state.interactions.set(entry.interactionId, Math.max(longest, entry.duration));
        }
      }).observe({
        type: "event",
        durationThreshold: 16,
        buffered: true,
      } as PerformanceObserverInit);
      addEventListener("pointerdown", (event) => (state.start ||= event.timeStamp), true);
      addEventListener("DOMContentLoaded", () => {
        const watcher = new MutationObserver(() => {
          if (!state.start || !document.querySelector("dialog[open], [role=dialog]")) return;
          watcher.disconnect();
          // The frame after the one that lays the dialog out is on screen.
          requestAnimationFrame(() =>
            requestAnimationFrame(() => (state.shown = performance.now())),
          );
        });
        watcher.observe(document.documentElement, {
          subtree: true,
          childList: true,
          attributes: true,
          attributeFilter: ["open"],
        });
      });
    });
    await page.goto(`${origin}/about`, { waitUntil: "load" });
    // A reader's first tap comes after the page has settled, not during its load.
    await page.evaluate(() => new Promise((done) => requestIdleCallback(done, { timeout: 5000 })));
    const locator =
      target === "menu"
        ? page.getByRole("button", { name: "Toggle menu" })
        : target === "search"
          ? page.getByRole("banner").getByRole("button", { name: "Search", exact: true })
          : page.getByRole("heading", { level: 1 });
    await locator.tap();
    if (target === "menu") await page.getByRole("navigation", { name: "Main" }).waitFor();
    if (target === "search") await page.getByRole("dialog", { name: /search/i }).waitFor();
    // Event Timing reports an interaction once its frame is painted.
    return await page
      .waitForFunction(
        () => {
          const state = (
            window as unknown as {
              tapState: { interactions: Map<number, number>; start: number; shown: number };
            }
          ).tapState;
          const latency = Math.max(0, ...state.interactions.values());
          if (latency === 0 && performance.now() - state.start < 1000) return null;
          if (document.querySelector("dialog[open], [role=dialog]") && !state.shown) return null;
          return {
            latency: latency || 16,
            shown: state.shown ? state.shown - state.start : null,
          };
        },
        undefined,
        { polling: 50, timeout: 30_000 },
      )
      .then((handle) => handle.jsonValue() as Promise<Tap>);
  } finally {
    await page.close();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

try {
  const results: Record<"menu" | "search" | "text", Tap[]> = { menu: [], search: [], text: [] };
  for (let run = 0; run < runs; run++) {
    for (const target of ["menu", "search", "text"] as const) {
      const context = await browser.newContext({ ...devices["Pixel 7"] });
      try {
        results[target].push(await firstTap(context, target));
      } finally {
        await context.close();
      }
    }
  }
  const ms = (value: number) => `${Math.round(value)} ms`;
  const latency = (target: keyof typeof results) =>
    median(results[target].map((tap) => tap.latency));
  const shown = (target: keyof typeof results) =>
    median(results[target].flatMap((tap) => (tap.shown === null ? [] : [tap.shown])));
  const floor = latency("text");
  console.info(
    `First tap on a phone (Pixel 7 screen, CPU ${cpuSlowdown}× slower), median of ${runs}, ${path.basename(executablePath)}, backdrop ${flatBackdrop ? "without its blur" : "blurred (in software: no GPU)"}:`,
  );
  console.info(`  tap on text (floor)  next paint ${ms(floor)}`);
  for (const [target, label] of [
    ["menu", "Toggle menu        "],
    ["search", "Search (an island) "],
  ] as const) {
    console.info(
      `  ${label}  next paint ${ms(latency(target))} (${(latency(target) / floor).toFixed(1)}× the floor), dialog on screen ${ms(shown(target))}`,
    );
  }
} finally {
  await site.close();
}
