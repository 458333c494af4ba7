import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { request as http, type Page, type Request } from "@playwright/test";
import { legalRoutes, mainRoutes } from "../../app/navigation.ts";
import { sections, siteItems } from "../../content/items.ts";
import { loadContent } from "../../content/load.ts";
import { seriousViolations } from "./support/axe.ts";
import { builtPages, firstOfEachSource, pageSources } from "./support/built-pages.ts";
import { atBothWidths, expect, isNarrow, test } from "./support/fixtures.ts";
import { hydrateUnderFakeClock, islandsHydrated, wakeWaitingIslands } from "./support/islands.ts";
import { type OwnSite, ownerCli, postTo, signInWith, startOwnSite } from "./support/own-site.ts";

/*
 * A page in normal use logs no console error and breaks no rule of the
 * Content-Security-Policy: one page of each page source the build holds, and
 * of the items' the first of each section (the reading pages, the answers the
 * forms and mailed links lead to, the page of a missing address, and each
 * screen of the owner's console, signed in), read
 * to its end with every island live, and the home page until its moving parts
 * (the confetti's burst, the quotes' rotation) have each run once. What
 * differs between the pages of one source is the owner's writing, and what it
 * can make the console report (an address the build does not hold or the
 * policy refuses, an inline script the policy's hashes miss, an item the
 * server does not keep) the built pages' check finds on every page without a
 * browser (scripts/page-loads.ts,
 * docs/decisions/068-what-a-page-loads-checked-without-a-browser.md); the
 * pages Chromium does not read are each asked of the server here, as
 * served. Chromium reports a refused script, worker, frame or style on the
 * console; the page's own `securitypolicyviolation` events are collected too,
 * so a violation counts even when a browser keeps it off the console.
 *
 * The same visit checks one page of each layout and state with axe, whole
 * (`sameLayoutAs`, `axeItems`, `withAxe`; docs/decisions/067-axe-per-layout-and-tests-on-the-bundle.md):
 * a top-level page as served and once every island is live, a section page
 * with an item open, every other page it reads (an item's own page, the
 * newsletter's and the forms' answers, a service's pages, each of the owner's
 * console screens) once it is live, read to its end. Pages of one layout
 * share their markup and differ in the owner's writing, which the built
 * pages' HTML check reads on every page (images' alt, headings, links' and buttons' text, ids,
 * languages, tables: scripts/validate-html.ts). The narrow layout is another
 * page to axe, but not another page for each route: one page of each layout
 * is checked at 800 px too (`narrowPages`) live, since the served HTML is the
 * same at every width. One visit does both because loading and hydrating a
 * page is most of what either check costs
 * (docs/decisions/028-how-the-suite-stays-fast.md); for the same reason the
 * visit of an item page axe reads checks its headings in `main` once live
 * too, and the console's screens are read one after another after one sign-in.
 */

type Trouble = string[];

/**
 * Everything that went wrong on `page` from now on, as lines to read in a
 * failure. No request is intercepted: a route holds every request the page
 * makes for a round trip to the test, about a fifth of an item page's CPU.
 */
