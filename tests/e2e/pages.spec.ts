import type { Locator } from "@playwright/test";
import { seriousViolations } from "./support/axe.ts";
import { atBothWidths, expect, test } from "./support/fixtures.ts";
import { hydrateUnderFakeClock, islandsHydrated } from "./support/islands.ts";

test.describe("prerendered HTML, before any JavaScript", () => {
  const expectations: Record<string, string[]> = {
    "/": ["<h1", "Explore"],
    // The owner's profile (content/owner.md) heads About.
    "/about": [
      "About Me",
      "DFMEA",
      "Arjun Rao",
      "years of practice, since 2005",
      "Pune, India",
      "Its engineer is invented",
    ],
    "/technical": ["Introduction", "Fuel Cells", "common-rail", "four-stroke cycle"],
    "/non-technical": ["Professional Growth", "Soft Skills", "Time Management", "Initiation"],
    "/mythology": ["Ramayana", "Mahabharata", "Garuda", "Bharata"],
    // The articles have no LinkedIn posts of their own: each leads to the owner's profile.
    "/mechfusion-ai": [
      "AI in Mechanical Engineering",
      "Find me on LinkedIn",
      "ends with a link to my LinkedIn profile",
    ],
    "/science": [
      "cotton 180–200°C",
      "linen 200–230°C",
      "silk 120–150°C",
      "polyester 110–135°C",
      "nylon 100–120°C",
    ],
    "/services": ["Chat with Me", "DFMEA", "Tolerance"],
  };

  // One test, a step per page: a test of its own per page cost more in the
  // runner than the request it makes.
  test("each top-level page carries its text, hidden parts included, and its meta tags", async ({
    request,
    baseURL,
  }) => {
    for (const [path, snippets] of Object.entries(expectations)) {
      await test.step(path, async () => {
        const response = await request.get(path);
        expect(response.status()).toBe(200);
        const html = await response.text();
        for (const snippet of snippets) expect(html).toContain(snippet);
        expect(html).toMatch(/<title>[^<]+<\/title>/);
        expect(html).toMatch(/<meta name="description" content="[^"]{40,}"/);
        expect(html).toContain(`<link rel="canonical" href="${baseURL}${path}"`);
        expect(html).toContain('property="og:title"');
        expect(html).toContain('name="twitter:card"');
      });
    }
  });

  test("sitemap.xml and robots.txt list the site", async ({ request, baseURL }) => {
    const sitemap = await (await request.get("/sitemap.xml")).text();
    for (const path of ["/", "/about", "/technical", "/science", "/services"]) {
      expect(sitemap).toContain(`<loc>${baseURL}${path}</loc>`);
    }
    const robots = await (await request.get("/robots.txt")).text();
    expect(robots).toContain(`Sitemap: ${baseURL}/sitemap.xml`);
  });
});

