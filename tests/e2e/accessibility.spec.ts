import { seriousViolations } from "./support/axe.ts";
import { expect, test } from "./support/fixtures.ts";
import { islandsHydrated } from "./support/islands.ts";

/*
 * Pages in states a reader puts them in: the open mobile menu, an item opened
 * on its list page. Each top-level page as served and once its islands are
 * live is checked whole in clean-console.spec.ts, in the visit that also
 * watches its console.
 */

test("the open mobile menu has no serious or critical axe violations", { tag: "@narrow" }, async ({
  page,
}) => {
  test.skip((page.viewportSize()?.width ?? 0) >= 1024, "narrow only");
  await page.goto("/");
  await page.getByRole("button", { name: "Toggle menu" }).click();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});

const openItems = [
  { path: "/technical", tab: "Engines", item: /internal combustion/i },
  { path: "/non-technical", tab: "Soft Skills", item: "Time Management" },
  { path: "/mythology", item: /Garuda/ },
  { path: "/mechfusion-ai", item: /Partial Differential Equations/ },
  { path: "/science", item: /soap/i },
];

for (const { path, tab, item } of openItems) {
  test(`${path} with an item open has no serious or critical axe violations`, async ({ page }) => {
    await page.goto(path);
    // The scripted cards, as a reader reaching for them gets them.
    await islandsHydrated(page);
    if (tab) await page.getByRole("tab", { name: tab }).click();
    const button = page.getByRole("button", { name: item }).first();
    await button.click();
    await expect(button).toHaveAttribute("aria-expanded", "true");
    expect(await seriousViolations(page)).toEqual([]);
  });
}
