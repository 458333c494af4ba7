import type { Page } from "@playwright/test";
import { atBothWidths, atNarrowWidth, expect, isNarrow, test } from "./support/fixtures.ts";
import { islandsHydrated } from "./support/islands.ts";

const routes = [
  { label: "Home", path: "/" },
  { label: "About Me", path: "/about" },
  { label: "Technical", path: "/technical" },
  { label: "Non Technical", path: "/non-technical" },
  { label: "Mythological Inspirations", path: "/mythology" },
  { label: "MechFusionAI", path: "/mechfusion-ai" },
  { label: "Science in Everyday", path: "/science" },
  { label: "Services", path: "/services" },
];

const mainNav = (page: Page) => page.getByRole("navigation", { name: "Main" });

test.describe("header", () => {
  // The marquee as every reader's page runs it; other specs hold it still.
  test.use({ movingMarquee: true });

  test("shows the marquee words, moving unless motion is reduced, and turns opaque after 50 px of scrolling", async ({
    page,
  }) => {
    await page.goto("/about");
    const header = page.locator("header").first();
    for (const word of ["Engage", "with", "Engineer"]) {
      await expect(header.getByText(word, { exact: true })).toBeAttached();
    }
    const track = header.locator(".marquee-track");
    const animation = () =>
      track.evaluate((el) => {
        const style = getComputedStyle(el);
        return {
          name: style.animationName,
          duration: style.animationDuration,
          timing: style.animationTimingFunction,
        };
      });
    expect(await animation()).toEqual({ name: "marquee", duration: "15s", timing: "linear" });
    const withColour = await header
      .getByText("with", { exact: true })
      .evaluate((el) => getComputedStyle(el).color);
    expect(withColour).toBe("rgb(34, 197, 94)");

    await islandsHydrated(page);
    const scrolled = page.locator("header[data-scrolled]");
    await expect(scrolled).toHaveAttribute("data-scrolled", "false");
    await expect(scrolled).toHaveCSS("background-color", "rgba(0, 0, 0, 0)");
    await page.evaluate(() => window.scrollTo(0, 40));
    await expect(scrolled).toHaveAttribute("data-scrolled", "false");
    await page.evaluate(() => window.scrollTo(0, 200));
    await expect(scrolled).toHaveAttribute("data-scrolled", "true");
    await expect(scrolled).not.toHaveCSS("background-color", "rgba(0, 0, 0, 0)");
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(scrolled).toHaveAttribute("data-scrolled", "false");

    // A reader who asks for less motion: the marquee stops.
    await page.emulateMedia({ reducedMotion: "reduce" });
    await expect.poll(async () => (await animation()).name).toBe("none");
  });

  atBothWidths(() => {
    test("the marquee stops under the pointer, under the focus, and for good by its pause button, which the keyboard reaches", async ({
      page,
      visitor,
    }) => {
      await page.goto("/about");
      const header = page.locator("header").first();
      const track = header.locator(".marquee-track");
      const playing = () => track.evaluate((el) => getComputedStyle(el).animationPlayState);
      const pause = header.getByRole("button", { name: "Pause the moving title" });
      await islandsHydrated(page);
      await expect(pause).toHaveAttribute("aria-pressed", "false");
      expect(await playing()).toBe("running");
      // The bar, which stays put while its words cross it.
      await header.locator(".marquee > div").hover();
      await expect.poll(playing).toBe("paused");
      await page.mouse.move(0, 600);
      await expect.poll(playing).toBe("running");

      // By the keyboard alone: Tab reaches the button, and Space presses it.
      for (
        let tab = 0;
        tab < 6 && !(await pause.evaluate((el) => el === document.activeElement));
        tab++
      ) {
        await page.keyboard.press("Tab");
      }
      await expect(pause).toBeFocused();
      expect(await playing()).toBe("paused");
      await page.keyboard.press("Space");
      await expect(pause).toHaveAttribute("aria-pressed", "true");
      await page.locator("main").focus();
      expect(await playing()).toBe("paused");
      // It stays paused on the reader's next page.
      await page.goto("/science");
      await expect(pause).toHaveAttribute("aria-pressed", "true");
      expect(await playing()).toBe("paused");
      await pause.click();
      await expect(pause).toHaveAttribute("aria-pressed", "false");
      await page.locator("main").focus();
      await page.mouse.move(0, 600);
      await expect.poll(playing).toBe("running");

      // Without JavaScript the button, which could do nothing, is not there; the pointer still stops it.
      const plain = await visitor({ javaScriptEnabled: false });
      await plain.goto("/about");
      await expect(plain.getByRole("button", { name: "Pause the moving title" })).toBeHidden();
      const plainTrack = plain.locator("header .marquee-track");
      await plain.locator("header .marquee > div").hover();
      await expect
        .poll(() => plainTrack.evaluate((el) => getComputedStyle(el).animationPlayState))
        .toBe("paused");
      // Under reduced motion nothing moves, and nothing needs pausing.
      await page.emulateMedia({ reducedMotion: "reduce" });
      await expect(pause).toBeHidden();
    });
  });
});