async function watch(page: Page): Promise<Trouble> {
  const trouble: Trouble = [];
  const asked = new Set<Request>();
  unanswered.set(page, asked);
  page.on("request", (request) => {
    // An event stream stays open for good: whether each has answered is asked of the page.
    if (request.resourceType() !== "eventsource") asked.add(request);
  });
  page.on("requestfinished", (request) => asked.delete(request));
  page.on("requestfailed", (request) => asked.delete(request));
  page.on("console", (message) => {
    if (message.type() === "error") {
      trouble.push(`console error: ${message.text()} (${message.location().url})`);
    }
  });
  page.on("pageerror", (error) => trouble.push(`uncaught: ${error.message}`));
  await page.exposeFunction("__reportViolation", (line: string) => trouble.push(line));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { __reportViolation(line: string): void })
        .__reportViolation;
      report(`CSP violation: ${event.violatedDirective} refused ${event.blockedURI || "inline"}`);
    });
    // Each event stream the page opens, and whether its first `ready` has been
    // handled: the page reads its item or queue again then (app/lib/live-item.ts,
    // app/console/live.tsx). Marked a task later (a message, which no fake
    // clock holds), once the page's own listener, added after this one, has
    // asked for those reads.
    const streams: { source: EventSource; ready: boolean }[] = [];
    const Native = window.EventSource;
    window.EventSource = class extends Native {
      constructor(url: string | URL, init?: EventSourceInit) {
        super(url, init);
        const stream = { source: this, ready: false };
        streams.push(stream);
        const later = new MessageChannel();
        later.port1.onmessage = () => {
          stream.ready = true;
          later.port1.close();
        };
        this.addEventListener("ready", () => later.port2.postMessage(null), { once: true });
      }
    };
    // What the page is still to ask for: a discussion not yet live (its panel
    // opens once its island has hydrated, then reads its item and opens its
    // stream: `data-live`), and a stream not yet answered.
    (window as unknown as { __yetToAsk(): string[] }).__yetToAsk = () => [
      ...[
        ...document.querySelectorAll(
          '[data-live="false"], .item-discussion:not(:has([data-live]))',
        ),
      ].map(() => "a discussion not live yet"),
      ...streams
        .filter((stream) => !stream.ready && stream.source.readyState !== Native.CLOSED)
        .map((stream) => `event stream not ready: ${stream.source.url}`),
    ];
  });
  return trouble;
}

/** The requests each watched page has made and not had answered (`watch`). */
const unanswered = new WeakMap<Page, Set<Request>>();

/**
 * The page's network has settled: each discussion is live (its panel, which
 * opens a moment after its island is marked hydrated, has read its item,
 * opened its event stream and been answered: `data-live`), each event stream
 * the page opened has answered and the reads that follow are asked for, and
 * every request the page made is answered or has failed. A request that
 * never settles fails the check, as it did by `networkidle`, which waited for
 * half a second with none in flight after the last: about 0.6 s a page, a
 * third of what reading an item page cost. Measured on every page this spec
 * reads, no request starts in that half second once this holds (the
 * discussions' did, before it waited for them to be live).
 */
async function settled(page: Page) {
  const asked = unanswered.get(page);
  if (!asked) throw new Error("settled() needs the page watched first");
  await expect
    .poll(
      async () => [
        ...(await page.evaluate(() =>
          (window as unknown as { __yetToAsk(): string[] }).__yetToAsk(),
        )),
        ...[...asked].map((request) => `unanswered: ${request.method()} ${request.url()}`),
      ],
      { timeout: 15_000 },
    )
    .toEqual([]);
}

/**
 * Opens `path` and brings all of it to life: every island live and every
 * image loaded (`liveAndLoaded`).
 */
async function readToItsEnd(page: Page, path: string) {
  const response = await page.goto(path);
  expect(response?.status(), path).toBe(200);
  await liveAndLoaded(page);
}

/**
 * Everything a reader of the whole page would have brought on, without
 * scrolling through it a screenful at a time, a frame and 50 ms a step
 * (docs/decisions/028-how-the-suite-stays-fast.md). The islands that wait to
 * be used are woken; each that waits to be seen is scrolled to, as a reader
 * reaching it would, and the page then to its end; an image that waits to be
 * near the window loads now (`loading="eager"`, which starts the load the
 * browser held back). Then every island is live, every image complete (a
 * refused or missing one has logged its error by then), and the network quiet.
 */