test.describe("home", () => {
  test("the first picture stands level with the headline; each Explore tile is a link to the page it describes; the quotes rotate and confetti bursts every 10 s, only on the home page", async ({
    page,
  }) => {
    await page.clock.install();
    await page.goto("/");
    // At this width the first picture stands beside the headline, level with it, all of it in
    // the first screen (not centred beside the long welcome text, half a screen down).
    const headline = await page.getByRole("heading", { level: 1 }).boundingBox();
    const picture = await page.getByRole("img", { name: /large gear meshes/ }).boundingBox();
    if (!headline || !picture) throw new Error("the headline or the first picture has no box");
    expect(picture.x).toBeGreaterThan(headline.x + headline.width);
    expect(Math.abs(picture.y - headline.y)).toBeLessThan(24);
    expect(picture.y + picture.height).toBeLessThanOrEqual(page.viewportSize()?.height ?? 0);
    const explore = page.getByRole("region", { name: "Explore" });
    const tiles = [
      { name: "Mechanical engineering, from sketch to shop floor", path: "/services" },
      { name: "Electric and fuel-cell vehicles", path: "/technical" },
      { name: "AI chatbots and voicebots that earn their keep", path: "/mechfusion-ai" },
      { name: "Motivation from the Ramayana and the Mahabharata", path: "/mythology" },
      { name: "Science hiding in everyday life", path: "/science" },
    ];
    for (const tile of tiles) {
      await expect(explore.getByRole("link", { name: tile.name })).toHaveAttribute(
        "href",
        tile.path,
      );
    }
    // The welcome names pages and pieces a reader will want next: each is a link to it.
    const main = page.getByRole("main");
    for (const [name, path] of [
      ["2,000 bar of injection pressure", "/technical/fuel-injection-blog"],
      ["fuel-cell stack", "/technical/fuel-cell-vehicles"],
      ["Services page", "/services"],
      ["Science in Everyday", "/science"],
      ["retells stories from the Ramayana and the Mahabharata", "/mythology"],
    ] as const) {
      await expect(main.getByRole("link", { name, exact: true })).toHaveAttribute("href", path);
    }
    // The timers start once the islands have hydrated.
    await hydrateUnderFakeClock(page);
    const card = page.getByTestId("quote-card");
    // The quote stands as far from the welcome above as from Explore below.
    const [welcome, quote, below] = await Promise.all(
      [page.locator("main section").first(), card, explore].map((part) => part.boundingBox()),
    );
    if (!welcome || !quote || !below) throw new Error("a part of the home page has no box");
    expect(below.y - (quote.y + quote.height)).toBe(quote.y - (welcome.y + welcome.height));
    const first = await card.locator("blockquote").textContent();
    await expect(page.locator("canvas")).toHaveCount(0);
    await page.clock.runFor(10_100);
    await expect(page.locator("canvas")).toHaveCount(1);
    await page.clock.runFor(500);
    await expect(card.locator("blockquote")).not.toHaveText(first ?? "");

    // The whole tile is the target, not only its title; the page it leads to bursts no confetti.
    const science = explore.getByRole("listitem").filter({ hasText: tiles[4]?.name ?? "" });
    await science.scrollIntoViewIfNeeded();
    const box = await science.boundingBox();
    if (!box) throw new Error("the tile is not on screen");
    await page.mouse.click(box.x + box.width / 2, box.y + box.height - 8);
    await expect(page).toHaveURL(/\/science$/);
    await expect(
      page.getByRole("heading", { level: 1, name: "Science in Everyday" }),
    ).toBeVisible();
    await page.clock.runFor(20_000);
    const drawing = await page.evaluate(() => {
      const canvas = document.querySelector("canvas");
      return canvas ? getComputedStyle(canvas).display !== "none" && canvas.width > 0 : false;
    });
    expect(drawing).toBe(false);
  });

  test("no confetti under prefers-reduced-motion", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.clock.install();
    await page.goto("/");
    // The timers start once the islands have hydrated.
    await hydrateUnderFakeClock(page);
    await page.clock.runFor(30_000);
    await expect(page.locator("canvas")).toHaveCount(0);
  });
});

