import { readFileSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Page } from "@playwright/test";
import { siteName } from "../../app/lib/site-name.ts";
import { readOwnerProfile } from "../../content/owner.ts";
import { seriousViolations } from "./support/axe.ts";
import { postComment, uniqueWord } from "./support/comments.ts";
import { expect, test } from "./support/fixtures.ts";
import { islandsHydrated } from "./support/islands.ts";
import { openItem } from "./support/items.ts";
import { startOwnSite } from "./support/own-site.ts";

// Items no other spec on the shared server comments on or reacts to.
const items = {
  post: "tea-cooling",
  postButton: /tea cool/i,
  /** For the tests that only need a comment somewhere, apart from the live one. */
  other: "starter-motor",
  story: "sagaras-haste",
  storyButton: /Sagaras' Haste/,
} as const;

/**
 * A comment as the item's live list shows it: a list item, never the draft
 * still in the form's text box (whose text matches until the post is sent).
 */
const comment = (page: Page, id: string, text: string) =>
  page
    .locator(`#${id}`)
    .getByRole("region", { name: "Comments" })
    .getByRole("listitem")
    .filter({ hasText: text });

const reaction = (page: Page, id: string, type: string) =>
  page.locator(`#${id}`).getByRole("button", { name: new RegExp(`^${type} \\d+$`) });