async function liveAndLoaded(page: Page) {
  await wakeWaitingIslands(page);
  await page.evaluate(async () => {
    // A frame drawn at each place, so that the browser has looked at what is in view there.
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
    for (const island of document.querySelectorAll("astro-island[ssr]")) {
      // An island's element has no box of its own (display: contents): its content has.
      (island.firstElementChild ?? island).scrollIntoView({ block: "center" });
      await frame();
    }
    window.scrollTo(0, document.body.scrollHeight);
    await frame();
  });
  await expect(page.locator("astro-island[ssr]")).toHaveCount(0, { timeout: 15_000 });
  await expect
    .poll(
      () =>
        page.evaluate(() => {
          // Each time: an island may have added images since.
          const images = [...document.images];
          for (const image of images) image.loading = "eager";
          return images
            .filter((image) => !image.complete)
            .map((image) => image.currentSrc || image.src);
        }),
      { timeout: 15_000 },
    )
    .toEqual([]);
  // Whatever the islands fetched once live (counts, comments, the event stream's first
  // answer): a page whose requests never settle fails here, rather than being let go.
  await settled(page);
}

/**
 * No serious or critical axe violation on the whole page. Polled: the home
 * page's quote fades out and in every 10 s, and text half-way through that
 * fade has, for half a second, too little contrast. A lasting violation still fails.
 */
async function axeClean(page: Page, path?: string) {
  await expect.poll(() => seriousViolations(page), { timeout: 30_000, message: path }).toEqual([]);
}

/**
 * `read`, with axe on the whole page as served (before the islands that wait
 * for the reader have hydrated) and again once every island is live, the page
 * back at its top, as a reader first sees it; without axe where another page
 * of its layout has it (`axe: false`). At 800 px it checks the
 * live page only, its islands woken (`hydrate`) rather than the page read to
 * its end: what its console logs is the same at any width.
 */
async function readWithAxe(
  page: Page,
  path: string,
  {
    hydrate = islandsHydrated,
    axe = true,
  }: { hydrate?: (page: Page) => Promise<void>; axe?: boolean } = {},
) {
  const response = await page.goto(path);
  expect(response?.status(), path).toBe(200);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  const route = mainRoutes.find((entry) => entry.path === path);
  const narrow = isNarrow(page);
  if (route && !narrow) await marksItsOwnLink(page, route.label);
  if (narrow) {
    await hydrate(page);
  } else {
    if (axe) await axeClean(page);
    await hydrate(page);
    await liveAndLoaded(page);
    await page.evaluate(() => window.scrollTo(0, 0));
  }
  if (axe) await axeClean(page);
}

/**
 * The sidebar marks the page's own link as the current page, and no other, on
 * a direct load, in the same visit (the served HTML of each route is read in
 * shell.spec.ts, and the drawer's mark at the narrow width there too).
 */
async function marksItsOwnLink(page: Page, label: string) {
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: label, exact: true })).toHaveAttribute(
    "aria-current",
    "page",
  );
  await expect(nav.locator('[aria-current="page"]')).toHaveCount(1);
}

/**
 * Where the headings in `main` skip a level going down (an h2 straight to an
 * h4), as "h2 → h4"; the text's h2s sit under the page's h1.
 */
async function headingSkips(page: Page): Promise<string[]> {
  const levels = await page
    .locator("main :is(h1, h2, h3, h4, h5, h6)")
    .evaluateAll((headings) => headings.map((heading) => Number(heading.tagName.slice(1))));
  return levels.flatMap((level, index) =>
    index > 0 && level > (levels[index - 1] ?? 0) + 1 ? [`h${levels[index - 1]} → h${level}`] : [],
  );
}

/**
 * The confetti library adds its canvas for a burst and takes it away when the
 * last particle has fallen, which it learns from its worker: a canvas that
 * comes and goes is a burst that was drawn to its end.
 */
async function burstRunsToTheEnd(page: Page) {
  await expect(page.locator("body > canvas")).toHaveCount(1, { timeout: 20_000 });
  await expect(page.locator("body > canvas")).toHaveCount(0, { timeout: 20_000 });
}

/**
 * The window a burst is watched in. The canvas covers the window, and without
 * a GPU every frame of it is drawn and composited on the CPU: in a small
 * window a burst runs its whole course, worker and all, for half the CPU.
 */
