import type { BrowserContext, Locator, Page } from "@playwright/test";
import { commentResponseSchema } from "../../contract/api.ts";
import { limits } from "../../contract/limits.ts";
import { blankLinesInARowMax, marksPerCharacterMax } from "../../contract/text.ts";
import { seriousViolations } from "./support/axe.ts";
import { expect, type OpenVisitor, test } from "./support/fixtures.ts";
import { type OwnSite, ownerCli, startOwnSite } from "./support/own-site.ts";

/*
 * No comment or name widens the page (docs/product.md, "Limits"): the longest
 * name the server takes, with no space in it; a long run of letters each
 * carrying as many marks as allowed; a long word shaped like an address; as
 * many lines as fit, with as many blank lines between them as allowed. Posted
 * through the real API, then looked at on the item's page and on the list
 * page, with JavaScript (the live island, with the writer's own Edit and
 * Delete) and without (the server's HTML), at a phone's width and a desktop's.
 */

// One server, one set of comments, for all four layouts, in one worker.
test.describe.configure({ mode: "default" });

let site: OwnSite;
/** The cookies of the browser that wrote the comments. */
let writerState: Awaited<ReturnType<BrowserContext["storageState"]>>;
const postId = "differential-gear";
const name = "W".repeat(limits.userNameMax);

/** Marks above and below, `marksPerCharacterMax` of them on every letter. */
const marks = ["\u0300", "\u0301", "\u0316", "\u0317", "\u0302", "\u0318"]
  .slice(0, marksPerCharacterMax)
  .join("");
const stacked = Array.from(
  { length: Math.floor(limits.commentMax / (1 + marksPerCharacterMax)) },
  (_, i) => `${String.fromCharCode(97 + (i % 26))}${marks}`,
).join("");
const address = `https://example.com/${"a1b2c3d4".repeat(240)}`.slice(0, limits.commentMax);
const blank = "\n".repeat(blankLinesInARowMax + 1);
// Every line a word of its own: repeated words read as keyword spam to the server.
const lines = Array.from({ length: 300 }, (_, i) => `Step${i + 1}`)
  .join(blank)
  .slice(0, limits.commentMax)
  .trim();
const samples = [stacked, address, lines];

test.beforeAll(async ({ browser }) => {
  site = await startOwnSite("comment-layout");
  // Written by the browser that reads them as a writer below: its cookie makes them its own.
  const writer = await browser.newContext({ baseURL: site.url });
  for (const content of samples) {
    const response = await writer.request.post(`/api/items/science/${postId}/comments`, {
      data: { content, userName: name },
      headers: { origin: site.siteUrl },
    });
    expect(response.status(), await response.text()).toBe(201);
    // Text this strange is held, or taken for spam, by the spam filter: the
    // owner publishes it, so the page without JavaScript shows all three.
    const { comment } = commentResponseSchema.parse(await response.json());
    ownerCli(site, "comments", "approve", String(comment.id));
  }
  writerState = await writer.storageState();
  await writer.close();
});
test.afterAll(async () => {
  await site?.stop();
});

