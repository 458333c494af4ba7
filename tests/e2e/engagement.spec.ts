import type { Page, Request } from "@playwright/test";
import { seriousViolations } from "./support/axe.ts";
import { postComment, uniqueWord } from "./support/comments.ts";
import { expect, test } from "./support/fixtures.ts";
import { holdRead } from "./support/held-read.ts";
import { newsletterHydrated } from "./support/islands.ts";
import { openDiscussion, openItem } from "./support/items.ts";
import { postgresPort } from "./support/site.ts";
import { startSiteOnPostgres } from "./support/site-on-postgres.ts";

// The site on SQLite and the one on PostgreSQL each have a server and database
// of their own; other specs on the shared server leave these items alone, so
// counts can be compared exactly.
const items = {
  story: "garuda",
  storyButton: /Garuda/,
  post: "soap",
  postButton: /soap/i,
  livePost: "cricket-ball",
  livePostButton: /cricket ball/i,
  crossing: "rama-duty",
  crossingButton: /Rama's Duty/,
} as const;

const reaction = (page: Page, id: string, type: string) =>
  page.locator(`#${id}`).getByRole("button", { name: new RegExp(`^${type} \\d+$`) });

async function count(page: Page, id: string, type: string) {
  const name = await reaction(page, id, type).textContent();
  return Number(name?.match(/\d+/)?.[0]);
}

test.describe("newsletter", () => {
  test("asks the reader to check their inbox, and answers a pending address the same again", async ({
    page,
  }) => {
    const email = `reader-${uniqueWord()}-${Math.random().toString(36).slice(2)}@example.com`;
    await page.goto("/about");
    await newsletterHydrated(page);
    const input = page.getByRole("textbox", { name: "Email address" });
    await input.fill(`  ${email}  `);
    await page.getByRole("button", { name: "Subscribe" }).click();
    await expect(page.getByRole("status")).toHaveText(/Thank you.*Check your inbox/, {
      timeout: 6_000,
    });
    await expect(page.getByRole("button", { name: "Subscribe" })).toBeVisible({ timeout: 4_000 });
    await expect(input).toHaveValue("");

    // Still pending: the same answer, and no second mail within 24 hours.
    await input.fill(email.toUpperCase());
    await page.getByRole("button", { name: "Subscribe" }).click();
    await expect(page.getByRole("status")).toHaveText(/Thank you/, { timeout: 6_000 });
  });

  test("says why an address the browser lets through is refused", async ({ page }) => {
    await page.goto("/about");
    await newsletterHydrated(page);
    // The browser's own check takes an address without a dot in its domain; the site does not.
    await page.getByRole("textbox", { name: "Email address" }).fill("reader@example");
    await page.getByRole("button", { name: "Subscribe" }).click();
    await expect(page.getByRole("alert")).toHaveText("Enter a valid email address.", {
      timeout: 6_000,
    });
    await expect(
      page.getByRole("button", { name: "Not subscribed: an error occurred" }),
    ).toBeVisible();
  });
});