const burstWindow = { width: 640, height: 360 };

const items = siteItems(loadContent());
const itemPaths = items.map((item) => item.path);
const built = builtPages();
/** The console's screens: each needs the owner signed in (its sign-in page does not). */
const consoleScreens = built.filter(
  (page) => (page === "/admin" || page.startsWith("/admin/")) && page !== "/admin/sign-in",
);
/**
 * The site's top-level pages but the home page, which has a test of its own,
 * and the legal pages but "Your data" (grouped with the other pages below):
 * each also checked with axe.
 */
const topPages: string[] = [
  ...mainRoutes.map((route) => route.path).filter((route) => route !== "/"),
  ...legalRoutes.map((route) => route.path).filter((route) => route !== "/your-data"),
];
/**
 * The top-level pages whose layout another page's axe check stands for, with
 * that page: /mythology is laid out by grouped-items-page.astro as /science
 * is (the same groups, cards, reactions and discussions, another section's
 * items), and /terms is prose under a page header, as /privacy is. Each of
 * the other top-level pages has a layout or island of its own.
 */
const sameLayoutAs = new Map([
  ["/mythology", "/science"],
  ["/terms", "/privacy"],
]);
/**
 * The items whose own pages axe reads: the first of each section. The item
 * page is one template (app/pages/[section]/[slug].astro) whose parts come and
 * go by section: a story's or science post's reactions and discussion and its
 * picture, an AI article's icon and its link to read further, a technical
 * article's services, an item updated since it was written or not (the
 * first story is not); these five hold each.
 */
const axeItems = new Set(
  sections.map((section) => items.find((item) => item.section.id === section.id)?.path),
);
/**
 * Of every other page, the first of each page source under app/pages (a
 * service's page stands for every service's, the newsletter's first answer
 * for its others), which axe reads.
 */
const withAxe = firstOfEachSource(built);
/**
 * Every other page Chromium reads, but the items' own pages, which have tests
 * of their own below: the first of each page source (`withAxe`), grouped by
 * the folder it sits in (the newsletter's answers, the services' pages, your
 * data), a group to a test, in one browser.
 */
const otherPages = Map.groupBy(
  built.filter(
    (page) =>
      page !== "/" &&
      !topPages.includes(page) &&
      !itemPaths.includes(page) &&
      !consoleScreens.includes(page) &&
      withAxe.has(page),
  ),
  // By the folder a page sits in: the services' own pages and their pages for asking
  // about them are two tests, each within its time on a loaded machine.
  (page) => page.split("/").slice(1, -1).join("/") || (page.split("/")[1] ?? ""),
);
/**
 * The pages Chromium reads: the home page, the top-level pages, the first of
 * each page source, the first item of each section, the console's screens.
 */
const read = [
  "/",
  ...topPages,
  ...[...otherPages.values()].flat(),
  ...itemPaths.filter((page) => axeItems.has(page)),
  ...consoleScreens,
];
/**
 * Every other built page: another of a page source Chromium reads the first
 * of (a service's page, an answer, an item), which differs from it in the
 * writing, whose loads the built pages' check reads (scripts/page-loads.ts).
 */
const unread = built.filter((page) => !read.includes(page));
/**
 * The top-level pages axe checks at the narrow width too, one of each layout:
 * the home page has a test of its own; /technical stands for the five section
 * pages (the same tabs, cards, reactions and discussions, another section's
 * items), /about for the profile, /services for the service cards and the
 * enquiry form. /privacy and /terms are prose in the layout every page has,
 * whose header and drawer are checked at 800 px on these pages and in
 * shell.spec.ts. Each other page is checked whole at the desktop width.
 */
const narrowPages = new Set(["/technical", "/about", "/services"]);
/**
 * The item each section page axe reads is checked with open too, whole, as a
 * reader leaves it after opening one (its tab chosen first, where it has
 * tabs), in the visit that reads the page: a visit of its own loaded and
 * hydrated the page again for that alone (/science's open post stands for
 * /mythology's). /technical's is the article whose reactions burst confetti below.
 */