test.describe("your data", () => {
  test("downloads a reader's own comments and reactions, and their deletion reaches another reader's open page live", async ({
    visitor,
  }, testInfo) => {
    test.slow(); // two browsers at once
    const { post, postButton, story, storyButton } = items;
    const text = `I wrote this and may take it back, ${testInfo.project.name} ${uniqueWord()}`;

    const writer = await visitor("Asha");
    await openItem(writer, "/science", postButton);
    await writer.getByRole("textbox", { name: "Write a comment" }).fill(text);
    await writer.getByRole("button", { name: "Post comment" }).click();
    await expect(comment(writer, post, text)).toBeVisible();
    await reaction(writer, post, "Idea").click();
    await expect(reaction(writer, post, "Idea")).toHaveAttribute("aria-pressed", "true");
    await openItem(writer, "/mythology", storyButton);
    await reaction(writer, story, "Love").click();
    await expect(reaction(writer, story, "Love")).toHaveAttribute("aria-pressed", "true");

    // Someone else has the post open, and sees the comment and the reaction.
    const other = await visitor("Ben");
    await openItem(other, "/science", postButton);
    await expect(comment(other, post, text)).toBeVisible();
    await expect(other.locator(`#${post} [data-live="true"]`)).toBeAttached();
    // The writer's reaction is counted on this page too before the count is read.
    await expect(reaction(other, post, "Idea")).not.toHaveText("Idea 0");
    const ideas = Number((await reaction(other, post, "Idea").textContent())?.match(/\d+/)?.[0]);

    await writer.goto("/your-data");
    await islandsHydrated(writer);
    await expect(writer.getByRole("main").getByRole("status")).toHaveText(
      "This browser owns 1 comment and 2 reactions.",
    );

    const [download] = await Promise.all([
      writer.waitForEvent("download"),
      writer.getByRole("link", { name: "Download my data (JSON)" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^engage-with-engineer-your-data-.+\.json$/);
    const data = JSON.parse(readFileSync((await download.path())!, "utf8"));
    expect(data.comments).toEqual([
      expect.objectContaining({ postId: post, content: text, userName: "Asha" }),
    ]);
    expect(
      data.reactions.map(
        (entry: { itemId: string; type: string }) => `${entry.itemId}:${entry.type}`,
      ),
    ).toEqual(expect.arrayContaining([`${post}:idea`, `${story}:love`]));
    expect(data.reactions).toHaveLength(2);

    await writer
      .getByRole("button", { name: "Delete all my comments, reactions and booked calls" })
      .click();
    const confirm = writer.getByRole("alertdialog", {
      name: "Delete all your comments, reactions and booked calls?",
    });
    await expect(confirm).toBeVisible();
    await expect(confirm).toContainText("1 comment and 2 reactions");
    expect(await seriousViolations(writer)).toEqual([]);
    await confirm.getByRole("button", { name: "Delete everything" }).click();
    await expect(confirm).toBeHidden();
    await expect(writer.getByRole("main").getByRole("status")).toHaveText(
      /^Deleted 1 comment and 2 reactions\./,
    );

    // The other reader's page follows without a reload.
    await expect(comment(other, post, text)).toHaveCount(0);
    await expect(reaction(other, post, "Idea")).toHaveText(`Idea ${ideas - 1}`);

    await writer.reload();
    await expect(writer.getByRole("main").getByRole("status")).toHaveText(
      "This browser owns no comments or reactions here.",
    );
  });

  test("a deletion that fails part way does not say that nothing was deleted; pressed again, it deletes the rest", async ({
    visitor,
  }) => {
    test.slow(); // a server of its own, whose database refuses for a moment
    const own = await startOwnSite("your-data-parts", { host: "localhost" });
    const origin = own.siteUrl;
    const db = new DatabaseSync(path.join(own.dataDir, "engage.sqlite"));
    try {
      const page = await visitor("Dara");
      await page.goto(`${origin}/your-data`);
      const item = `${origin}/api/items/science/${items.other}`;
      const headers = { origin };
      const text = `Part way ${uniqueWord()}`;
      const wrote = await page.request.post(`${item}/comments`, {
        headers,
        data: { content: text, userName: "Dara" },
      });
      expect(wrote.status()).toBe(201);
      const reacted = await page.request.post(`${item}/reactions`, {
        headers,
        data: { type: "dislike", userName: "Dara" },
      });
      expect(reacted.status()).toBeLessThan(300);
      await page.reload();
      await islandsHydrated(page);
      const status = page.getByRole("main").getByRole("status");
      await expect(status).toHaveText("This browser owns 1 comment and 1 reaction.");
      const shown = () =>
        db
          .prepare(
            "select count(*) as n from science_comments where content = ? and deleted_at is null",
          )
          .get(text);

      // The database refuses to delete reactions: the comment has gone when the deletion fails.
      db.exec("pragma busy_timeout = 5000");
      db.exec(
        "create trigger refuse_reactions before delete on science_reactions begin select raise(abort, 'refused'); end",
      );
      const confirm = page.getByRole("alertdialog");
      try {
        await page
          .getByRole("button", { name: "Delete all my comments, reactions and booked calls" })
          .click();
        await confirm.getByRole("button", { name: "Delete everything" }).click();
        await expect(confirm.getByRole("alert")).toHaveText(
          "Something went wrong on our side, and part of it may be deleted already. Please try again in a moment to delete the rest.",
        );
        expect(shown()).toEqual({ n: 0 });
      } finally {
        db.exec("drop trigger refuse_reactions");
      }
      await confirm.getByRole("button", { name: "Delete everything" }).click();
      await expect(confirm).toBeHidden();
      await expect(status).toHaveText(/^Deleted 0 comments and 1 reaction\./);
    } finally {
      db.close();
      await own.stop();
    }
  });

  test("cancelling the confirmation deletes nothing", async ({ visitor }, testInfo) => {
    const { other: post } = items;
    const page = await visitor("Chitra");
    const text = `Kept ${testInfo.project.name} ${uniqueWord()}`;
    await page.goto("/your-data");
    const written = await postComment(page.request, new URL(page.url()).origin, post, {
      content: text,
      userName: "Chitra",
    });
    expect(written).toBe(201);
    await page.reload();
    await islandsHydrated(page);
    await expect(page.getByRole("main").getByRole("status")).toHaveText(
      "This browser owns 1 comment and 0 reactions.",
    );
    await page
      .getByRole("button", { name: "Delete all my comments, reactions and booked calls" })
      .click();
    await page.getByRole("button", { name: "Cancel" }).click();
    await expect(page.getByRole("alertdialog")).toBeHidden();
    await expect(
      page.getByRole("button", { name: "Delete all my comments, reactions and booked calls" }),
    ).toBeFocused();
    const comments = await (await page.request.get(`/api/items/science/${post}/comments`)).json();
    expect(comments.comments.map((comment: { content: string }) => comment.content)).toContain(
      text,
    );
  });

  test("works without JavaScript: a confirmation page, then a plain form", async ({
    visitor,
  }, testInfo) => {
    const { other: post } = items;
    const page = await visitor({ javaScriptEnabled: false });
    const context = page.context();
    await page.goto("/your-data");
    const origin = new URL(page.url()).origin;
    const text = `Written elsewhere ${testInfo.project.name} ${uniqueWord()}`;
    const written = await postComment(context.request, origin, post, {
      content: text,
      userName: "Dev",
    });
    expect(written).toBe(201);

    await page
      .getByRole("link", { name: "Delete all my comments, reactions and booked calls" })
      .click();
    await expect(
      page.getByRole("heading", {
        level: 1,
        name: "Delete all your comments, reactions and booked calls?",
      }),
    ).toBeVisible();
    // What the button deletes, as the dialog says it with JavaScript: the calls too.
    await expect(page.getByRole("main")).toContainText(
      "the calls booked from it deleted: a call still ahead is cancelled first",
    );
    await page.getByRole("button", { name: "Delete everything" }).click();
    await expect(page).toHaveURL(/\/your-data\/deleted$/);
    await expect(page.getByRole("heading", { level: 1, name: "Deleted" })).toBeVisible();
    // What went, as the button named it: the calls too, not only comments and reactions.
    await expect(page.getByRole("main")).toContainText(
      "Every comment, reaction and booked call this browser had made is deleted",
    );
    const comments = await (
      await context.request.get(`/api/items/science/${post}/comments`)
    ).json();
    expect(comments.comments.map((comment: { content: string }) => comment.content)).not.toContain(
      text,
    );

    // Again: there is nothing left.
    await page.goto("/your-data/delete");
    await page.getByRole("button", { name: "Delete everything" }).click();
    await expect(page).toHaveURL(/\/your-data\/nothing$/);
    // It points to where the answer is: the page it leads back to, not a "below" it lacks.
    await expect(page.getByRole("main")).toContainText("the owner removes them on request");
    await expect(page.getByRole("main")).toContainText(
      "This browser owns no comments, reactions or booked calls on the site",
    );
    await expect(page.getByRole("main")).not.toContainText("see below");
  });

  test("a browser that never wrote is told it owns nothing; the pages are axe clean", async ({
    page,
  }) => {
    await page.goto("/your-data");
    await expect(page.getByRole("heading", { level: 1, name: "Your data" })).toBeVisible();
    // The opening line names all that the page's button deletes, booked calls among it.
    await expect(
      page.getByText(
        "Download, or delete, every comment, reaction and booked call this browser has made on the site.",
      ),
    ).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await islandsHydrated(page);
    await expect(page.getByRole("main").getByRole("status")).toHaveText(
      "This browser has no visitor cookie, so it owns no comments or reactions here.",
    );
    await expect(
      page.getByRole("button", { name: "Delete all my comments, reactions and booked calls" }),
    ).toBeDisabled();
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto("/your-data/delete");
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("link", { name: "Cancel" }).click();
    await expect(page).toHaveURL(/\/your-data$/);
    await page.locator("footer").getByRole("link", { name: "Your data" }).click();
    await expect(page).toHaveURL(/\/your-data$/);
  });

  test("says how to delete what the cookie does not reach: an enquiry, a call booked without JavaScript, a question to the assistant, a newsletter address", async ({
    page,
  }) => {
    await page.goto("/your-data");
    // A reader who sent an enquiry is told it is not among what this page deletes, and where it is.
    const others = page
      .getByRole("main")
      .getByRole("list")
      .filter({ hasText: "The display name" })
      .getByRole("listitem");
    await expect(others.filter({ hasText: /^An enquiry is not tied to the cookie\./ })).toHaveText(
      /Its acknowledgement mail carries a link that deletes it; otherwise it is deleted 365 days after it was sent, unless it becomes a project, or sooner if you write to owner@example\.com\.$/,
    );
    await expect(others.filter({ hasText: /^A call booked without JavaScript/ })).toHaveCount(1);
    // A reader who typed something of theirs into a question learns that Delete does not take it.
    await expect(
      others.filter({ hasText: /^A question to the assistant is kept without anything/ }),
    ).toHaveText(
      /so the cookie cannot find it\. It is deleted 90 days after it was asked, or sooner if you write to owner@example\.com with its words\.$/,
    );
    await expect(others.filter({ hasText: /^A newsletter address/ })).toHaveCount(1);
  });

  test("the privacy page names the owner of the profile as the data controller, the cookie, what the assistant keeps and the rights, and links here", async ({
    page,
  }) => {
    await page.goto("/privacy");
    // The browser tests' site keeps the repository's profile and sets no SITE_OWNER_NAME.
    const owner = readOwnerProfile();
    const who = page
      .getByRole("heading", { name: "Who runs this site" })
      .locator("xpath=following-sibling::p[1]");
    await expect(who).toContainText(
      `${siteName} is run by ${owner.name}${owner.location ? `, based in ${owner.location}` : ""}`,
    );
    await expect(who).toContainText("we are the controller of your personal data");
    await expect(who).toContainText("Data Fiduciary");
    const main = page.getByRole("main");
    await expect(main).toContainText("ewe_visitor");
    await expect(main).toContainText("400 days");
    await expect(main.locator("#assistant")).toContainText(
      "no name, address, IP address or cookie",
    );
    await expect(main).toContainText("owner@example.com");
    await expect(main).toContainText("Data Principal");
    await expect(main).toContainText("Nomination");
    await expect(main).toContainText("Portability");
    await expect(main).toContainText("supervisory authority");
    // How long any copy of a deleted comment lasts, copy by copy.
    const deletion = main
      .getByRole("heading", { name: "When a comment is deleted or edited" })
      .locator("xpath=following-sibling::ul[1]");
    await expect(deletion).toContainText("live-update journal: gone at once");
    await expect(deletion).toContainText("one about a comment deleted before then is not sent");
    await expect(deletion).toContainText("until it writes over that space");
    await expect(deletion).toContainText(
      "A mail already sent is in its reader's mailbox and keeps the reply's text as it was sent",
    );
    await expect(deletion).toContainText("We keep each backup for 30 days");
    await main.getByRole("link", { name: "Your data" }).first().click();
    await expect(page.getByRole("heading", { level: 1, name: "Your data" })).toBeVisible();
  });
});