test("at rest for good, under reduced motion or paused by its button, the header's words all show on a 320 px phone", async ({
  visitor,
}) => {
  const allShow = async (page: Page) => {
    const header = page.locator("header").first();
    const bar = await header.locator(".marquee > div").boundingBox();
    const words = [];
    for (const word of ["Engage", "with", "Engineer"]) {
      const box = await header.getByText(word, { exact: true }).boundingBox();
      words.push({
        word,
        // Inside the bar, and within the header's own 64 px, not spilling over the page.
        inside: !!box && !!bar && box.x >= bar.x && box.x + box.width <= bar.x + bar.width + 0.5,
        inHeader: !!box && box.y + box.height <= 64,
      });
    }
    return words;
  };
  const everyWord = ["Engage", "with", "Engineer"].map((word) => ({
    word,
    inside: true,
    inHeader: true,
  }));
  const phone = { width: 320, height: 640 };
  const still = await visitor({ viewport: phone, reducedMotion: "reduce" });
  await still.goto("/about");
  expect(await allShow(still)).toEqual(everyWord);

  const paused = await visitor({ viewport: phone });
  await paused.goto("/about");
  await paused.getByRole("button", { name: "Pause the moving title" }).click();
  await expect(paused.locator("header").first()).toHaveAttribute("data-marquee", "paused");
  expect(await allShow(paused)).toEqual(everyWord);
});

test("the served HTML of every route marks its own link in the sidebar, and only that", async ({
  request,
}) => {
  for (const route of routes) {
    const html = await (await request.get(route.path)).text();
    // The page holds the sidebar twice: the wide screen's and the drawer's.
    const current = [...html.matchAll(/<a href="([^"]+)" aria-current="page"/g)].map(
      (match) => match[1],
    );
    expect(current, route.path).toEqual([route.path, route.path]);
  }
});

atBothWidths(() => {
  test.describe("sidebar", () => {
    test("shows its footer texts, links to every page and highlights the active one", async ({
      page,
    }) => {
      await page.goto("/");
      if (isNarrow(page)) await page.getByRole("button", { name: "Toggle menu" }).click();
      const sidebar = isNarrow(page) ? page.getByRole("dialog") : page.locator("aside");
      // The year the site was built: this run's, since the run builds it.
      await expect(
        sidebar.getByText(`© ${new Date().getUTCFullYear()} Engage with Engineer`),
      ).toBeVisible();
      await expect(sidebar.getByText("All rights reserved")).toBeVisible();
      const nav = mainNav(page);
      for (const route of routes) {
        await expect(nav.getByRole("link", { name: route.label, exact: true })).toHaveAttribute(
          "href",
          route.path,
        );
      }
      await nav.getByRole("link", { name: "Science in Everyday" }).click();
      await expect(page).toHaveURL(/\/science$/);
      await expect(
        page.getByRole("heading", { level: 1, name: "Science in Everyday" }),
      ).toBeVisible();
      if (isNarrow(page)) await page.getByRole("button", { name: "Toggle menu" }).click();
      await expect(
        mainNav(page).getByRole("link", { name: "Science in Everyday" }),
      ).toHaveAttribute("aria-current", "page");
      await expect(mainNav(page).getByRole("link", { name: "Home" })).not.toHaveAttribute(
        "aria-current",
        "page",
      );
    });

    // A direct load of each route marks its own link, and only that: checked in
    // clean-console.spec.ts, in the visit that reads each page with axe.
  });
});

