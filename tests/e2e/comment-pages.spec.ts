import type { APIRequestContext, Page } from "@playwright/test";
import type { ServerProcess } from "../support/server-process.ts";
import { seriousViolations } from "./support/axe.ts";
import { expect, test } from "./support/fixtures.ts";
import { holdRead } from "./support/held-read.ts";
import { postTo, startOwnSite } from "./support/own-site.ts";

/*
 * A long discussion as a reader meets it (docs/product.md, "Reacting and
 * commenting"; docs/decisions/015-comment-pages.md): the first 50 comments,
 * "Show more comments" for the next ones, new comments live, and plain links
 * to the later pages without JavaScript. On a server of this spec's own, whose
 * limits let the test write a hundred comments through the API at once.
 */

let site: ServerProcess;

test.beforeAll(async () => {
  site = await startOwnSite("comment-pages");
});
test.afterAll(async () => {
  await site?.stop();
});

/**
 * `count` comments on a post, "Comment 1: …" onwards, oldest first, from one
 * visitor, each saying `about`; returns their ids in that order.
 */
async function seed(
  request: APIRequestContext,
  postId: string,
  count: number,
  about = "a thin layer of tea loses heat faster.",
) {
  const ids: number[] = [];
  for (let i = 1; i <= count; i += 1) {
    const { id } = await postTo(request, site, postId, {
      content: `Comment ${i}: ${about}`,
      userName: `Reader ${i % 5}`,
    });
    ids.push(id);
  }
  return ids;
}

/** The post's own page, scrolled to its discussion, once that is live. */
async function openLongDiscussion(page: Page, postId: string) {
  await page.goto(`/science/${postId}`);
  await page.locator(".item-discussion").scrollIntoViewIfNeeded();
  const discussion = page.locator('.item-discussion [data-live="true"]');
  await expect(discussion).toBeAttached({ timeout: 30_000 });
  return {
    discussion,
    comments: discussion.locator("li.comment"),
    heading: discussion.getByRole("heading", { name: /^Comments \(\d+\)$/ }),
    more: discussion.getByRole("button", { name: "Show more comments", exact: true }),
  };
}

test("Show more comments brings the next page, focus on its first comment; new comments arrive live", async ({
  visitor,
  playwright,
}) => {
  test.slow(); // a hundred writes and a browser, on a shared machine
  const postId = "tea-cooling";
  const writer = await playwright.request.newContext();
  await seed(writer, postId, 120);

  const page = await visitor({ baseURL: site.url });
  const { comments, heading, more } = await openLongDiscussion(page, postId);

  await expect(heading).toHaveText("Comments (120)");
  await expect(comments).toHaveCount(50);
  await expect(comments.first()).toContainText("Comment 1:");
  await expect(comments.last()).toContainText("Comment 50:");

  // By keyboard: focus lands on the first comment the page brought.
  await more.focus();
  await page.keyboard.press("Enter");
  await expect(comments).toHaveCount(100);
  await expect(comments.nth(50)).toBeFocused();
  await expect(comments.nth(50)).toContainText("Comment 51:");
  expect(await seriousViolations(page, ".item-discussion")).toEqual([]);

  // Before the end, a new comment is counted, and waits for "Show more comments".
  await postTo(writer, site, postId, {
    content: "Comment 121: written meanwhile.",
    userName: "Zoe",
  });
  await expect(heading).toHaveText("Comments (121)");
  await expect(comments).toHaveCount(100);

  await more.click();
  await expect(comments).toHaveCount(121);
  await expect(comments.nth(100)).toBeFocused();
  await expect(comments.nth(100)).toContainText("Comment 101:");
  await expect(comments.last()).toContainText("Comment 121: written meanwhile.");
  // The end: no button any more.
  await expect(more).toHaveCount(0);

  // At the end, a new comment appears at once, below the others.
  await postTo(writer, site, postId, { content: "Comment 122: and another.", userName: "Zoe" });
  await expect(comments).toHaveCount(122);
  await expect(comments.last()).toContainText("Comment 122: and another.");
  await expect(heading).toHaveText("Comments (122)");

  // The browser read each page once: the first, then the two after it.
  const texts = await comments.locator(".comment-text").allTextContents();
  expect(new Set(texts).size).toBe(122);
  await writer.dispose();
});

