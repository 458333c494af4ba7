import type { Page } from "@playwright/test";
import { seriousViolations } from "./support/axe.ts";
import { uniqueWord } from "./support/comments.ts";
import { expect, type OpenVisitor, test } from "./support/fixtures.ts";
import { liveDiscussion, openDiscussion } from "./support/items.ts";
import { drawn, seen, watchLayout } from "./support/layout.ts";
import { type OwnSite, ownerCli, ownerState, postTo, startOwnSite } from "./support/own-site.ts";
import { refuseWrite } from "./support/refused-write.ts";

/*
 * The owner speaks as the owner (docs/decisions/016-owner-voice.md), in
 * Chromium: signed in to the console, the owner comments on a science post
 * through the page's own form and the comment shows "Author", live on a
 * reader's open page and in the served HTML; the owner edits and deletes a
 * reader's comment from the page and the reader sees it happen. The owner
 * also answers a reader from the console's Comments screen (docs/console.md):
 * Reply opens "Write a reply", "Post reply" sends it,
 * and the answer appears with "Author" under the question on a reader's open
 * page, without a reload, and on the item page for a later reader; the screen
 * is axe clean with the form open. The spec starts its own server so it can
 * set SITE_OWNER_NAME and run the command line against its data; its tests
 * share it, and one sign-in. On SQLite only: replies on PostgreSQL are the
 * server tests' (tests/server/replies.test.ts, both databases), and a console
 * action reaching a reader's open page live on PostgreSQL is
 * console-approval.spec.ts's.
 */

test.describe.configure({ mode: "serial" });

const ownerName = "Ravi Kumar";
const post = "soap";
let own: OwnSite;
/** Its SITE_URL, `http://localhost:<port>`: the console's passkeys need a host name. */
let site: string;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  own = await startOwnSite("owner-voice", {
    host: "localhost",
    env: { SITE_OWNER_NAME: ownerName },
  });
  site = own.siteUrl;
});

test.afterAll(async () => {
  await own?.stop();
});

/** The owner's browser, signed in once for the spec (`ownerState`). */
async function ownerPage(visitor: OpenVisitor): Promise<Page> {
  return visitor({ storageState: await ownerState(own) });
}

/** The post's own page, its discussion live (hydrated once seen, its stream open). */
const openPost = (page: Page) => openDiscussion(page, `${site}/science/${post}`);

test("the owner comments with the Author badge, live for a reader, and edits and deletes a reader's comment from the page", async ({
  visitor,
}) => {
  test.slow();
  const reader = await visitor("Nadia");
  const readerComments = await openPost(reader);

  // A reader's comment, through the form.
  const question = `Why does soap foam more in soft water? ${uniqueWord()}`;
  await readerComments.getByRole("textbox", { name: "Write a comment" }).fill(question);
  await readerComments.getByRole("button", { name: "Post comment" }).click();
  const readersOwn = readerComments.getByRole("listitem").filter({ hasText: question });
  await expect(readersOwn).toBeVisible();

  // The owner, signed in, on the same page: every comment has Edit and Delete,
  // and the form comments under the owner's name without asking for one.
  const owner = await ownerPage(visitor);
  const ownerComments = await openPost(owner);
  await expect(owner.getByText(`Commenting as ${ownerName}`)).toBeVisible();
  await expect(owner.getByRole("button", { name: "Change name" })).toHaveCount(0);
  const theQuestion = ownerComments.getByRole("listitem").filter({ hasText: question });
  await expect(theQuestion.getByRole("button", { name: "Edit" })).toBeVisible();
  await expect(theQuestion.getByRole("button", { name: "Delete" })).toBeVisible();

  const answer = `Hard water's calcium binds the soap first. ${uniqueWord()}`;
  await ownerComments.getByRole("textbox", { name: "Write a comment" }).fill(answer);
  await ownerComments.getByRole("button", { name: "Post comment" }).click();
  const ownersAnswer = ownerComments.getByRole("listitem").filter({ hasText: answer });
  await expect(ownersAnswer.getByText("Author", { exact: true })).toBeVisible();
  await expect(ownersAnswer).toContainText(ownerName);

  // The reader sees it arrive, badge and all, without a reload; no Edit or
  // Delete on it, nor on anything but their own: only Reply.
  const arrived = readerComments.getByRole("listitem").filter({ hasText: answer });
  await expect(arrived.getByText("Author", { exact: true })).toBeVisible();
  await expect(arrived).toContainText(ownerName);
  await expect(arrived.getByRole("button")).toHaveText(["Reply"]);
  await expect(readersOwn.getByRole("button", { name: "Delete" })).toBeVisible();

  expect(await seriousViolations(owner, "main")).toEqual([]);

  // Without JavaScript the served page carries the badge too.
  const plainPage = await visitor({ javaScriptEnabled: false });
  await plainPage.goto(`${site}/science/${post}`);
  const served = plainPage.getByRole("listitem").filter({ hasText: answer });
  await expect(served.getByText("Author", { exact: true })).toBeVisible();

  // The owner edits the reader's comment, then deletes it: the reader's page follows.
  const edited = `${question} (edited by the site's author)`;
  await theQuestion.getByRole("button", { name: "Edit" }).click();
  const box = ownerComments.getByRole("textbox", { name: "Edit comment" });
  await box.fill(edited);
  await ownerComments.getByRole("button", { name: "Update" }).click();
  await expect(readerComments.getByText(edited)).toBeVisible();

  await ownerComments
    .getByRole("listitem")
    .filter({ hasText: edited })
    .getByRole("button", { name: "Delete" })
    .click();
  await expect(ownerComments.getByText(edited)).toHaveCount(0);
  await expect(readerComments.getByText(edited)).toHaveCount(0);
  await expect(readerComments.getByRole("listitem").filter({ hasText: answer })).toBeVisible();

  // Both are in the console's audit trail.
  const actions = (JSON.parse(ownerCli(own, "audit", "--json")) as { action: string }[]).map(
    (entry) => entry.action,
  );
  expect(actions).toEqual(
    expect.arrayContaining(["comment write", "comment edit", "comment delete"]),
  );
});