/** How each comment sits in its list, and its name and text in it, in CSS pixels. */
async function overflows(page: Page, scope: Locator) {
  const viewport = page.viewportSize()?.width ?? 0;
  const { pageWidth, widest } = await page.evaluate(() => ({
    pageWidth: document.documentElement.scrollWidth,
    // What sticks out, innermost first, to say what to fix.
    widest: [...document.body.querySelectorAll("*")]
      .filter((element) => element.getBoundingClientRect().right > window.innerWidth + 0.5)
      .reverse()
      .slice(0, 5)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}`),
  }));
  expect(pageWidth, `the page is wider than the window: ${widest.join(" < ")}`).toBeLessThanOrEqual(
    viewport,
  );
  const found = await scope.locator("li.comment").evaluateAll((items) =>
    items.flatMap((item) => {
      const within = (inner: Element, outer: Element, what: string) => {
        const a = inner.getBoundingClientRect();
        const b = outer.getBoundingClientRect();
        return a.left >= b.left - 0.5 && a.right <= b.right + 0.5 ? [] : [what];
      };
      const list = item.parentElement as Element;
      return [
        ...within(item, list, "comment in its list"),
        ...(item.scrollWidth > item.clientWidth ? ["comment scrolls sideways"] : []),
        // What is drawn: without JavaScript the live comments' buttons are not.
        ...[...item.querySelectorAll(".comment-author, .comment-text, button, time")]
          .filter((part) => part.getClientRects().length > 0)
          .flatMap((part) =>
            within(part, item, `${part.className || part.tagName} in its comment`),
          ),
      ];
    }),
  );
  return found;
}

function reader(visitor: OpenVisitor, width: number, javaScriptEnabled: boolean) {
  return visitor({
    baseURL: site.url,
    viewport: { width, height: 900 },
    javaScriptEnabled,
    // With JavaScript, the writer: their own comments carry Edit and Delete.
    ...(javaScriptEnabled ? { storageState: writerState, name } : {}),
  });
}

for (const width of [400, 1280]) {
  for (const javaScriptEnabled of [true, false]) {
    test(`comments never widen the page at ${width} px ${javaScriptEnabled ? "with" : "without"} JavaScript`, async ({
      visitor,
    }) => {
      test.slow();
      const page = await reader(visitor, width, javaScriptEnabled);
      // The item's own page.
      await page.goto(`/science/${postId}`);
      let scope: Locator;
      if (javaScriptEnabled) {
        await page.locator(".item-discussion").scrollIntoViewIfNeeded();
        scope = page.locator('.item-discussion [data-live="true"]');
        await expect(scope.getByRole("button", { name: "Edit" })).toHaveCount(samples.length, {
          timeout: 30_000,
        });
      } else {
        scope = page.locator("section#comments");
      }
      await expect(scope.locator("li.comment")).toHaveCount(samples.length);
      expect(await overflows(page, scope)).toEqual([]);
      // The server cannot know the reader's zone: without JavaScript the time says
      // which it is in; live, it is the reader's own.
      await expect(scope.locator("li.comment time").first()).toHaveText(
        javaScriptEnabled
          ? /^\w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M$/
          : /, \d{1,2}:\d{2} [AP]M UTC$/,
      );

      // The list page, the post's card open.
      await page.goto(`/science#${postId}`);
      if (javaScriptEnabled) {
        scope = page.locator(`[data-card="${postId}"] [data-live="true"]`);
        await expect(scope.getByRole("button", { name: "Edit" })).toHaveCount(samples.length, {
          timeout: 30_000,
        });
      } else {
        scope = page.locator(`.card-body:has(#${postId}) .static-comments`);
      }
      await expect(scope.locator("li.comment")).toHaveCount(samples.length);
      await expect(scope.locator("li.comment").first()).toBeVisible();
      expect(await overflows(page, scope)).toEqual([]);
    });
  }
}

/*
 * A long comment folds (docs/product.md, "Long comments"): in the live island
 * it stops at a fixed height until "Read the whole comment", which shows the
 * rest and moves focus to it; the page as served, without JavaScript, shows it
 * whole.
 */