test("without JavaScript the item page shows the first 50 and links to the later ones", async ({
  visitor,
  playwright,
}) => {
  test.slow();
  const postId = "starter-motor";
  const writer = await playwright.request.newContext();
  await seed(writer, postId, 110, "a starter motor draws hundreds of amps.");

  const page = await visitor({ baseURL: site.url, javaScriptEnabled: false });
  const section = page.locator("section#comments");
  const texts = () => section.locator(".comment-text").allTextContents();
  const numbers = async () =>
    (await texts()).map((text) => Number(/^Comment (\d+):/.exec(text)?.[1]));
  const range = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => from + i);

  // The list page's card leads to the item page for the rest.
  await page.goto("/science");
  // (In the closed card: found by its text rather than its role.)
  const cardLink = page.locator(`.card-body:has(#${postId}) a`, { hasText: "Show more comments" });
  await expect(cardLink).toHaveAttribute(
    "href",
    new RegExp(`^/science/${postId}\\?comments=after-[\\w-]+#comments$`),
  );

  await page.goto(`/science/${postId}`);
  await expect(section.getByRole("heading", { name: "Comments (110)" })).toBeVisible();
  expect(await numbers()).toEqual(range(1, 50));

  await section.getByRole("link", { name: "Show more comments", exact: true }).click();
  await expect(page).toHaveURL(/\?comments=after-[\w-]+#comments$/);
  expect(await numbers()).toEqual(range(51, 100));
  await expect(section.getByRole("link", { name: "First comments" })).toBeVisible();

  await section.getByRole("link", { name: "Show more comments", exact: true }).click();
  expect(await numbers()).toEqual(range(101, 110));
  await expect(section.getByRole("link", { name: "Show more comments" })).toHaveCount(0);

  await section.getByRole("link", { name: "First comments" }).click();
  await expect(page).toHaveURL(new RegExp(`/science/${postId}#comments$`));
  expect(await numbers()).toEqual(range(1, 50));

  // A link the server did not write: the comments from the start, and why.
  const broken = await page.goto(`/science/${postId}?comments=after-nonsense`);
  expect(broken?.status()).toBe(400);
  await expect(section.getByRole("alert")).toHaveText(
    "That link to more comments does not lead anywhere. Here are the comments from the start.",
  );
  expect(await numbers()).toEqual(range(1, 50));
  await writer.dispose();
});

test("a page of comments that was on its way when one of them was deleted does not bring it back", async ({
  visitor,
  playwright,
}) => {
  test.slow(); // sixty writes and a browser, on a shared machine
  const postId = "soap";
  const writer = await playwright.request.newContext();
  // Texts of its own: the server refuses one address the same comment twice,
  // and this spec's tests may share a server.
  const ids = await seed(writer, postId, 60, "soap wraps grease in micelles.");

  const page = await visitor({ baseURL: site.url });
  // The second page's answer reaches the page only once the events have.
  const secondPage = await holdRead(
    page,
    new RegExp(`/api/items/science/${postId}/comments\\?after=`),
  );
  const { comments, heading, more } = await openLongDiscussion(page, postId);
  await expect(comments).toHaveCount(50);

  await more.click();
  await secondPage.answered;
  // Comment 55, on the page on its way, is deleted; then a new comment, whose
  // arrival (in order, after the deletion) shows the reader has heard both.
  const deleted = await writer.delete(`${site.url}/api/comments/${ids[54]}`, {
    headers: { origin: site.siteUrl },
  });
  expect(deleted.status()).toBe(204);
  await postTo(writer, site, postId, {
    content: "Comment 61: after the deletion.",
    userName: "Zoe",
  });
  // The deleted comment was not loaded, so only the new one is counted yet.
  await expect(heading).toHaveText("Comments (61)");

  await secondPage.release();
  await expect(comments.last()).toContainText("Comment 61: after the deletion.");
  await expect(comments).toHaveCount(60);
  await expect(comments.filter({ hasText: "Comment 55:" })).toHaveCount(0);
  await expect(heading).toHaveText("Comments (60)");
  await writer.dispose();
});