const openItems = new Map<string, { tab?: string; item: string | RegExp }>([
  ["/technical", { tab: "Engines", item: /internal combustion/i }],
  ["/non-technical", { tab: "Soft Skills", item: "Time Management" }],
  ["/mechfusion-ai", { item: /Partial Differential Equations/ }],
  ["/science", { item: /soap/i }],
]);
/** An address the site has no page for: the server answers it with the built 404 page. */
const missing = "/no-such-page";

test.describe("no console error and no CSP violation", () => {
  test("the pages below are of every page source under app/pages, and the server serves the others whole", async ({
    request,
  }) => {
    // The missing address stands for 404.astro, the page it is answered with.
    const visited = [...read, "/404"];
    const unvisited = pageSources()
      .filter(({ paths }) => !visited.some((page) => paths.test(page)))
      .map(({ file }) => file);
    expect(unvisited).toEqual([]);
    // The pages not read here (items, services, answers: each another of a
    // source read here) as the server sends them: found, their placeholders filled.
    expect(unread.length).toBeGreaterThan(0);
    for (const path of unread) {
      const response = await request.get(path);
      expect(response.status(), path).toBe(200);
      expect(await response.text(), path).not.toContain("<ewe-fragment");
    }
  });

  const home = () =>
    test("/: until the confetti has burst and a quote has changed, once each; no serious or critical axe violations", async ({
      page,
    }) => {
      const narrow = isNarrow(page);
      const trouble = await watch(page);
      // Both run every 10 s once the islands are live: Playwright's clock
      // brings the 10 s on, while the burst, drawn in its worker, takes its own time.
      await page.clock.install();
      await readWithAxe(page, "/", { hydrate: hydrateUnderFakeClock });
      // The moving parts are the same at any width: the desktop's width runs them.
      if (!narrow) {
        const quote = page.getByTestId("quote-card").locator("blockquote");
        const first = await quote.textContent();
        await page.setViewportSize(burstWindow);
        await page.clock.runFor(10_000);
        await page.clock.runFor(600);
        await expect(quote).not.toHaveText(first ?? "");
        await burstRunsToTheEnd(page);
      }
      expect(trouble).toEqual([]);
    });
  atBothWidths(home);

  for (const path of topPages) {
    const open = openItems.get(path);
    const axe = !sameLayoutAs.has(path);
    const check = () =>
      test(
        [
          axe
            ? `${path}, and no serious or critical axe violations as served or live`
            : `${path} (axe on ${sameLayoutAs.get(path)}, its layout)`,
          ...(open ? ["and with an item open"] : []),
          ...(path === "/technical"
            ? ["Like and Love burst confetti that is drawn to its end"]
            : []),
        ].join("; "),
        async ({ page }) => {
          const narrow = isNarrow(page);
          const trouble = await watch(page);
          await readWithAxe(page, path, { axe });
          // In the same visit, at the desktop's width: the same at any.
          if (open && !narrow) {
            if (open.tab) await page.getByRole("tab", { name: open.tab }).click();
            const button = page.getByRole("button", { name: open.item }).first();
            await button.click();
            await expect(button).toHaveAttribute("aria-expanded", "true");
            expect(await seriousViolations(page), `${path} with an item open`).toEqual([]);
          }
          if (path === "/technical" && !narrow) {
            // The article opened above.
            await page.setViewportSize(burstWindow);
            const article = page.locator("#ice-blog");
            for (const reaction of [/^Like \d/, /^Love \d/]) {
              await article.getByRole("button", { name: reaction }).click();
              await burstRunsToTheEnd(page);
            }
          }
          expect(trouble).toEqual([]);
        },
      );
    if (narrowPages.has(path)) atBothWidths(check);
    else check();
  }

  for (const [segment, paths] of otherPages) {
    test(paths.length > 1 ? `the pages under /${segment}` : paths.join(""), async ({ page }) => {
      const trouble = await watch(page);
      for (const path of paths) {
        await readToItsEnd(page, path);
        expect(trouble, path).toEqual([]);
        await axeClean(page, path);
      }
    });
  }

  test(`${missing}: the 404 page, and the home page it sends the reader on to`, async ({
    page,
    baseURL,
  }) => {
    const trouble = await watch(page);
    // The page moves on at once: its answer is all there is to wait for.
    const response = await page.goto(missing, { waitUntil: "commit" });
    expect(response?.status()).toBe(404);
    await page.waitForURL(`${baseURL}/`);
    await liveAndLoaded(page);
    // Chromium reports the status it was answered with: that one line is the point, not a fault.
    const answered = `console error: Failed to load resource: the server responded with a status of 404 (Not Found) (${baseURL}${missing})`;
    expect(trouble).toEqual([answered]);
  });

  // The first item's own page of each section (`axeItems`), and in the same
  // visit axe and its headings' levels once live.
  for (const path of itemPaths.filter((item) => axeItems.has(item))) {
    test(`${path}, the first item page of its section: axe clean, its headings in order`, async ({
      page,
    }) => {
      const trouble = await watch(page);
      await readToItsEnd(page, path);
      expect(trouble, path).toEqual([]);
      await axeClean(page, path);
      expect(await headingSkips(page), path).toEqual([]);
    });
  }
});