test.describe("technical", () => {
  test("starts on Introduction; Engines articles open independently; Electric Vehicles and Fuel Cells have their articles and links", async ({
    page,
  }) => {
    await page.goto("/technical");
    await expect(page.getByRole("tab", { name: "Introduction" })).toHaveAttribute(
      "aria-selected",
      "true",
    );
    // The section's reactions are a fixed thank-you, on the Engines articles alone: the
    // introduction asks for none, since nobody would hear it.
    await expect(page.getByRole("tabpanel", { name: "Introduction" })).not.toContainText(
      /reaction/i,
    );
    await page.getByRole("tab", { name: "Engines" }).click();
    const panel = page.getByRole("tabpanel");
    const cards = panel.locator(".card");
    await expect(cards).toHaveCount(3);
    const first = cards.nth(0).getByRole("button").first();
    const second = cards.nth(1).getByRole("button").first();
    await first.click();
    await second.click();
    await expect(first).toHaveAttribute("aria-expanded", "true");
    await expect(second).toHaveAttribute("aria-expanded", "true");
    await first.click();
    await expect(first).toHaveAttribute("aria-expanded", "false");
    await expect(second).toHaveAttribute("aria-expanded", "true");
    await expect(panel.getByRole("link", { name: /opens in a new tab/ }).first()).toHaveAttribute(
      "target",
      "_blank",
    );
    for (const tab of ["Electric Vehicles", "Fuel Cells"]) {
      await page.getByRole("tab", { name: tab }).click();
      await expect(panel.locator(".card")).toHaveCount(1);
      await expect(panel.getByRole("link", { name: /opens in a new tab/ }).first()).toBeVisible();
    }
  });

  test("shows the static counts; like and love thank the reader for 2 s", async ({ page }) => {
    await page.goto("/technical");
    await page.getByRole("tab", { name: "Engines" }).click();
    const article = page.locator("#ice-blog");
    await article.getByRole("button").first().click();
    await expect(article.getByRole("button", { name: "Like 42" })).toBeVisible();
    await expect(article.getByRole("button", { name: "Love 18" })).toBeVisible();
    await expect(article.getByRole("button", { name: "Dislike 2" })).toBeVisible();
    await expect(article.getByRole("button", { name: "Idea 7" })).toBeVisible();
    await article.getByRole("button", { name: "Dislike 2" }).click();
    await expect(page.getByText("Thank you for your reaction!")).toHaveCount(0);
    await article.getByRole("button", { name: "Love 18" }).click();
    // A toast under the pointer waits for it to leave (sonner pauses on hover).
    await page.mouse.move(0, 0);
    await expect(page.getByText("Thank you for your reaction!")).toBeVisible();
    // It leaves by itself; how long it stays is sonner's `duration`, which a
    // loaded machine stretches, so the test only waits for it to go.
    await expect(page.getByText("Thank you for your reaction!")).toBeHidden();
    await expect(article.getByRole("button", { name: "Love 18" })).toBeVisible();

    const fuel = page.locator("#fuel-injection-blog");
    await fuel.getByRole("button").first().click();
    await expect(fuel.getByRole("button", { name: "Like 35" })).toBeVisible();
    const emissions = page.locator("#emissions-blog");
    await emissions.getByRole("button").first().click();
    await expect(emissions.getByRole("button", { name: "Idea 11" })).toBeVisible();
  });

  test("the keyboard reaches the selected tab, and arrows switch tabs", async ({ page }) => {
    await page.goto("/technical");
    await islandsHydrated(page);
    await page.getByRole("heading", { level: 1, name: "Technical" }).click();
    const introduction = page.getByRole("tab", { name: "Introduction" });
    for (let step = 0; step < 20; step++) {
      await page.keyboard.press("Tab");
      if (await introduction.evaluate((tab) => tab === document.activeElement)) break;
    }
    await expect(introduction).toBeFocused();
    await page.keyboard.press("ArrowRight");
    await expect(page.getByRole("tab", { name: "Engines" })).toBeFocused();
    await expect(page.getByRole("tab", { name: "Engines" })).toHaveAttribute(
      "aria-selected",
      "true",
    );
    await page.keyboard.press("Tab");
    await expect(page.getByRole("tabpanel")).toBeFocused();
  });
});

test.describe("non-technical", () => {
  test("growth cards open their links in a new tab; soft skills: ten topics, one open at a time; a link to #time-management opens that topic and scrolls to it", async ({
    page,
  }) => {
    await page.goto("/non-technical");
    await expect(page.getByRole("tab", { name: "Professional Growth" })).toHaveAttribute(
      "aria-selected",
      "true",
    );
    const links = page.getByRole("tabpanel").getByRole("link", { name: /opens in a new tab/ });
    await expect(links).toHaveCount(3);
    for (const link of await links.all()) {
      await expect(link).toHaveAttribute("target", "_blank");
      await expect(link).toHaveAttribute("rel", /noopener/);
    }
    // Each card also leads to the write-up's own page, in the same tab.
    const own = page.getByRole("tabpanel").getByRole("link", { name: /^Open as a page/ });
    await expect(own).toHaveCount(3);
    await expect(own.first()).toHaveAttribute("href", "/non-technical/career-planning");
    await expect(own.first()).not.toHaveAttribute("target", "_blank");

    await page.getByRole("tab", { name: "Soft Skills" }).click();
    const panel = page.getByRole("tabpanel");
    await expect(panel.locator(".card")).toHaveCount(10);
    const communication = panel.getByRole("button", { name: "Communication" });
    const teamwork = panel.getByRole("button", { name: "Teamwork" });
    await communication.click();
    await teamwork.click();
    await expect(teamwork).toHaveAttribute("aria-expanded", "true");
    await expect(communication).toHaveAttribute("aria-expanded", "false");
    await expect(page.locator("#attention-to-details")).toHaveCount(1);

    await page.goto("/non-technical#time-management");
    const button = page.getByRole("button", { name: "Time Management" });
    await expect(button).toHaveAttribute("aria-expanded", "true");
    await expect(button).toBeInViewport();
  });
});

