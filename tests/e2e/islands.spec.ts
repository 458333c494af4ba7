import type { Page } from "@playwright/test";
import { atNarrowWidth, expect, test } from "./support/fixtures.ts";
import { islandsHydrated, pointerOnText } from "./support/islands.ts";

/*
 * Pages are HTML first: everything a page says is there without JavaScript,
 * and the islands that take over once it runs lose nothing a reader did
 * before they hydrated (docs/product.md, "Without JavaScript").
 */

const routes: { path: string; heading: string | RegExp; text: string }[] = [
  { path: "/", heading: /./, text: "Explore" },
  { path: "/about", heading: "About Me", text: "DFMEA" },
  { path: "/technical", heading: "Technical", text: "The four-stroke cycle" },
  { path: "/non-technical", heading: "Non Technical", text: "Time Management" },
  { path: "/mythology", heading: "Mythological Inspirations", text: "From the Ramayana" },
  { path: "/mechfusion-ai", heading: /MechFusion/, text: "AI in Mechanical Engineering" },
  { path: "/science", heading: "Science in Everyday", text: "Questions and answers" },
  { path: "/services", heading: "Services", text: "Chat with Me" },
  { path: "/privacy", heading: "Privacy Policy", text: "What is stored" },
  { path: "/terms", heading: "Terms of Service", text: "Comments and reactions" },
];