for (const width of [390, 1280]) {
  for (const javaScriptEnabled of [true, false]) {
    test(`a long comment ${javaScriptEnabled ? "folds until it is asked for whole" : "reads whole"} at ${width} px ${javaScriptEnabled ? "with" : "without"} JavaScript`, async ({
      visitor,
    }) => {
      test.slow();
      const page = await visitor({
        baseURL: site.url,
        viewport: { width, height: 900 },
        javaScriptEnabled,
        reducedMotion: "reduce",
      });
      await page.goto(`/science/${postId}`);
      await page.locator(".item-discussion").scrollIntoViewIfNeeded();
      const scope = javaScriptEnabled
        ? page.locator('.item-discussion [data-live="true"]')
        : page.locator("section#comments");
      const long = scope.locator("li.comment", { hasText: "Step1" });
      const text = long.locator(".comment-text");
      const height = async () => (await text.boundingBox())?.height ?? 0;
      const lastLine = lines.split("\n").at(-1) as string;
      const readWhole = long.getByRole("button", { name: "Read the whole comment", exact: true });
      await expect(text).toBeVisible({ timeout: 30_000 });
      if (!javaScriptEnabled) {
        await expect(readWhole).toHaveCount(0);
        expect(await height()).toBeGreaterThan(2000);
        await expect(text).toContainText(lastLine);
        return;
      }
      await expect(readWhole).toBeVisible();
      expect(await height()).toBeLessThanOrEqual(300);
      expect(await seriousViolations(page, ".item-discussion")).toEqual([]);
      // By keyboard: the whole text, and reading goes on from its start.
      await readWhole.focus();
      await page.keyboard.press("Enter");
      await expect(readWhole).toHaveCount(0);
      await expect(text).toBeFocused();
      await expect.poll(height).toBeGreaterThan(2000);
      const end = text.getByText(lastLine, { exact: true });
      await end.scrollIntoViewIfNeeded();
      await expect(end).toBeVisible();
      expect(await seriousViolations(page, ".item-discussion")).toEqual([]);
    });
  }
}

/*
 * On a phone a comment's own buttons are 44 px targets, as the header's icon
 * buttons are; on a desktop they stay the small buttons under the text.
 */
for (const width of [390, 1280]) {
  test(`at ${width} px, Reply, Edit, Delete and the reply mails' checkbox are ${width < 640 ? "44 px targets" : "as small as before"}`, async ({
    visitor,
  }) => {
    const page = await reader(visitor, width, true);
    await page.goto(`/science/${postId}`);
    await page.locator(".item-discussion").scrollIntoViewIfNeeded();
    const scope = page.locator('.item-discussion [data-live="true"]');
    const first = scope.locator("li.comment").first();
    const buttons = ["Reply", "Edit", "Delete"].map((name) =>
      first.getByRole("button", { name, exact: true }),
    );
    await expect(buttons[2] as Locator).toBeVisible({ timeout: 30_000 });
    const checkbox = scope.getByRole("checkbox", { name: "Email me when someone replies" });
    // The checkbox's target is its label: a tap anywhere on it ticks the box.
    const label = scope.locator("label", {
      has: page.getByRole("checkbox", { name: "Email me when someone replies" }),
    });
    const boxes = async (targets: Locator[]) =>
      Promise.all(targets.map(async (target) => (await target.boundingBox()) ?? undefined));

    const [reply, edit, remove, labelBox] = await boxes([...buttons, label]);
    for (const box of [reply, edit, remove, labelBox]) expect(box).toBeDefined();
    if (width < 640) {
      for (const box of [reply, edit, remove, labelBox]) {
        expect(box?.height).toBeGreaterThanOrEqual(44);
        expect(box?.width).toBeGreaterThanOrEqual(44);
      }
      await label.click({ position: { x: 2, y: 2 } });
      await expect(checkbox).toBeChecked();
      await label.click({ position: { x: 2, y: (labelBox?.height ?? 0) - 2 } });
      await expect(checkbox).not.toBeChecked();
    } else {
      for (const box of [reply, edit, remove, labelBox]) expect(box?.height).toBeLessThan(32);
    }
    // In one row under the comment, whatever the width.
    expect(new Set([reply, edit, remove].map((box) => Math.round(box?.y ?? -1))).size).toBe(1);

    // Editing: Update and Cancel the same.
    await (buttons[1] as Locator).click();
    const editing = [
      first.getByRole("button", { name: "Update", exact: true }),
      first.getByRole("button", { name: "Cancel", exact: true }),
    ];
    await expect(editing[0] as Locator).toBeVisible();
    for (const box of await boxes(editing)) {
      if (width < 640) expect(box?.height).toBeGreaterThanOrEqual(44);
      else expect(box?.height).toBeLessThan(44);
    }
    await (editing[1] as Locator).click();
  });
}