test.describe("sidebar at 1280 px", () => {
  test.skip(({ viewport }) => (viewport?.width ?? 0) < 1024, "desktop only");

  test("is always visible, 280 px wide, with no menu toggle", async ({ page }) => {
    await page.goto("/technical");
    await expect(mainNav(page)).toBeVisible();
    const box = await page.locator("aside").boundingBox();
    expect(box?.width).toBe(280);
    expect(box?.x).toBe(0);
    await expect(page.getByRole("button", { name: "Toggle menu" })).toBeHidden();
  });
});

atNarrowWidth(() => {
  test.describe("sidebar below 1024 px", () => {
    test.describe("its backdrop", () => {
      test.use({ blurredBackdrop: true });

      test("is blurred a little, and sharp and darker for a reader who asks for less transparency", async ({
        page,
      }) => {
        const backdrop = async () => {
          await page.goto("/");
          await page.getByRole("button", { name: "Toggle menu" }).click();
          return page.getByRole("dialog", { name: "Menu" }).evaluate((el) => {
            const style = getComputedStyle(el, "::backdrop");
            return { filter: style.backdropFilter, colour: style.backgroundColor };
          });
        };
        expect(await backdrop()).toEqual({
          filter: "blur(4px)",
          colour: expect.stringMatching(/ 0\.6\)$/),
        });
        // Playwright has no option for this preference; Chromium's own emulation has.
        const cdp = await page.context().newCDPSession(page);
        await cdp.send("Emulation.setEmulatedMedia", {
          features: [{ name: "prefers-reduced-transparency", value: "reduce" }],
        });
        expect(await backdrop()).toEqual({
          filter: "none",
          colour: expect.stringMatching(/ 0\.85\)$/),
        });
      });
    });

    test("is hidden until the toggle opens it; closes with its button, the backdrop, Esc and a followed link; keeps focus inside", async ({
      page,
    }) => {
      await page.goto("/about");
      await expect(mainNav(page)).toBeHidden();
      const toggle = page.getByRole("button", { name: "Toggle menu" });
      await expect(toggle).toHaveAttribute("aria-expanded", "false");
      await toggle.click();
      await expect(mainNav(page)).toBeVisible();
      // Computed width: the bounding box is fractional while the panel slides in.
      await expect(mainNav(page).locator("..")).toHaveCSS("width", "280px");
      const drawer = page.getByRole("dialog", { name: "Menu" });
      await expect(drawer).toBeVisible();
      // A modal drawer over a dimmed backdrop: the page behind it is inert.
      expect(await drawer.evaluate((el) => el.matches(":modal"))).toBe(true);
      const backdrop = await drawer.evaluate(
        (el) => getComputedStyle(el, "::backdrop").backgroundColor,
      );
      expect(backdrop).toMatch(/0\.6\)$/);

      // Its close button.
      await page.getByRole("button", { name: "Close menu" }).click();
      await expect(mainNav(page)).toBeHidden();

      // A click on the backdrop.
      await toggle.click();
      await expect(mainNav(page)).toBeVisible();
      await page.mouse.click(700, 450);
      await expect(mainNav(page)).toBeHidden();

      // From the keyboard: focus stays inside, Esc closes.
      await toggle.focus();
      await page.keyboard.press("Enter");
      await expect(mainNav(page)).toBeVisible();
      const inDrawer = () =>
        page.evaluate(() => Boolean(document.activeElement?.closest("dialog")));
      for (let step = 0; step < 15; step++) {
        await page.keyboard.press("Tab");
        expect(await inDrawer()).toBe(true);
      }
      for (let step = 0; step < 5; step++) {
        await page.keyboard.press("Shift+Tab");
        expect(await inDrawer()).toBe(true);
      }
      await page.keyboard.press("Escape");
      await expect(mainNav(page)).toBeHidden();
      await expect(toggle).toBeFocused();
      await expect(toggle).toHaveAttribute("aria-expanded", "false");

      // A link followed.
      await toggle.click();
      await mainNav(page).getByRole("link", { name: "Technical", exact: true }).click();
      await expect(page).toHaveURL(/\/technical$/);
      await expect(mainNav(page)).toBeHidden();
    });
  });
});