const uniqueEmail = () => `plain-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;

test.describe("with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });

  test("every route shows its heading and its text, and an unknown address still ends at the home page", async ({
    page,
  }) => {
    for (const route of routes) {
      await page.goto(route.path);
      await expect(page.getByRole("heading", { level: 1, name: route.heading })).toBeVisible();
      await expect(page.getByText(route.text, { exact: false }).first()).toBeVisible();
      await expect(page.getByRole("navigation", { name: "Footer" })).toBeVisible();
    }
    // The handle to follow is a word of its own in its sentence.
    await page.goto("/about");
    await expect(page.getByText(/search for @\w+@\S+ and follow it/)).toBeVisible();
    await page.goto("/no/such/page");
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  });

  // The pages' parts in one browser: without JavaScript a page costs little,
  // and a test's own browser more than its loads.
  test("cards open and close, Technical's articles independently, every tab panel is on the page under its own heading, and a deep link opens its item", async ({
    page,
  }) => {
    await test.step("a card opens and closes, and opening another closes it", async () => {
      await page.goto("/science");
      const soap = page.locator("details", { has: page.locator("#soap") });
      const wifi = page.locator("details", { has: page.locator("#wifi") });
      await expect(soap).not.toHaveAttribute("open");
      await soap.locator("summary").click();
      await expect(soap).toHaveAttribute("open");
      await expect(soap.locator("img")).toBeVisible();
      await wifi.locator("summary").click();
      await expect(wifi).toHaveAttribute("open");
      await expect(soap).not.toHaveAttribute("open");
      await wifi.locator("summary").click();
      await expect(wifi).not.toHaveAttribute("open");
    });

    await test.step("every tab panel is on the page; Technical articles open independently", async () => {
      await page.goto("/technical");
      for (const name of ["Introduction", "Engines", "Electric Vehicles", "Fuel Cells"]) {
        await expect(page.getByRole("heading", { level: 2, name, exact: true })).toBeVisible();
      }
      await expect(page.getByRole("tab")).toHaveCount(0);
      const summaries = page.locator("details summary");
      await summaries.nth(0).click();
      await summaries.nth(1).click();
      await expect(page.locator("details[open]")).toHaveCount(2);
    });

    await test.step("a deep link opens its item", async () => {
      await page.goto("/science#pressure-cooker");
      const card = page.locator("details", { has: page.locator("#pressure-cooker") });
      await expect(card).toHaveAttribute("open");
      await expect(card.locator("img")).toBeInViewport();
      await page.goto("/non-technical#time-management");
      await expect(
        page.locator("details", { has: page.locator("#time-management") }),
      ).toHaveAttribute("open");
      await expect(page.getByRole("heading", { level: 2, name: "Soft Skills" })).toBeVisible();
      await expect(page.getByText("Time Management", { exact: true })).toBeVisible();
    });
  });

  test("the newsletter form subscribes in two steps, refusing a second step taken at once", async ({
    page,
  }) => {
    const email = uniqueEmail();
    await page.goto("/about");
    await page.getByRole("textbox", { name: "Email address" }).fill(email);
    // The server starts its 2 s when it answers the first press: after `pressed`,
    // before `answered`.
    const pressed = Date.now();
    await page.getByRole("button", { name: "Subscribe" }).click();
    await expect(page).toHaveURL(/\/newsletter\/continue\?ticket=/);
    const answered = Date.now();
    const continueUrl = page.url();
    await expect(page.getByRole("heading", { name: "One more step" })).toBeVisible();
    if (Date.now() - pressed < 1500) {
      await page.getByRole("main").getByRole("button", { name: "Subscribe" }).click();
      await expect(page).toHaveURL(/\/newsletter\/(too-fast|thanks)$/);
      if (page.url().endsWith("/thanks")) {
        // On a loaded machine the click itself can land after the 2 s: then
        // the server was right to take it, and must have waited them out.
        expect(Date.now() - pressed).toBeGreaterThanOrEqual(2000);
        await expect(page.getByRole("status")).toHaveText(/Check your inbox/);
        return;
      }
      await page.goto(continueUrl);
    }
    // The server counts 2 s from the first press; wait for that moment to have passed.
    await expect.poll(() => Date.now() - answered, { intervals: [250] }).toBeGreaterThan(2100);
    await page.getByRole("main").getByRole("button", { name: "Subscribe" }).click();
    await expect(page).toHaveURL(/\/newsletter\/thanks$/);
    await expect(page.getByRole("status")).toHaveText(/Check your inbox/);
  });
});

/** Holds the islands' JavaScript until `release` is called: a slow connection. */
async function slowIslands(page: Page) {
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/assets\/.*\.js$/, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

test.describe("before the islands hydrate", () => {
  test("a card clicked right after load opens, and stays open once live", async ({ page }) => {
    const release = await slowIslands(page);
    await page.goto("/mythology", { waitUntil: "load" });
    const garuda = page.locator("details", { has: page.locator("#garuda") });
    await garuda.locator("summary").click();
    await expect(garuda).toHaveAttribute("open");
    release();
    await islandsHydrated(page);
    await expect(page.getByRole("button", { name: /Garuda/ })).toHaveAttribute(
      "aria-expanded",
      "true",
    );
    await expect(page.getByRole("button", { name: /^Like \d+$/ })).toBeVisible();
  });

  test("a tab clicked before hydration is selected once it is live", async ({ page }) => {
    const release = await slowIslands(page);
    await page.goto("/technical", { waitUntil: "load" });
    await page.getByRole("tab", { name: "Fuel Cells" }).click();
    release();
    await expect(page.getByRole("tab", { name: "Fuel Cells" })).toHaveAttribute(
      "aria-selected",
      "true",
    );
    await expect(page.getByRole("tabpanel")).toContainText(/fuel cell/i);
  });

  test("a service page's suggested question pressed before the chat is live is asked on the page", async ({
    page,
  }) => {
    const release = await slowIslands(page);
    await page.goto("/services/dfmea", { waitUntil: "load" });
    const log = page.getByRole("log", { name: "Conversation" });
    await log.getByRole("button", { name: "What does the DFMEA service include?" }).click();
    release();
    await expect(log).toContainText("You asked: What does the DFMEA service include?");
    await expect(log.getByRole("link", { name: "Book a call" })).toBeVisible();
    await expect(page).toHaveURL(/\/services\/dfmea$/);

    // Should the chat's script never come, the press goes on to the answer page after all.
    await page.unrouteAll();
    await page.route(/\/assets\/.*\.js$/, (route) => route.abort());
    await page.reload({ waitUntil: "load" });
    await log.getByRole("button", { name: "What does the DFMEA service include?" }).click();
    await expect(page).toHaveURL(/\/services\/assistant$/);
    await expect(page.getByRole("link", { name: /^Back to .*DFMEA/ })).toBeVisible();
  });

  atNarrowWidth(() => {
    test("the menu opens on the first tap, while no island's script has arrived", async ({
      page,
    }) => {
      const release = await slowIslands(page);
      await page.goto("/about", { waitUntil: "load" });
      const toggle = page.getByRole("button", { name: "Toggle menu" });
      await expect(toggle).toHaveAttribute("aria-expanded", "false");
      await toggle.click();
      // The drawer is HTML: nothing waits for a script.
      await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
      await expect(page.locator('button[aria-label="Toggle menu"]')).toHaveAttribute(
        "aria-expanded",
        "true",
      );
      await page.keyboard.press("Escape");
      await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
      await expect(toggle).toBeFocused();
      release();
    });
  });

  test("a page of text fetches no script until the reader reaches for the header", async ({
    page,
  }) => {
    await pointerOnText(page);
    const scripts: string[] = [];
    page.on("request", (request) => {
      if (request.resourceType() === "script") scripts.push(request.url());
    });
    await page.goto("/about", { waitUntil: "load" });
    // Islands that hydrate when idle would have started by the second idle period.
    await page.evaluate(
      () =>
        new Promise((done) =>
          requestIdleCallback(() => requestIdleCallback(done, { timeout: 3000 }), {
            timeout: 3000,
          }),
        ),
    );
    await page.waitForLoadState("networkidle");
    expect(scripts).toEqual([]);

    await page.getByRole("banner").getByRole("button", { name: "Search", exact: true }).hover();
    await expect(page.locator("astro-island[ssr]:has([data-search-launcher])")).toHaveCount(0);
    expect(scripts.length).toBeGreaterThan(0);
  });

  test("no framework JavaScript is fetched before the page has loaded", async ({ page }) => {
    await pointerOnText(page);
    const early: string[] = [];
    let loaded = false;
    page.on("load", () => {
      loaded = true;
    });
    page.on("request", (request) => {
      if (!loaded && request.resourceType() === "script") early.push(request.url());
    });
    await page.goto("/science", { waitUntil: "load" });
    expect(early).toEqual([]);
    await islandsHydrated(page);
  });
});
