import { siteItems } from "../../content/items.ts";
import { siteContent } from "./support/content.ts";
import { expect, test } from "./support/fixtures.ts";
import { islandsHydrated } from "./support/islands.ts";

/*
 * A list page holds one comments section per post: each is a landmark named
 * after its post, so a screen reader's list of landmarks tells them apart.
 */
const posts = siteItems(siteContent())
  .filter((item) => item.section.id === "science")
  .map((item) => item.title);
/** The post the live test opens: any of them would do. */
const opened = posts[0] ?? "";

for (const javaScriptEnabled of [true, false]) {
  test(`each post's comments on /science are a landmark named after the post, ${javaScriptEnabled ? "with" : "without"} JavaScript`, async ({
    visitor,
  }) => {
    const page = await visitor({ javaScriptEnabled });
    await page.goto("/science");
    const regions = page.getByRole("region", { name: /^Comments/, includeHidden: true });
    const names = async () =>
      (await regions.evaluateAll((all) => all.map((e) => e.getAttribute("aria-label")))).sort();
    const expected = posts.map((title) => `Comments on ${title}`).sort();
    if (!javaScriptEnabled) {
      expect(await names()).toEqual(expected);
      return;
    }
    // The served sections are the page above; live, a closed card holds none
    // (and the island may already have taken them out by now), so here only
    // the names that remain are checked, then the opened post's.
    await islandsHydrated(page);
    expect(expected).toEqual(expect.arrayContaining(await names()));
    const toggle = page.getByRole("button", { name: opened }).first();
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-expanded", "true");
    await expect(page.getByRole("region", { name: `Comments on ${opened}` })).toBeVisible();
    // The served section gives way to the live one: never two landmarks of one name.
    const shown = await page
      .getByRole("region", { name: /^Comments on/ })
      .evaluateAll((all) => all.map((e) => e.getAttribute("aria-label")));
    expect(shown.length).toBeGreaterThan(0);
    expect(new Set(shown).size).toBe(shown.length);
  });
}

test("an item page names its comments after the item", async ({ page }) => {
  await page.goto("/science/soap");
  await expect(
    page.getByRole("region", { name: "Comments on How does soap clean?", includeHidden: true }),
  ).toHaveCount(1);
});