test.describe("reactions", () => {
  test("the name prompt comes first and the click is not replayed; a reaction reaches another reader live", async ({
    visitor,
  }) => {
    test.slow(); // two browsers at once
    const { story, storyButton } = items;
    const page = await visitor();
    const ben = await visitor("Ben");
    await openItem(page, "/mythology", storyButton);
    await expect(reaction(page, story, "Like")).toBeVisible();
    const before = await count(page, story, "Like");

    await reaction(page, story, "Like").click();
    const dialog = page.getByRole("dialog", { name: "Enter your name" });
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();

    await reaction(page, story, "Like").click();
    await page.getByPlaceholder("Your name").fill("Meera");
    await page.getByRole("button", { name: "Continue" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText("Reacting as")).toContainText("Meera");
    expect(await count(page, story, "Like")).toBe(before);
    await expect(reaction(page, story, "Like")).toHaveAttribute("aria-pressed", "false");

    // The count settles on the server's: the live event of the first click may land
    // after the second has shown itself, and the second's answer then puts it right.
    await reaction(page, story, "Like").click();
    await expect(reaction(page, story, "Like")).toHaveAttribute("aria-pressed", "true");
    await expect.poll(() => count(page, story, "Like")).toBe(before + 1);
    await reaction(page, story, "Like").click();
    await expect(reaction(page, story, "Like")).toHaveAttribute("aria-pressed", "false");
    await expect.poll(() => count(page, story, "Like")).toBe(before);

    // Another reader's page, open beside it, sees the next reaction arrive.
    await openItem(ben, "/mythology", storyButton);
    await expect(reaction(ben, story, "Idea")).toBeVisible();
    const ideas = await count(ben, story, "Idea");
    await reaction(page, story, "Idea").click();
    await expect(reaction(page, story, "Idea")).toHaveAttribute("aria-pressed", "true");
    await expect(reaction(ben, story, "Idea")).toHaveText(`Idea ${ideas + 1}`);
    await expect(reaction(ben, story, "Idea")).toHaveAttribute("aria-pressed", "false");

    await reaction(page, story, "Idea").click();
    await expect(reaction(ben, story, "Idea")).toHaveText(`Idea ${ideas}`);
  });

  test("a second click while the first is on its way is sent after its answer, and the page ends as the server holds it", async ({
    visitor,
  }) => {
    const { crossing } = items;
    const page = await visitor("Ravi");
    await openItem(page, "/mythology", items.crossingButton);
    const like = reaction(page, crossing, "Like");
    // Clicked once its count is read (a dash until then), whether or not the
    // stream has opened: its read then waits for the clicks
    // (toggle-while-opening.spec.ts).
    await expect(like).toBeVisible();
    const before = await count(page, crossing, "Like");
    // The first click's request is held before it reaches the server, as a
    // slow network or a loaded server would hold it.
    const sent: string[] = [];
    const gate = Promise.withResolvers<void>();
    await page.route(new RegExp(`/api/items/mythology/${crossing}/reactions`), async (route) => {
      const method = route.request().method();
      if (method !== "GET") sent.push(method);
      if (method === "POST") await gate.promise;
      await route.continue();
    });
    await like.click();
    await expect(like).toHaveAttribute("aria-pressed", "true");
    await like.click();
    await expect(like).toHaveAttribute("aria-pressed", "false");
    gate.resolve();
    await expect.poll(() => sent).toEqual(["POST", "DELETE"]);
    await expect(like).toHaveAttribute("aria-pressed", "false");
    await expect(like).toHaveText(`Like ${before}`);
    // What the server holds: read again from a fresh page.
    await openItem(page, "/mythology", items.crossingButton);
    await expect(like).toHaveText(`Like ${before}`);
    await expect(like).toHaveAttribute("aria-pressed", "false");
  });

  test("by keyboard, Tab from the article reaches Like, and the name prompt gives focus back to the control that opened it", async ({
    visitor,
  }) => {
    const page = await visitor();
    // Not scrolled to: a reader on the keyboard reaches the discussion by Tab.
    await page.goto(`/science/${items.post}`, { waitUntil: "load" });
    const reactions = page.getByRole("group", { name: /^Reactions to / });
    const like = reactions.getByRole("button", { name: /^Like \d+$/ });
    const love = reactions.getByRole("button", { name: /^Love \d+$/ });
    const dialog = page.getByRole("dialog", { name: "Enter your name" });
    const nameBox = dialog.getByRole("textbox", { name: "Your name" });

    // The first Tab wakes the discussion, far below: its buttons, disabled until it is
    // live, would otherwise be passed by, Tab going from the byline on to "Previous".
    await page.keyboard.press("Tab");
    await expect(like).toBeEnabled();
    // From the top of the page, Tab as a keyboard reader does: after the article, Like.
    const inDiscussionOrPast = () =>
      page.evaluate(() => {
        const here = document.activeElement;
        return Boolean(here?.closest(".item-discussion, nav[aria-label^='More in']"));
      });
    for (let presses = 0; presses < 100 && !(await inDiscussionOrPast()); presses++) {
      await page.keyboard.press("Tab");
    }
    await expect(like).toBeFocused();

    // Esc: nothing is stored, and focus is back on Like.
    await page.keyboard.press("Enter");
    await expect(nameBox).toBeFocused();
    await page.keyboard.type("Nila");
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(like).toBeFocused();

    // Enter in the field: the name is stored, and focus is back on Like again.
    await page.keyboard.press("Enter");
    await expect(nameBox).toBeFocused();
    await page.keyboard.type("Nila");
    await page.keyboard.press("Enter");
    await expect(dialog).toBeHidden();
    await expect(page.getByText("Commenting as")).toContainText("Nila");
    await expect(like).toBeFocused();
    await expect(like).toHaveAttribute("aria-pressed", "false");

    // The next Tab goes on from there, not back to the top of the page.
    await page.keyboard.press("Tab");
    await expect(love).toBeFocused();

    // "Change name" opened it: Esc and Continue both come back to it.
    const change = page.getByRole("button", { name: "Change name" });
    await change.focus();
    await page.keyboard.press("Enter");
    await expect(nameBox).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(change).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(nameBox).toBeFocused();
    await page.keyboard.press("End");
    await page.keyboard.type(" R");
    await page.keyboard.press("Enter");
    await expect(page.getByText("Commenting as")).toContainText("Nila R");
    await expect(change).toBeFocused();
  });

  test("by keyboard, Add a comment's prompt leads back to it, or on to the comment box", async ({
    visitor,
  }) => {
    const page = await visitor();
    const comments = await openDiscussion(page, `/science/${items.post}`);
    const add = comments.getByRole("button", { name: "Add a comment" });
    const dialog = page.getByRole("dialog", { name: "Enter your name" });
    await add.focus();
    await page.keyboard.press("Enter");
    await expect(dialog.getByRole("textbox", { name: "Your name" })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(add).toBeFocused();

    await page.keyboard.press("Enter");
    await page.keyboard.type("Tara");
    await page.keyboard.press("Enter");
    await expect(dialog).toBeHidden();
    // The button is gone once a name is set: the box it stood for takes focus.
    const box = comments.getByRole("textbox", { name: "Write a comment" });
    await expect(box).toBeFocused();

    // Posted by keyboard, the comment shows and the box keeps the focus for the next one.
    const text = `Posted by keyboard ${uniqueWord()}`;
    await page.keyboard.type(text);
    await comments.getByRole("button", { name: "Post comment" }).focus();
    await page.keyboard.press("Enter");
    // Its place in the list: the box may still hold the same words for a moment.
    await expect(comments.getByRole("listitem").filter({ hasText: text })).toBeVisible();
    await expect(box).toHaveValue("");
    await expect(box).toBeFocused();
  });
});

// Live events take another path on PostgreSQL (LISTEN/NOTIFY): these run on the
// site on PostgreSQL too, in the same project and workers as every other test
// (a project of their own cost two more workers and browsers at the run's end),
// in one worker, which starts that site for them while the other runs other
// tests (before, every test waited for it to start).
for (const site of [
  { on: "", baseURL: undefined },
  { on: " on PostgreSQL", baseURL: `http://127.0.0.1:${postgresPort}` },
]) {
  test.describe(`live deltas${site.on}`, () => {
    if (site.baseURL) {
      test.use({ baseURL: site.baseURL });
      test.describe.configure({ mode: "default" });
      let onPostgres: Awaited<ReturnType<typeof startSiteOnPostgres>> | undefined;
      test.beforeAll(async () => {
        test.setTimeout(240_000); // a PostgreSQL cluster made, and the server migrating it
        onPostgres = await startSiteOnPostgres();
      });
      test.afterAll(() => onPostgres?.stop());
    }
    const itemReads = /\/api\/items\/science\/[^/]+\/(comments|reactions)$/;

    test("another reader's comment and reaction arrive without a request", async ({
      visitor,
    }, testInfo) => {
      test.slow(); // two browsers at once
      const { livePost, livePostButton } = items;
      const writer = await visitor("Asha");
      const reader = await visitor("Ben");
      const reads: string[] = [];
      let pending = 0;
      reader.on("request", (request) => {
        if (!itemReads.test(new URL(request.url()).pathname)) return;
        reads.push(request.url());
        pending += 1;
      });
      const settled = (request: Request) => {
        if (itemReads.test(new URL(request.url()).pathname)) pending -= 1;
      };
      reader.on("requestfinished", settled);
      reader.on("requestfailed", settled);
      await openItem(reader, "/science", livePostButton);
      await expect(reader.getByRole("textbox", { name: "Write a comment" })).toBeVisible();
      // The stream is open and its one reload has been answered.
      await expect(reader.locator(`#${livePost} [data-live="true"]`)).toBeAttached();
      await expect.poll(() => pending).toBe(0);
      const readsBefore = reads.length;
      const likesBefore = await count(reader, livePost, "Like");

      const text = `Delta ${testInfo.project.name} ${uniqueWord()}`;
      await openItem(writer, "/science", livePostButton);
      await writer.getByRole("textbox", { name: "Write a comment" }).fill(text);
      await writer.getByRole("button", { name: "Post comment" }).click();
      await reaction(writer, livePost, "Like").click();

      await expect(reader.locator(`#${livePost} li`, { hasText: text })).toBeVisible();
      await expect(reaction(reader, livePost, "Like")).toHaveText(`Like ${likesBefore + 1}`);
      expect(reads.length).toBe(readsBefore);
    });

    test("a comment written while the reader's stream is opening still shows", async ({
      visitor,
    }, testInfo) => {
      test.slow(); // two browsers at once
      const { livePost, livePostButton } = items;
      const reader = await visitor("Chitra");
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      await reader.route(/\/api\/events\?/, async (route) => {
        await held;
        await route.continue();
      });
      await openItem(reader, "/science", livePostButton);
      await expect(reader.getByRole("textbox", { name: "Write a comment" })).toBeVisible();

      const text = `While opening ${testInfo.project.name} ${uniqueWord()}`;
      const writer = await visitor("Dev");
      await openItem(writer, "/science", livePostButton);
      await writer.getByRole("textbox", { name: "Write a comment" }).fill(text);
      await writer.getByRole("button", { name: "Post comment" }).click();
      await expect(writer.locator(`#${livePost} li`, { hasText: text })).toBeVisible();

      release();
      await expect(reader.locator(`#${livePost} li`, { hasText: text })).toBeVisible();
    });

    // A read that reached the server before a comment was written, and whose
    // answer arrives after the comment's event, must not hide the comment.
    for (const { nth, when } of [
      { nth: 1, when: "the first read" },
      { nth: 2, when: "the read made as the stream opens" },
    ]) {
      test(`a comment written while ${when} is on its way still shows when that read lands`, async ({
        visitor,
        request,
        baseURL,
      }, testInfo) => {
        test.slow(); // a browser and a writer at once
        const { livePost, livePostButton } = items;
        const reader = await visitor("Esha");
        const read = await holdRead(
          reader,
          new RegExp(`/api/items/science/${livePost}/comments$`),
          nth,
        );
        await openItem(reader, "/science", livePostButton);
        await read.answered;

        const text = `Does the seam matter more than the shine? ${nth} ${testInfo.project.name} ${uniqueWord()}`;
        // Another reader writes through the API, as the form does; no page needed.
        expect(
          await postComment(request, baseURL ?? "", livePost, {
            content: text,
            userName: "Farid",
          }),
        ).toBe(201);
        await expect(reader.locator(`#${livePost} [data-live="true"]`)).toBeAttached();

        await read.release();
        const shown = reader.locator(`#${livePost} li`, { hasText: text });
        await expect(shown).toBeVisible();
        // Still there once the page has handled the old answer.
        await afterNextRender(reader);
        await expect(shown).toBeVisible();
      });
    }
  });
}

/** Waits until the page has run its pending tasks and drawn two frames. */
const afterNextRender = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        requestAnimationFrame(() => setTimeout(() => requestAnimationFrame(() => resolve()), 0)),
      ),
  );