test.describe("stories, AI and science", () => {
  atBothWidths(() => {
    test("mythology: six stories, one open at a time, 300 px image area", async ({ page }) => {
      await page.goto("/mythology");
      await expect(page.locator("main .card")).toHaveCount(6);
      const garuda = page.getByRole("button", { name: /Garuda/ });
      const rama = page.getByRole("button", { name: /Rama's Duty/ });
      await garuda.click();
      const image = page.locator("#garuda img");
      await expect(image).toBeVisible();
      expect((await image.locator("..").boundingBox())?.height).toBe(300);
      await rama.click();
      await expect(garuda).toHaveAttribute("aria-expanded", "false");
      await expect(rama).toHaveAttribute("aria-expanded", "true");
    });
  });

  test("MechFusionAI: three articles, each with the LinkedIn link its intro promises", async ({
    page,
  }) => {
    await page.goto("/mechfusion-ai");
    await expect(page.getByRole("heading", { name: "AI in Mechanical Engineering" })).toBeVisible();
    await expect(page.locator("main .card")).toHaveCount(3);
    await expect(page.getByText("ends with a link to my LinkedIn profile")).toBeVisible();
    // The title opens the card, whether the island is live yet or still <details>.
    await page.locator("main .card").first().locator("summary, [data-trigger]").first().click();
    const link = page.getByRole("link", { name: /Find me on LinkedIn/ }).first();
    await expect(link).toBeVisible();
    await expect(link).toHaveAttribute(
      "href",
      "https://www.linkedin.com/in/engage-with-engineer-test",
    );
  });

  atBothWidths(() => {
    test("science: deep link opens the pressure cooker with its 400 px hero; list cards carry the byline, the day and the reading time", async ({
      page,
    }) => {
      await page.goto("/science#pressure-cooker");
      await expect(
        page
          .locator("#pressure-cooker")
          .getByText(
            /^By Arjun Rao \(the sample author that comes with the site\) · Nov 22, 2026 · \d+ min read$/,
          ),
      ).toBeVisible();
      const button = page.getByRole("button", { name: /pressure cooker/i });
      await expect(button).toHaveAttribute("aria-expanded", "true");
      await expect(button).toBeInViewport();
      expect((await page.locator("#pressure-cooker img").locator("..").boundingBox())?.height).toBe(
        400,
      );
      await page.getByRole("button", { name: /iron/i }).click();
      await expect(button).toHaveAttribute("aria-expanded", "false");
      await expect(page.getByText("cotton 180–200°C")).toBeVisible();
    });
  });
});

test.describe("services", () => {
  test("nine services, the contact address and the chat area", async ({ page }) => {
    await page.goto("/services");
    await expect(page.locator("main ul > li[id]")).toHaveCount(9);
    await expect(page.getByRole("link", { name: "owner@example.com" }).first()).toHaveAttribute(
      "href",
      "mailto:owner@example.com",
    );
    await expect(page.getByRole("heading", { name: "Chat with Me" })).toBeVisible();
    // A fresh install's chat is the site's own assistant (tests/e2e/assistant.spec.ts).
    await expect(page.getByRole("log", { name: "Conversation" })).toBeVisible();
  });
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true });

  /** Every one of `buttons` at least 44 by 44 px, the size of a fingertip. */
  async function expectTouchTargets(buttons: Locator) {
    await expect(buttons).toHaveCount(4);
    const boxes = await buttons.evaluateAll((all) =>
      all.map((button) => {
        const { width, height } = button.getBoundingClientRect();
        return { width, height };
      }),
    );
    for (const box of boxes) {
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.width).toBeGreaterThanOrEqual(44);
    }
  }

  test("the header's menu toggle and Search, and the drawer's close button, are touch targets of at least 44 by 44 px", async ({
    page,
  }) => {
    await page.goto("/science");
    const header = page.locator("#site-header");
    const headerBox = await header.boundingBox();
    const toggle = header.getByRole("button", { name: "Toggle menu" });
    // A button or a link: what matters is its name and its size.
    const search = header
      .getByRole("button", { name: "Search", exact: true })
      .or(header.getByRole("link", { name: "Search", exact: true }));
    for (const control of [toggle, search]) {
      const box = await control.boundingBox();
      if (!box || !headerBox) throw new Error("the header or a control in it is not shown");
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.width).toBeGreaterThanOrEqual(44);
      // Still inside the header bar, and on the screen.
      expect(box.y).toBeGreaterThanOrEqual(headerBox.y);
      expect(box.y + box.height).toBeLessThanOrEqual(headerBox.y + headerBox.height);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await toggle.tap();
    const close = page.getByRole("dialog", { name: "Menu" }).getByRole("button", {
      name: "Close menu",
    });
    await expect(close).toBeVisible();
    // Measured once the drawer has come to rest: while it slides or fades in
    // (a transition that may not have started when the button first shows),
    // its transform can leave the button a fraction of a pixel short.
    const size = () =>
      close.evaluate((button) => {
        const { width, height } = button.getBoundingClientRect();
        return Math.min(width, height);
      });
    await expect.poll(size, { timeout: 5_000 }).toBeGreaterThanOrEqual(44);
  });

  test("reaction buttons are touch targets of at least 44 by 44 px", async ({ page }) => {
    await page.goto("/technical");
    await page.getByRole("tab", { name: "Engines" }).click();
    const article = page.locator("#ice-blog");
    await article.getByRole("button").first().click();
    await expectTouchTargets(article.getByRole("button", { name: /^(Like|Love|Dislike|Idea) \d/ }));

    await page.goto("/mythology/garuda");
    const reactions = page.getByRole("region", { name: /^Reactions/ });
    await reactions.scrollIntoViewIfNeeded();
    // The live buttons, once their counts are read: the served ones they replace show a dash.
    await expectTouchTargets(
      reactions.getByRole("button", { name: /^(Like|Love|Dislike|Idea) \d/ }),
    );
  });

  test("a table wider than the phone scrolls sideways in its own box, not the whole page", async ({
    page,
  }) => {
    // Four columns of words, a few pixels too wide for 390 px.
    await page.goto("/non-technical/adaptability");
    const table = page.getByRole("main").getByRole("table");
    await expect(table).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    const lastColumn = table.getByRole("columnheader", { name: "Extra cost" });
    await lastColumn.scrollIntoViewIfNeeded();
    const box = await lastColumn.boundingBox();
    expect(box && box.x + box.width).toBeLessThanOrEqual(390);
    // The text around it stayed where it was.
    expect(await page.evaluate(() => window.scrollX)).toBe(0);
    // And a keyboard reaches what scrolls.
    expect(await seriousViolations(page, ".table-scroll")).toEqual([]);
  });
});