test("the owner replies from the console; the reply appears with Author on a reader's open page and the item page", async ({
  visitor,
}) => {
  test.slow();
  const stamp = uniqueWord();
  const question = `Why does soap not lather in sea water? ${stamp}`;
  const asker = await visitor("Asha");
  await postTo(asker.request, own, post, { content: question, userName: "Asha" });
  const reader = await visitor("Nadia");
  const readerComments = await openPost(reader);
  const asked = readerComments.getByRole("listitem").filter({ hasText: question });
  await expect(asked).toBeVisible();

  const owner = await ownerPage(visitor);
  await owner.goto(`${site}/admin/comments`);
  const card = owner.getByRole("article", { name: /^Comment by Asha/ });
  await expect(card).toContainText(question);
  const reply = card.getByRole("button", { name: "Reply", exact: true });
  await reply.click();
  const box = card.getByRole("textbox", { name: "Write a reply" });
  await expect(box).toBeFocused();
  await expect(box).toHaveValue("");
  // Cancel gives the focus back to Reply, not to the page.
  await card.getByRole("button", { name: "Cancel", exact: true }).click();
  await expect(box).toHaveCount(0);
  await expect(reply).toBeFocused();
  await reply.click();
  await expect(box).toBeFocused();
  expect(await seriousViolations(owner, "main")).toEqual([]);

  await box.fill(`Salt ions crowd out the **soap**. ${stamp}`);
  // Refused, the reply says why and Post reply keeps the focus; pressed again, it posts.
  const refused = await refuseWrite(owner, {
    method: "POST",
    url: /\/api\/admin\/comments\/\d+\/reply$/,
    list: /\/api\/admin\/comments\?/,
    message: "The database is busy: try again in a moment",
  });
  const postReply = card.getByRole("button", { name: "Post reply" });
  await postReply.press("Enter");
  await expect(card.getByRole("alert")).toHaveText("The database is busy: try again in a moment");
  await expect(postReply).toBeFocused();
  await refused.accept();
  await owner.keyboard.press("Enter");
  await expect(owner.getByText("Reply posted")).toBeVisible();
  await expect(card.getByRole("textbox", { name: "Write a reply" })).toHaveCount(0);
  // The console lists the answer with what it answers.
  const answer = owner
    .getByRole("article", { name: /^Comment by / })
    .filter({ hasText: `Salt ions crowd out the **soap**. ${stamp}` });
  await expect(answer).toContainText("In reply to Asha");
  // It is the owner's own: nobody to ban, nothing to mark as spam; Delete stays.
  await expect(answer.getByRole("button", { name: /^(Ban|Mark as spam)/ })).toHaveCount(0);
  await expect(answer.getByRole("button", { name: /^Delete/ })).toBeVisible();
  // The posted answer takes the focus, named by its writer, not the page.
  await expect(answer).toBeFocused();
  expect(await owner.evaluate(() => document.activeElement?.tagName)).toBe("ARTICLE");

  // On the reader's open page, under the question, with Author, without a reload.
  const replies = asked.getByRole("list", { name: "Replies to Asha" });
  await expect(replies).toContainText("Salt ions crowd out the soap.", { timeout: 15_000 });
  await expect(replies.getByText("Author", { exact: true })).toBeVisible();
  await expect(replies.locator("strong")).toHaveText("soap");

  // A later reader on the item page.
  const later = await visitor("Ravi");
  const laterComments = await openPost(later);
  const thread = laterComments
    .getByRole("list", { name: "Replies to Asha" })
    .filter({ hasText: stamp });
  await expect(thread).toContainText("Salt ions crowd out the soap.");
  await expect(thread.getByText("Author", { exact: true })).toBeVisible();

  expect(ownerCli(own, "audit")).toMatch(/\tcomment reply\t\d+, answering \d+\n/);
});

test("for the signed-in owner without a stored name, the comment box is in its place from the first paint, at 1280 and 375 px", async ({
  visitor,
  request,
}) => {
  // A reader's comment, which offers the owner Edit and Delete beside Reply.
  await postTo(request, own, post, {
    userName: "Asha",
    content: `Does salt help? ${uniqueWord()}`,
  });
  for (const width of [1280, 375]) {
    await test.step(`${width} px`, async () => {
      const owner = await visitor({
        storageState: await ownerState(own),
        viewport: { width, height: 800 },
      });
      // The box the page draws first, then the live one.
      await watchLayout(
        owner,
        '.waiting-composer textarea, .waiting-add, textarea[aria-label="Write a comment"]',
      );
      await owner.goto(`${site}/science/${post}`);
      const comments = await liveDiscussion(owner);
      await expect(comments.getByRole("textbox", { name: "Write a comment" })).toBeVisible();
      await expect(owner.getByText(`Commenting as ${ownerName}`)).toBeVisible();
      await drawn(owner);
      const { tops, shifts } = await seen(owner);
      const shifted = shifts.reduce((sum, value) => sum + value, 0);
      expect({ tops: [...new Set(tops)], shifted: shifted < 0.01 ? 0 : shifted }).toEqual({
        tops: [tops[0]],
        shifted: 0,
      });
      await owner.close();
    });
  }
});
