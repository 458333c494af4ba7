import type { Page } from "@playwright/test";
import { seriousViolations } from "./support/axe.ts";
import { expect, test } from "./support/fixtures.ts";

/*
 * The search page (docs/product.md, "Search"): the header's Search is a link to
 * /search, whose plain form the server answers with results, so a reader
 * without JavaScript searches too, on a phone and on a desktop. With
 * JavaScript the same link opens the dialog (search.spec.ts).
 */

const searchField = (page: Page) => page.getByRole("searchbox", { name: "Search the site" });
const results = (page: Page) => page.getByRole("list", { name: "Search results" });

/** The page is no wider than the window: nothing to scroll sideways. */
const fitsTheWindow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

for (const width of [360, 1280]) {
  test.describe(`without JavaScript at ${width} px`, () => {
    test.use({ javaScriptEnabled: false, viewport: { width, height: 900 } });

    test("the header's Search leads to the search page; a search there finds the pressure cooker, on its own page", async ({
      page,
    }) => {
      await page.goto("/about");
      const control = page.getByRole("banner").getByRole("link", { name: "Search" });
      await expect(control).toBeVisible();
      await control.click();
      await expect(page).toHaveURL(/\/search$/);
      await expect(page.getByRole("heading", { level: 1, name: "Search the site" })).toBeVisible();
      await expect(page.getByText("Type a word or two, then press Search.")).toBeVisible();

      await searchField(page).fill("pressure cooker");
      await page.getByRole("main").getByRole("button", { name: "Search" }).click();
      await expect(page).toHaveURL(/\/search\?q=pressure\+cooker$/);
      await expect(page.getByText(/\d+ pages? found for “pressure cooker”\./)).toBeVisible();
      await expect(searchField(page)).toHaveValue("pressure cooker");
      expect(await fitsTheWindow(page)).toBe(true);

      // Each piece of writing once, on its own page, never its card on the section's page.
      const links = results(page).getByRole("link");
      const hrefs = await links.evaluateAll((all) => all.map((link) => link.getAttribute("href")));
      expect(new Set(hrefs).size, hrefs.join(", ")).toBe(hrefs.length);
      expect(hrefs).not.toContain("/science#pressure-cooker");
      const item = results(page)
        .getByRole("listitem")
        .filter({
          has: page.getByRole("link", { name: "Why does a pressure cooker cook faster?" }),
        });
      await expect(item).toHaveCount(1);
      await expect(item).toContainText("Science in Everyday");
      await expect(item.locator("mark").first()).toHaveText(/pressure|cooker/i);

      await item.getByRole("link").click();
      await expect(page).toHaveURL(/\/science\/pressure-cooker$/);
      await expect(
        page.getByRole("heading", { level: 1, name: "Why does a pressure cooker cook faster?" }),
      ).toBeVisible();
    });

    test("Enter in the field searches; nothing found and words too long are said plainly", async ({
      page,
    }) => {
      await page.goto("/search");
      await searchField(page).fill("Garuda");
      await searchField(page).press("Enter");
      // The story's page, or the part of it where the name is told most.
      await expect(results(page).getByRole("link").first()).toHaveAttribute(
        "href",
        /^\/mythology\/garuda(#[a-z0-9-]+)?$/,
      );

      // A section's name as a reader says it finds the section's page first.
      await searchField(page).fill("mythology");
      await searchField(page).press("Enter");
      await expect(results(page).getByRole("link").first()).toHaveAttribute("href", "/mythology");

      await searchField(page).fill("qqqqqq");
      await searchField(page).press("Enter");
      await expect(page.getByText("Nothing found for “qqqqqq”.")).toBeVisible();
      await expect(results(page)).toHaveCount(0);

      // The byline every item page carries is not what a reader searches for:
      // only pages whose text says the word are found, not every item.
      await searchField(page).fill("published");
      await searchField(page).press("Enter");
      await expect(page.getByText(/found for “published”\./)).toBeVisible();
      await expect(results(page).getByRole("link", { name: /pressure cooker/i })).toHaveCount(0);

      // One word as long as the field holds, quoted back, wraps on a phone's width.
      const word = "w".repeat(200);
      await searchField(page).fill(word);
      await searchField(page).press("Enter");
      await expect(page.getByText(`Nothing found for “${word}”.`)).toBeVisible();
      expect(await fitsTheWindow(page)).toBe(true);

      // The field stops at its limit; an address made by hand is answered with a message.
      const response = await page.goto(`/search?q=${"w".repeat(250)}`);
      expect(response?.status()).toBe(400);
      await expect(page.getByRole("alert")).toContainText("at most 200 characters");
      expect(await fitsTheWindow(page)).toBe(true);
    });
  });
}

// axe does not finish in a page without JavaScript: it checks the page with
// scripts on, where the form and the results are the same server-written HTML.
for (const width of [360, 1280]) {
  test(`the search page with results has no serious or critical axe violations at ${width} px`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/search?q=fuel+cell");
    await expect(results(page).getByRole("link").first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
}
