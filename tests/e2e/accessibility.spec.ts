import { seriousViolations } from "./support/axe.ts";
import { atNarrowWidth, expect, test } from "./support/fixtures.ts";

/*
 * A page in a state a reader puts it in: the open mobile menu. One page of
 * each layout as served and once its islands are live, and a section page of
 * each layout with an item open, is checked whole in clean-console.spec.ts, in
 * the visit that also watches its console.
 */

atNarrowWidth(() => {
  test("the open mobile menu has no serious or critical axe violations", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("button", { name: "Toggle menu" }).click();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});