test.describe("feeds", () => {
  test("the footer and each section link to their feeds, and the feeds answer", async ({
    page,
    request,
  }) => {
    await page.goto("/");
    const footer = page.locator("footer");
    // Each is named as a reader reads it: "feed" once, never "JSON Feed feed".
    const siteFeeds = [
      { name: "RSS", named: "RSS feed", href: "/rss.xml", type: /xml/ },
      { name: "Atom", named: "Atom feed", href: "/atom.xml", type: /xml/ },
      { name: "JSON Feed", named: "JSON Feed", href: "/feed.json", type: /json/ },
    ];
    for (const feed of siteFeeds) {
      await expect(footer.getByRole("link", { name: feed.name, exact: true })).toHaveAttribute(
        "href",
        feed.href,
      );
    }
    const sections = [
      { path: "/technical", name: "Technical" },
      { path: "/non-technical", name: "Non Technical" },
      { path: "/mythology", name: "Mythological Inspirations" },
      { path: "/mechfusion-ai", name: "MechFusionAI" },
      { path: "/science", name: "Science in Everyday" },
    ];
    for (const section of sections) {
      await page.goto(section.path);
      const main = page.getByRole("main");
      await expect(main.getByText(`New in ${section.name}, by feed:`)).toBeVisible();
      for (const feed of siteFeeds) {
        const link = main.getByRole("link", {
          name: `${feed.named} of ${section.name}`,
          exact: true,
        });
        await expect(link).toBeVisible();
        const href = (await link.getAttribute("href")) ?? "";
        expect(href).toBe(`${section.path}${feed.href}`);
        // The head announces it under the same name, and the site's beside it.
        await expect(page.locator(`head link[rel=alternate][href="${href}"]`)).toHaveAttribute(
          "title",
          `${feed.named} of Engage with Engineer: ${section.name}`,
        );
        await expect(page.locator(`head link[rel=alternate][href="${feed.href}"]`)).toHaveAttribute(
          "title",
          `${feed.named} of Engage with Engineer`,
        );
        const answer = await request.get(href);
        expect(answer.status(), href).toBe(200);
        expect(answer.headers()["content-type"], href).toMatch(feed.type);
      }
    }
  });
});
