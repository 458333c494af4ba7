import type { APIRequestContext, Locator, Page, Request } from "@playwright/test";
import type { ServerProcess } from "../support/server-process.ts";
import { seriousViolations } from "./support/axe.ts";
import { expect, test } from "./support/fixtures.ts";
import { holdRead } from "./support/held-read.ts";
import { postTo, startOwnSite } from "./support/own-site.ts";

/*
 * A long discussion as a reader meets it (docs/product.md, "Long discussions";
 * docs/decisions/032-long-discussions-open-at-both-ends.md): its first 20
 * comments and its latest 30, the middle folded behind "Show more comments",
 * new comments live at the end, and a plain link to the middle without
 * JavaScript. On a server of this spec's own, whose limits let the test write
 * a hundred comments through the API at once.
 */

// One group of tests, so one server: the runner splits a file's parallel tests
// into a group per worker, and each group would start a server of its own.
test.describe.configure({ mode: "default" });

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

/**
 * The post's own page, scrolled to its discussion, once that is live and both
 * its reads (the first, and the one made as its stream opened) have landed: a
 * read that reached the server after a test's new comment would bring that
 * comment among the latest, and the fold would keep one more (the page stays
 * right; a count would not).
 */
async function openLongDiscussion(page: Page, postId: string) {
  const reads = new Set<Request>();
  let landed = 0;
  const isRead = (request: Request) =>
    new RegExp(`/api/items/science/${postId}/comments$`).test(request.url());
  page.on("request", (request) => isRead(request) && reads.add(request));
  page.on("requestfinished", (request) => reads.delete(request) && landed++);
  await page.goto(`/science/${postId}`);
  await page.locator(".item-discussion").scrollIntoViewIfNeeded();
  const discussion = page.locator('.item-discussion [data-live="true"]');
  await expect(discussion).toBeAttached({ timeout: 30_000 });
  await expect.poll(() => landed >= 2 && reads.size === 0).toBe(true);
  return {
    discussion,
    comments: discussion.locator("li.comment"),
    heading: discussion.getByRole("heading", { name: /^Comments \(\d+\)$/ }),
    more: discussion.getByRole("button", { name: "Show more comments", exact: true }),
  };
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** The numbers of the "Comment <n>:" texts in `scope`, in the page's order. */
const numbersIn = async (scope: Locator) =>
  (await scope.locator(".comment-text").allTextContents()).map((text) =>
    Number(/^Comment (\d+):/.exec(text)?.[1]),
  );

test("a post of 83 opens with a comment written a moment ago; Show more comments unfolds the middle, focus on its first", async ({
  visitor,
  playwright,
}) => {
  test.slow(); // eighty writes and a browser, on a shared machine
  const postId = "tea-cooling";
  const writer = await playwright.request.newContext();
  await seed(writer, postId, 82);
  await postTo(writer, site, postId, {
    content: "Comment 83: written a moment ago.",
    userName: "Zoe",
  });

  const page = await visitor({ baseURL: site.url });
  const { discussion, comments, heading, more } = await openLongDiscussion(page, postId);

  await expect(heading).toHaveText("Comments (83)");
  await expect(comments).toHaveCount(50);
  expect(await numbersIn(discussion)).toEqual([...range(1, 20), ...range(54, 83)]);
  await expect(comments.last()).toContainText("Comment 83: written a moment ago.");
  await comments.last().scrollIntoViewIfNeeded();
  await expect(comments.last()).toBeVisible();
  await expect(discussion.getByText("33 comments in between")).toBeVisible();
  expect(await seriousViolations(page, ".item-discussion")).toEqual([]);

  // By keyboard: the middle unfolds in its place, focus on the first comment it brought.
  await more.focus();
  await page.keyboard.press("Enter");
  await expect(comments).toHaveCount(83);
  await expect(comments.nth(20)).toBeFocused();
  await expect(comments.nth(20)).toContainText("Comment 21:");
  expect(await numbersIn(discussion)).toEqual(range(1, 83));
  await expect(more).toHaveCount(0);
  expect(await seriousViolations(page, ".item-discussion")).toEqual([]);

  // A new comment appears at once, below the others.
  await postTo(writer, site, postId, { content: "Comment 84: and another.", userName: "Zoe" });
  await expect(comments).toHaveCount(84);
  await expect(comments.last()).toContainText("Comment 84: and another.");
  await expect(heading).toHaveText("Comments (84)");
  await writer.dispose();
});

test("a new comment arrives live below the latest while the middle is still folded", async ({
  visitor,
  playwright,
}) => {
  test.slow();
  const postId = "pressure-cooker";
  const writer = await playwright.request.newContext();
  await seed(writer, postId, 60, "steam under pressure boils water hotter.");
  const page = await visitor({ baseURL: site.url });
  const { discussion, comments, heading, more } = await openLongDiscussion(page, postId);
  await expect(comments).toHaveCount(50);
  await expect(discussion.getByText("10 comments in between")).toBeVisible();

  await postTo(writer, site, postId, { content: "Comment 61: fresh.", userName: "Zoe" });
  await expect(heading).toHaveText("Comments (61)");
  await expect(comments).toHaveCount(51);
  await expect(comments.last()).toContainText("Comment 61: fresh.");
  await expect(more).toBeVisible();
  await expect(discussion.getByText("10 comments in between")).toBeVisible();
  await writer.dispose();
});

test("without JavaScript a post of 83 opens with a comment written a moment ago, and a link unfolds the middle", async ({
  visitor,
  playwright,
}) => {
  test.slow();
  const postId = "starter-motor";
  const writer = await playwright.request.newContext();
  await seed(writer, postId, 82, "a starter motor draws hundreds of amps.");
  await postTo(writer, site, postId, {
    content: "Comment 83: a starter motor, written a moment ago.",
    userName: "Zoe",
  });

  const page = await visitor({ baseURL: site.url, javaScriptEnabled: false });
  const section = page.locator("section#comments");

  // The list page's card leads to the item page for the middle.
  await page.goto("/science");
  // (In the closed card: found by its text rather than its role.)
  const cardLink = page.locator(`.card-body:has(#${postId}) a`, { hasText: "Show more comments" });
  await expect(cardLink).toHaveAttribute(
    "href",
    new RegExp(`^/science/${postId}\\?comments=after-[\\w-]+\\.before-[\\w-]+#comments$`),
  );

  await page.goto(`/science/${postId}`);
  await expect(section.getByRole("heading", { name: "Comments (83)" })).toBeVisible();
  expect(await numbersIn(section)).toEqual([...range(1, 20), ...range(54, 83)]);
  const latest = section.locator("li.comment").last();
  await latest.scrollIntoViewIfNeeded();
  await expect(latest).toContainText("Comment 83: a starter motor, written a moment ago.");
  await expect(latest).toBeVisible();
  await expect(section.getByText("33 comments in between")).toBeVisible();

  await section.getByRole("link", { name: "Show more comments", exact: true }).click();
  await expect(page).toHaveURL(/\?comments=after-[\w-]+\.before-[\w-]+#comments$/);
  expect(await numbersIn(section)).toEqual(range(21, 53));
  await expect(section.getByRole("link", { name: "Show more comments" })).toHaveCount(0);
  await expect(section.getByRole("heading", { name: "Comments (83)" })).toBeVisible();

  await section.getByRole("link", { name: "Back to the latest comments" }).click();
  await expect(page).toHaveURL(new RegExp(`/science/${postId}#comments$`));
  expect(await numbersIn(section)).toEqual([...range(1, 20), ...range(54, 83)]);

  // A link the server did not write: the discussion as it opens, and why.
  const broken = await page.goto(`/science/${postId}?comments=after-nonsense`);
  expect(broken?.status()).toBe(400);
  await expect(section.getByRole("alert")).toHaveText(
    "That link to more comments does not lead anywhere. Here are the comments from the start.",
  );
  expect(await numbersIn(section)).toEqual([...range(1, 20), ...range(54, 83)]);
  await writer.dispose();
});

test("without JavaScript a discussion with no comment yet invites to no form it cannot show", async ({
  visitor,
}) => {
  const page = await visitor({ baseURL: site.url, javaScriptEnabled: false });
  await page.goto("/science/differential-gear");
  const section = page.locator("section#comments");
  await expect(section.getByText("No comments yet.")).toBeVisible();
  expect(await section.innerText()).not.toContain("Start the conversation");
  const live = await visitor({ baseURL: site.url });
  await live.goto("/science/differential-gear");
  await live.locator(".item-discussion").scrollIntoViewIfNeeded();
  await expect(
    live.locator(".item-discussion").getByText("No comments yet. Start the conversation."),
  ).toBeVisible();
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
  // Comment 25, in the stretch on its way, is deleted; then a new comment, whose
  // arrival (in order, after the deletion) shows the reader has heard both.
  const deleted = await writer.delete(`${site.url}/api/comments/${ids[24]}`, {
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
  await expect(comments.filter({ hasText: "Comment 25:" })).toHaveCount(0);
  await expect(heading).toHaveText("Comments (60)");
  await writer.dispose();
});
