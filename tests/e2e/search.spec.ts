import type { Page } from "@playwright/test";
import { seriousViolations } from "./support/axe.ts";
import { atBothWidths, expect, test } from "./support/fixtures.ts";
import { islandsHydrated, pointerOnText } from "./support/islands.ts";

const searchCode = /\/pagefind\/|search-dialog/;

/** Scripts and index files of the search the page has asked for so far. */
function searchRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on("request", (request) => {
    if (searchCode.test(request.url())) seen.push(new URL(request.url()).pathname);
  });
  return seen;
}

function cspViolations(page: Page): string[] {
  const seen: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) seen.push(message.text());
  });
  return seen;
}

/**
 * The header's Search: a link to the search page without scripts; with them,
 * a button that opens the dialog (docs/product.md, "Search").
 */
const searchControl = (page: Page) =>
  page.getByRole("banner").getByRole("button", { name: "Search", exact: true });
const dialog = (page: Page) => page.getByRole("dialog", { name: "Search this site" });
const field = (page: Page) => page.getByRole("searchbox", { name: "Search the site" });
const results = (page: Page) =>
  page.getByRole("list", { name: "Search results" }).getByRole("link");

test.describe("search", () => {
  test("finds the pressure cooker from the header and reaches it by keyboard alone; the shortcuts leave text fields alone", async ({
    page,
  }) => {
    const requested = searchRequests(page);
    const violations = cspViolations(page);
    await page.goto("/about");
    await islandsHydrated(page);
    // The shortcuts leave text fields alone.
    const email = page.getByRole("textbox", { name: "Email address" });
    await email.click();
    await page.keyboard.type("a/b");
    await page.keyboard.press("Control+k");
    await expect(email).toHaveValue("a/b");
    await expect(dialog(page)).toBeHidden();
    await email.blur();
    // Nothing of the search is fetched until the reader asks for it.
    expect(requested).toEqual([]);

    await page.keyboard.press("/");
    await expect(dialog(page)).toBeVisible();
    await expect(field(page)).toBeFocused();
    await page.keyboard.type("pressure cooker");

    const first = results(page).first();
    await expect(first).toContainText(/pressure cooker/i, { timeout: 15_000 });
    await expect(first.locator("mark").first()).toHaveText(/pressure|cooker/i);
    await expect(
      page.getByRole("status").filter({ hasText: /found for “pressure cooker”/ }),
    ).toBeVisible();
    expect(requested).toContain("/pagefind/pagefind.js");

    await page.keyboard.press("ArrowDown");
    await expect(first).toBeFocused();
    await page.keyboard.press("Enter");
    // The item's own page, or its card on the list page, opened.
    await expect(page).toHaveURL(/\/science(\/pressure-cooker|#pressure-cooker)$/);
    await expect(
      page.getByRole("heading", { name: "Why does a pressure cooker cook faster?" }).first(),
    ).toBeVisible();
    expect(violations).toEqual([]);
  });

  atBothWidths(() => {
    test("finds DFMEA from the Search control, and Tab then Enter open the result", async ({
      page,
    }) => {
      await page.goto("/");
      await islandsHydrated(page);
      const control = searchControl(page);
      await control.focus();
      await page.keyboard.press("Enter");
      await expect(field(page)).toBeFocused();
      await page.keyboard.type("DFMEA");

      // The service's own page comes first: its title is the word searched for.
      const first = results(page).first();
      await expect(first).toHaveAttribute("href", "/services/dfmea", { timeout: 15_000 });
      await expect(first.locator("mark").first()).toHaveText(/DFMEA/i);
      // Tab leaves the field for the results (the Close button comes first in the dialog).
      await page.keyboard.press("Tab");
      await expect(first).toBeFocused();
      await page.keyboard.press("Enter");
      await expect(page).toHaveURL(/\/services\/dfmea$/);
      await expect(page.getByRole("heading", { level: 1, name: "DFMEA" })).toBeVisible();
    });
  });

  test("keeps what is typed at once after the shortcut; Enter opens the first result", async ({
    page,
  }) => {
    // The header's search island has not hydrated yet (it waits for the
    // reader), nor is any of the search's code loaded: a quick reader types
    // straight on regardless.
    await pointerOnText(page);
    await page.goto("/technical");
    await expect(page.locator("header astro-island").first()).toHaveAttribute("ssr");
    await page.keyboard.press("Control+k");
    await page.keyboard.type("DFMEA");
    await expect(field(page)).toHaveValue("DFMEA");
    await expect(results(page).first()).toHaveAttribute("href", "/services/dfmea", {
      timeout: 15_000,
    });
    await field(page).press("Enter");
    await expect(page).toHaveURL(/\/services\/dfmea$/);
  });

  atBothWidths(() => {
    test("the header's Search leads to the search page, and opens the dialog there instead with scripts", async ({
      page,
    }) => {
      // Clicked at once, before its island has hydrated: the click is held for it.
      await pointerOnText(page);
      await page.goto("/about");
      const control = searchControl(page);
      await expect(control).toHaveAttribute("href", "/search");
      await expect(control).toHaveAttribute("aria-haspopup", "dialog");
      await expect(page.locator("header astro-island").first()).toHaveAttribute("ssr");
      await control.click();
      await expect(dialog(page)).toBeVisible();
      await expect(field(page)).toBeFocused();
      expect(new URL(page.url()).pathname).toBe("/about");
      await page.keyboard.press("Escape");
      await expect(dialog(page)).toBeHidden();
      // Hydrated, the same.
      await control.click();
      await expect(dialog(page)).toBeVisible();
      expect(new URL(page.url()).pathname).toBe("/about");
    });
  });

  test("lists each piece of writing once, on its own page, and says when nothing matches", async ({
    page,
  }) => {
    await page.goto("/");
    await islandsHydrated(page);
    await searchControl(page).click();
    await expect(field(page)).toBeFocused();
    for (const term of ["pressure", "Garuda", "fuel cell"]) {
      await field(page).fill(term);
      await expect(dialog(page).getByRole("status")).toContainText(`found for “${term}”`, {
        timeout: 15_000,
      });
      const hrefs = await results(page).evaluateAll((links) =>
        links.map((link) => link.getAttribute("href") ?? ""),
      );
      const titles = await results(page)
        .locator("span.font-medium")
        .evaluateAll((spans) => spans.map((span) => span.textContent ?? ""));
      expect(hrefs.length, term).toBeGreaterThan(0);
      expect(new Set(hrefs).size, `${term}: ${hrefs.join(", ")}`).toBe(hrefs.length);
      expect(new Set(titles).size, `${term}: ${titles.join(", ")}`).toBe(titles.length);
      // The item's own page, never its card on the section's page beside it.
      const items = hrefs.filter((href) => /^\/[\w-]+\/[\w-]+$/.test(href));
      for (const item of items) {
        const card = item.replace(/\/([\w-]+)$/, "#$1");
        expect(hrefs, term).not.toContain(card);
      }
    }
    await field(page).fill("pressure");
    const list = page.getByRole("list", { name: "Search results" });
    await expect(list.locator('a[href="/science/pressure-cooker"]')).toHaveCount(1, {
      timeout: 15_000,
    });
    await expect(list.locator('a[href^="/science#"]')).toHaveCount(0);
    // A word in the other number finds the page: the pressure cooker's text says "valve".
    await field(page).fill("valves");
    await expect(dialog(page).getByRole("status")).toContainText("found for “valves”", {
      timeout: 15_000,
    });
    await expect(list.locator('a[href="/science/pressure-cooker"]')).toHaveCount(1);

    // And says when nothing matches.
    await field(page).fill("");
    await page.keyboard.type("qqqqqq");
    await expect(dialog(page).getByRole("status")).toHaveText("Nothing found for “qqqqqq”.", {
      timeout: 15_000,
    });
    await expect(results(page)).toHaveCount(0);
    // A slip of the finger: the search page, a link away, suggests the words put right.
    await field(page).fill("presure cooker");
    await expect(dialog(page).getByRole("status")).toHaveText(
      "Nothing found for “presure cooker”.",
      { timeout: 15_000 },
    );
    await dialog(page)
      .getByRole("link", { name: "Search for “presure cooker” on the search page" })
      .click();
    await expect(page).toHaveURL(/\/search\?q=presure%20cooker$/);
    await page.getByRole("main").getByRole("link", { name: "“pressure cooker”" }).click();
    await expect(
      page
        .getByRole("list", { name: "Search results" })
        .getByRole("link", { name: "Why does a pressure cooker cook faster?" }),
    ).toBeVisible();
    await searchControl(page).click();
    await expect(field(page)).toBeFocused();
    // One long word, quoted back, wraps inside the dialog.
    await field(page).fill("w".repeat(200));
    const status = dialog(page).getByRole("status");
    await expect(status).toContainText(`Nothing found for “${"w".repeat(200)}”.`, {
      timeout: 15_000,
    });
    expect(await status.evaluate((node) => node.scrollWidth <= node.clientWidth)).toBe(true);
    // A word no page holds, though many hold its start: as on the search page, nothing.
    await field(page).fill("pressurexyz");
    await expect(dialog(page).getByRole("status")).toHaveText("Nothing found for “pressurexyz”.", {
      timeout: 15_000,
    });
    await expect(results(page)).toHaveCount(0);
  });

  atBothWidths(() => {
    test("with results open: no serious or critical axe violations; focus stays inside, Escape closes and gives focus back", async ({
      page,
    }) => {
      await page.goto("/mythology");
      await islandsHydrated(page);
      const control = searchControl(page);
      await control.click();
      await expect(field(page)).toBeFocused();
      await page.keyboard.type("pressure cooker");
      await expect(results(page).first()).toBeVisible({ timeout: 15_000 });
      expect(await seriousViolations(page)).toEqual([]);
      const count = await results(page).count();
      // Field, every result, the Close button: and round again to the field.
      for (let i = 0; i < count + 2; i += 1) {
        await page.keyboard.press("Tab");
        expect(await dialog(page).evaluate((node) => node.contains(document.activeElement))).toBe(
          true,
        );
      }
      await page.keyboard.press("Escape");
      await expect(dialog(page)).toBeHidden();
      await expect(control).toBeFocused();
    });
  });
});
