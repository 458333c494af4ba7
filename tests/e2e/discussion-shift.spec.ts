import type { APIRequestContext, Page } from "@playwright/test";
import { postComment, uniqueWord } from "./support/comments.ts";
import { expect, test } from "./support/fixtures.ts";
import { liveDiscussion } from "./support/items.ts";
import { drawn, seen, watchLayout } from "./support/layout.ts";

/*
 * An item page's discussion hydrates once it is seen: the reactions and the
 * live comments take the place the served page gave them, so nothing under
 * them (the previous/next links) moves while a reader looks
 * (docs/product.md, "Item pages").
 */

/** A science post no other spec writes to, and a story. */
const post = "gps-navigation";
const story = "nala-damayanti";

/** A returning reader's name, long enough to wrap at 375 px. */
const storedName = "Meenakshisundaram Venkataraghavan";

// In order, in one worker: the first writes the comments the others read.
test.describe.configure({ mode: "default" });

/**
 * The post with comments to show, as served and live, written the first time
 * only; returns the served page. The tests here run in order, so none is
 * written while a page is watched.
 */
async function withComments(request: APIRequestContext, origin: string) {
  const served = async () => (await request.get(`/science/${post}`)).text();
  if ((await served()).includes('class="comment"')) return served();
  for (const userName of ["Ravi", "Meena"]) {
    await postComment(request, origin, post, {
      userName,
      content: `How does the receiver know the satellites' clocks are right? ${uniqueWord()}`,
    });
  }
  return served();
}

/**
 * Each item page's previous/next links, seen from the first frame until the
 * discussion is live with its comments, stay where they were first drawn.
 */
async function itemPagesHoldStill(open: (width: number) => Promise<Page>) {
  for (const width of [1280, 375]) {
    for (const item of [`/science/${post}`, `/mythology/${story}`]) {
      await test.step(`${item} at ${width} px`, async () => {
        const page = await open(width);
        await watchLayout(page, 'nav[aria-label^="More in"]');
        await page.goto(item);
        await expect(page.getByRole("region", { name: /^Reactions/ })).toBeAttached();
        const before = await seen(page);
        expect(before.tops.length).toBeGreaterThan(0);
        // The links come on screen, and the discussion above them with them, which hydrates it.
        await page.getByRole("navigation", { name: /^More in/ }).scrollIntoViewIfNeeded();
        await liveDiscussion(page);
        await drawn(page);
        const after = await seen(page);
        const shifted = after.shifts.reduce((sum, value) => sum + value, 0);
        expect({ tops: [...new Set(after.tops)], shifted: shifted < 0.01 ? 0 : shifted }).toEqual({
          tops: [before.tops[0]],
          shifted: 0,
        });
        await page.close();
      });
    }
  }
}

test("on an item page the previous/next links stay put while the discussion goes live, at 1280 and 375 px", async ({
  visitor,
  request,
  baseURL,
}) => {
  await withComments(request, baseURL ?? "");
  await itemPagesHoldStill((width) => visitor({ viewport: { width, height: 800 } }));
});

test("for a reader with a stored name, the comment box and the name line are in their places from the first paint, at 1280 and 375 px", async ({
  visitor,
  request,
  baseURL,
}) => {
  await withComments(request, baseURL ?? "");
  await itemPagesHoldStill((width) =>
    visitor({ name: storedName, viewport: { width, height: 800 } }),
  );
});

test("on a list page, what follows an opened card stays put while its comments go live, with and without a stored name, at 1280 and 375 px", async ({
  visitor,
  request,
  baseURL,
}) => {
  await withComments(request, baseURL ?? "");
  for (const name of [undefined, storedName]) {
    for (const width of [1280, 375]) {
      await test.step(`${name ? "named" : "new"} reader at ${width} px`, async () => {
        const page = await visitor({ name, viewport: { width, height: 800 } });
        const card = `[data-card="${post}"]`;
        // The next card, from the frame this one is open.
        await watchLayout(page, `${card} + [data-card]`, `${card}[data-open="true"]`);
        await page.goto("/science");
        // Opened once the list is live (its cards are buttons then), as a reader clicks it.
        const toggle = page.locator(`${card} [data-trigger]`);
        await toggle.click();
        await expect(toggle).toHaveAttribute("aria-expanded", "true");
        const comments = page.locator(card).getByRole("region", { name: /^Comments on/ });
        await expect(page.locator(`${card} [data-live="true"]`)).toBeAttached({ timeout: 15_000 });
        await expect(comments.getByRole("button", { name: "Reply" }).first()).toBeEnabled();
        await drawn(page);
        const after = await seen(page);
        expect(after.tops.length).toBeGreaterThan(0);
        expect([...new Set(after.tops)]).toEqual([after.tops[0]]);
        // The server's copy, which stood in for the live comments, has left the page.
        await expect(page.locator(`${card} .static-comments`)).toHaveCount(0);
        expect(await repeatedIds(page)).toEqual([]);
        await page.close();
      });
    }
  }
});

test("a comment's link lands on it, the only element with its id, with JavaScript and without; a list page repeats no comment's id", async ({
  visitor,
  request,
  baseURL,
}) => {
  const id = /<li id="(comment-\d+)"/.exec(await withComments(request, baseURL ?? ""))?.[1];
  expect(id).toBeDefined();
  for (const javaScriptEnabled of [true, false]) {
    await test.step(`JavaScript ${javaScriptEnabled ? "on" : "off"}`, async () => {
      const page = await visitor({ javaScriptEnabled });
      await page.goto(`/science/${post}#${id}`);
      if (javaScriptEnabled) await liveDiscussion(page);
      else {
        // Nothing that needs JavaScript is drawn: no reaction or comment buttons.
        await expect(page.getByRole("main").getByRole("button")).toHaveCount(0);
      }
      await expect(page.locator(`#${id}`)).toHaveCount(1);
      await expect(page.locator(`#${id}`)).toBeInViewport();
      expect(await repeatedIds(page)).toEqual([]);
      await page.close();
    });
  }
  await test.step("on the list page, the post's card open and live", async () => {
    const page = await visitor();
    await page.goto(`/science#${post}`);
    const card = page.locator(`#${post}`);
    await expect(card.locator('[data-live="true"]')).toBeAttached({ timeout: 15_000 });
    await expect(card.getByRole("button", { name: "Reply" }).first()).toBeVisible();
    expect(await repeatedIds(page)).toEqual([]);
  });
});

/** The ids that more than one element of the page has. */
const repeatedIds = (page: Page) =>
  page.evaluate(() => {
    const ids = [...document.querySelectorAll("[id]")].map((element) => element.id);
    return ids.filter((each, index) => ids.indexOf(each) !== index);
  });
