import { seriousViolations } from "./support/axe.ts";
import { uniqueWord } from "./support/comments.ts";
import { expect, test } from "./support/fixtures.ts";
import { openDiscussion } from "./support/items.ts";
import { type OwnSite, ownerCli, postTo, signInWith, startOwnSite } from "./support/own-site.ts";

/*
 * The owner answers a reader from the console's Comments screen, in Chromium
 * (docs/product.md, "The owner's console"): Reply opens "Write a reply", "Post
 * reply" sends it, and the answer appears with "Author" under the question on
 * a reader's open page, without a reload, and on the item page for a later
 * reader. The screen is axe clean with the form open. On SQLite only: replies
 * on PostgreSQL are the server tests' (tests/server/replies.test.ts, both
 * databases), and a console action reaching a reader's open page live on
 * PostgreSQL is console-approval.spec.ts's.
 */

const post = "soap";

test("the owner replies from the console; the reply appears with Author on a reader's open page and the item page", async ({
  visitor,
}) => {
  test.slow();
  let own: OwnSite | undefined;
  try {
    own = await startOwnSite("console-reply", { host: "localhost" });
    const site = own.siteUrl;
    const stamp = uniqueWord();
    const question = `Why does soap not lather in sea water? ${stamp}`;
    const asker = await visitor("Asha");
    await postTo(asker.request, own, post, { content: question, userName: "Asha" });
    const reader = await visitor("Nadia");
    const readerComments = await openDiscussion(reader, `${site}/science/${post}`);
    const asked = readerComments.getByRole("listitem").filter({ hasText: question });
    await expect(asked).toBeVisible();

    const owner = await visitor();
    await signInWith(owner, ownerCli(own, "login").trim());
    await owner.getByRole("link", { name: "Comments" }).click();
    const card = owner.getByRole("article", { name: /^Comment by Asha/ });
    await expect(card).toContainText(question);
    await card.getByRole("button", { name: "Reply", exact: true }).click();
    const box = card.getByRole("textbox", { name: "Write a reply" });
    await expect(box).toBeFocused();
    await expect(box).toHaveValue("");
    expect(await seriousViolations(owner, "main")).toEqual([]);

    await box.fill(`Salt ions crowd out the **soap**. ${stamp}`);
    await card.getByRole("button", { name: "Post reply" }).click();
    await expect(owner.getByText("Reply posted")).toBeVisible();
    await expect(card.getByRole("textbox", { name: "Write a reply" })).toHaveCount(0);
    // The console lists the answer with what it answers.
    const answer = owner
      .getByRole("article", { name: /^Comment by / })
      .filter({ hasText: `Salt ions crowd out the **soap**. ${stamp}` });
    await expect(answer).toContainText("In reply to Asha");

    // On the reader's open page, under the question, with Author, without a reload.
    const replies = asked.getByRole("list", { name: "Replies to Asha" });
    await expect(replies).toContainText("Salt ions crowd out the soap.", { timeout: 15_000 });
    await expect(replies.getByText("Author", { exact: true })).toBeVisible();
    await expect(replies.locator("strong")).toHaveText("soap");

    // A later reader on the item page.
    const later = await visitor("Ravi");
    const laterComments = await openDiscussion(later, `${site}/science/${post}`);
    const thread = laterComments
      .getByRole("list", { name: "Replies to Asha" })
      .filter({ hasText: stamp });
    await expect(thread).toContainText("Salt ions crowd out the soap.");
    await expect(thread.getByText("Author", { exact: true })).toBeVisible();

    expect(ownerCli(own, "audit")).toMatch(/\tcomment reply\t\d+, answering \d+\n/);
  } finally {
    await own?.stop();
  }
});