test.describe("comments", () => {
  test("post, edit and delete travel live; only the author may change them", async ({
    visitor,
  }, testInfo) => {
    test.slow(); // two browsers at once
    const { post, postButton } = items;
    const author = await visitor("Kiran");
    const impostor = await visitor("Kiran");
    await openItem(author, "/science", postButton);
    await openItem(impostor, "/science", postButton);
    const text = `Surfactants ${testInfo.project.name} ${uniqueWord()}`;

    const box = author.getByRole("textbox", { name: "Write a comment" });
    await box.fill("   ");
    await expect(author.getByRole("button", { name: "Post comment" })).toBeDisabled();
    await box.fill(`  ${text}  `);
    await author.getByRole("button", { name: "Post comment" }).click();
    await expect(box).toHaveValue("");
    const mine = author.locator(`#${post} li`, { hasText: text });
    await expect(mine).toBeVisible();
    await expect(mine.locator("time")).toHaveText(
      /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M$/,
    );

    const theirs = impostor.locator(`#${post} li`, { hasText: text });
    await expect(theirs).toBeVisible();
    await expect(theirs).toContainText("Kiran");
    await expect(theirs.getByRole("button", { name: "Edit" })).toHaveCount(0);
    await expect(theirs.getByRole("button", { name: "Delete" })).toHaveCount(0);

    // From the keyboard the focus is never left behind on a button that has gone: Edit
    // hands it to the box, Update back to Edit, and Delete to what is left of the list.
    await mine.getByRole("button", { name: "Edit" }).focus();
    await author.keyboard.press("Enter");
    const edit = author.getByRole("textbox", { name: "Edit comment" });
    await expect(edit).toBeFocused();
    await expect(edit).toHaveValue(text);
    await edit.fill("   ");
    await expect(author.getByRole("button", { name: "Update" })).toBeDisabled();
    await edit.fill(`${text} (edited)`);
    await author.getByRole("button", { name: "Update" }).click();
    await expect(author.locator(`#${post} li`, { hasText: `${text} (edited)` })).toBeVisible();
    await expect(impostor.locator(`#${post} li`, { hasText: `${text} (edited)` })).toBeVisible();
    await expect(mine.getByRole("button", { name: "Edit" })).toBeFocused();

    await mine.getByRole("button", { name: "Delete" }).focus();
    await author.keyboard.press("Enter");
    await expect(author.locator(`#${post} li`, { hasText: text })).toHaveCount(0);
    // The next comment, the one before, or the comment box: somewhere in the discussion.
    await expect(author.locator(`#${post} :is(li[data-comment-id], textarea):focus`)).toHaveCount(
      1,
    );
    await expect(impostor.locator(`#${post} li`, { hasText: text })).toHaveCount(0);
  });

  test("an edit shows as edited on another reader's open page, without a reload; markup in a comment is shown as text; without a name the form is replaced by a prompt", async ({
    visitor,
  }) => {
    test.slow(); // two browsers at once
    const { post, postButton } = items;
    const author = await visitor("<b>Mallory</b>");
    const reader = await visitor();
    await openItem(author, "/science", postButton);
    const comments = await openDiscussion(reader, `/science/${post}`);
    const text = `Hard water and lather ${uniqueWord()}`;

    await author.getByRole("textbox", { name: "Write a comment" }).fill(text);
    await author.getByRole("button", { name: "Post comment" }).click();
    const theirs = comments.getByRole("listitem").filter({ hasText: text });
    await expect(theirs).toBeVisible();
    await expect(theirs).not.toContainText("edited");
    // A mark the page keeps only for as long as it is not loaded again.
    await reader.evaluate(() => {
      (window as unknown as { notReloaded: boolean }).notReloaded = true;
    });

    await author
      .locator(`#${post} li`, { hasText: text })
      .getByRole("button", { name: "Edit" })
      .click();
    await author.getByRole("textbox", { name: "Edit comment" }).fill(`${text}, and soap scum`);
    await author.getByRole("button", { name: "Update" }).click();

    const edited = comments.getByRole("listitem").filter({ hasText: `${text}, and soap scum` });
    await expect(edited).toBeVisible();
    await expect(edited.locator(".comment-edited")).toHaveText("· edited");
    await expect(edited.locator(".comment-edited")).toHaveAttribute("title", /^Edited /);
    expect(
      await reader.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded),
    ).toBe(true);

    // Markup, in a comment and in its writer's name, is shown as text.
    const payload = `<img src=x onerror="window.__owned=1"> ${uniqueWord()}`;
    await author.getByRole("textbox", { name: "Write a comment" }).fill(payload);
    const sent = author.waitForResponse(
      (response) =>
        response.request().method() === "POST" && response.url().endsWith(`/${post}/comments`),
    );
    await author.getByRole("button", { name: "Post comment" }).click();
    // The server's answer first: a refusal then says why, where the list could only be empty.
    const answer = await sent;
    expect(answer.status(), await answer.text()).toBe(201);
    const row = author.locator(`#${post} li`, { hasText: payload });
    await expect(row).toBeVisible();
    await expect(row).toContainText("<b>Mallory</b>");
    await expect(row.locator("img")).toHaveCount(0);
    expect(await author.evaluate(() => (window as { __owned?: number }).__owned)).toBeUndefined();
    await row.getByRole("button", { name: "Delete" }).click();

    // The reader without a name has a prompt where the form would be.
    await expect(comments.getByRole("textbox", { name: "Write a comment" })).toHaveCount(0);
    await comments.getByRole("button", { name: "Add a comment" }).click();
    await expect(reader.getByRole("dialog", { name: "Enter your name" })).toBeVisible();
    // The dialog and then the open form: the page around them is checked elsewhere.
    expect(await seriousViolations(reader, "[role=dialog]")).toEqual([]);
    await reader.getByPlaceholder("Your name").fill("Leela");
    await reader.keyboard.press("Enter");
    await expect(comments.getByRole("textbox", { name: "Write a comment" })).toBeVisible();
    expect(await seriousViolations(reader, ".item-discussion")).toEqual([]);
  });

  test("a rate-limited reader is asked to slow down", async ({ visitor, baseURL }) => {
    const { story, storyButton } = items;
    const page = await visitor("Hasty");
    await openItem(page, "/mythology", storyButton);
    await expect(reaction(page, story, "Love")).toBeVisible();
    // Use up this visitor's write allowance through the API, with the page's own cookie.
    let status = 0;
    for (let attempt = 0; attempt < 200 && status !== 429; attempt++) {
      const response = await page.request.post(`/api/items/mythology/${story}/reactions`, {
        headers: { Origin: baseURL ?? "" },
        data: { type: "dislike", userName: "Hasty" },
      });
      status = response.status();
    }
    expect(status).toBe(429);
    const before = await count(page, story, "Love");
    await reaction(page, story, "Love").click();
    await expect(page.getByRole("alert")).toContainText("please slow down", { ignoreCase: true });
    expect(await count(page, story, "Love")).toBe(before);
  });
});