test.describe("no console error and no CSP violation in the owner's console", () => {
  let own: OwnSite;
  test.beforeAll(async () => {
    // Something on each screen: an edition to preview, a held comment, a ban.
    const editions = mkdtempSync(path.join(os.tmpdir(), "ewe-clean-console-editions-"));
    writeFileSync(
      path.join(editions, "2026-12-brakes.md"),
      "---\nsubject: Brakes in December\n---\nRegenerative braking, **simply**.\n",
    );
    own = await startOwnSite("clean-console", {
      host: "localhost",
      env: { MODERATION: "all", EDITIONS_DIR: editions },
    });
    const reader = await http.newContext();
    const held = await postTo(reader, own, "soap", {
      content: "Why does soap lather less in hard water?",
      userName: "Asha",
    });
    await reader.dispose();
    ownerCli(own, "visitor", "ban", "--comment", String(held.id), "--days", "2");
  });
  test.afterAll(async () => {
    await own?.stop();
  });

  // Every screen in one browser, after one sign-in, one after another: a
  // sign-in is a run of the command line and two page loads, and a browser
  // of its own for each screen checked nothing more
  // (docs/decisions/028-how-the-suite-stays-fast.md). What each logs is kept
  // apart, so a failure names its screen.
  test(`signing in, then each of the console's ${consoleScreens.length} screens`, async ({
    page,
  }) => {
    test.slow();
    const trouble = await watch(page);
    const logged: Record<string, Trouble> = {};
    /** What was logged since the last screen. */
    let seen = 0;
    const since = () => {
      const lines = trouble.slice(seen);
      seen = trouble.length;
      return lines;
    };
    await signInWith(page, ownerCli(own, "login").trim());
    await liveAndLoaded(page);
    logged["signing in"] = since();
    for (const screen of consoleScreens) {
      await page.goto(`${own.siteUrl}${screen}`);
      await expect(page.getByRole("navigation", { name: "Console" }), screen).toBeVisible();
      await expect(page.getByRole("heading", { level: 1 }), screen).toBeVisible();
      await expect(page.getByText("Loading…"), screen).toHaveCount(0);
      await liveAndLoaded(page);
      logged[screen] = since();
      // Some screens are checked in the states their own specs put them in; here each is, as it opens.
      await axeClean(page, screen);
    }
    expect(Object.entries(logged).filter(([, lines]) => lines.length > 0)).toEqual([]);
  });
});