atNarrowWidth(() => {
  test.describe("the drawer with JavaScript off", () => {
    test.use({ javaScriptEnabled: false });

    test("opens from the toggle, leads to every page and closes with Esc or its button", async ({
      page,
    }) => {
      await page.goto("/technical");
      const toggle = page.getByRole("button", { name: "Toggle menu" });
      await toggle.click();
      const nav = mainNav(page);
      await expect(nav).toBeVisible();
      await expect(nav.getByRole("link", { name: "Technical", exact: true })).toHaveAttribute(
        "aria-current",
        "page",
      );
      await page.keyboard.press("Escape");
      await expect(nav).toBeHidden();
      await expect(toggle).toBeFocused();
      await toggle.click();
      await page.getByRole("button", { name: "Close menu" }).click();
      await expect(nav).toBeHidden();
      await toggle.click();
      await nav.getByRole("link", { name: "Science in Everyday" }).click();
      await expect(page).toHaveURL(/\/science$/);
    });
  });
});

/*
 * Without JavaScript the menu is HTML alone (docs/decisions/031-menu-without-hydration.md):
 * on a phone "Toggle menu" opens the drawer, on a wide screen the sidebar is
 * always there, and either way every page, Home included, is one link away.
 * The widths are set here.
 */
for (const { width, height } of [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
]) {
  test.describe(`every page reached from the menu with JavaScript off at ${width} px`, () => {
    test.use({ javaScriptEnabled: false, viewport: { width, height } });

    test("its links, Home included, lead to their pages", async ({ page, baseURL }) => {
      const toggle = page.getByRole("button", { name: "Toggle menu" });
      // From the last page to the first, then on down the list: each link leads elsewhere.
      await page.goto(routes.at(-1)?.path ?? "/");
      for (const route of routes) {
        if (width < 1024) {
          await toggle.click();
          await expect(page.getByRole("dialog")).toBeVisible();
        } else {
          await expect(toggle).toBeHidden();
          await expect(page.locator("aside")).toBeVisible();
        }
        await mainNav(page).getByRole("link", { name: route.label, exact: true }).click();
        await expect(page).toHaveURL(new URL(route.path, baseURL).href);
        await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
        if (width < 1024) await expect(mainNav(page)).toBeHidden();
      }
    });

    test("the header stays opaque, so the text scrolled under it never shows through", async ({
      page,
    }) => {
      await page.goto("/technical");
      await page.mouse.wheel(0, 600);
      await expect.poll(() => page.evaluate(() => scrollY)).toBeGreaterThan(50);
      await expect(page.locator("header#site-header")).not.toHaveCSS(
        "background-color",
        "rgba(0, 0, 0, 0)",
      );
    });
  });
}

test.describe("routing and footer", () => {
  test("an unknown path ends at the home page", async ({ page }) => {
    await page.goto("/no/such/page");
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  });

  test("the footer links every page, the legal pages and the contact address", async ({ page }) => {
    await page.goto("/");
    const footer = page.locator("footer");
    await expect(footer).toContainText(`© ${new Date().getUTCFullYear()} Engage with Engineer.`);
    for (const route of routes.slice(1)) {
      await expect(footer.getByRole("link", { name: route.label, exact: true })).toHaveAttribute(
        "href",
        route.path,
      );
    }
    await expect(footer.getByRole("link", { name: "owner@example.com" })).toHaveAttribute(
      "href",
      "mailto:owner@example.com",
    );
    await footer.getByRole("link", { name: "Privacy Policy" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Privacy Policy" })).toBeVisible();
    await page.locator("footer").getByRole("link", { name: "Terms of Service" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Terms of Service" })).toBeVisible();
  });
});

atBothWidths(() => {
  test.describe("icons", () => {
    test("every visible icon is drawn from the site's sprite", async ({ page }) => {
      // At 800 px, one page of each layout: what the narrow width shows that the
      // wide one does not (the header's controls) is the same on every page of a layout.
      const paths = isNarrow(page)
        ? ["/", "/technical", "/about", "/services"]
        : routes.map((route) => route.path);
      for (const path of paths) {
        await page.goto(path);
        const icons = page.locator("svg:has(> use)");
        expect(await icons.count(), path).toBeGreaterThan(0);
        // An icon whose symbol is missing, or whose sprite did not load, has no shape.
        await expect
          .poll(
            () =>
              icons.evaluateAll((svgs) =>
                svgs
                  .filter((svg) => svg.getClientRects().length > 0)
                  .filter((svg) => {
                    const box = (svg.querySelector("use") as SVGUseElement).getBBox();
                    return box.width === 0 || box.height === 0;
                  })
                  .map((svg) => svg.querySelector("use")?.getAttribute("href")),
              ),
            { message: `icons without a shape on ${path}` },
          )
          .toEqual([]);
      }
    });
  });
});
