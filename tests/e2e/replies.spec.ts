import { seriousViolations } from "./support/axe.ts";
import { uniqueWord } from "./support/comments.ts";
import { expect, test } from "./support/fixtures.ts";
import { openDiscussion } from "./support/items.ts";

/*
 * Conversations in Chromium (docs/product.md, "Replies"): one reader asks,
 * another answers with Reply, and the answer appears under the question on
 * the first reader's open page, for a later reader, in the served HTML and
 * without JavaScript; Markdown shows as the server rendered it.
 */

const post = "/science/pressure-cooker";

test("a reply appears under its question, live, for a later reader and without JavaScript", async ({
  visitor,
}) => {
  test.slow();
  const stamp = uniqueWord();
  const asker = await visitor("Asha");
  const askerComments = await openDiscussion(asker, post);
  const question = `Why does the whistle blow **twice**? ${stamp}`;
  await askerComments.getByRole("textbox", { name: "Write a comment" }).fill(question);
  await askerComments.getByRole("button", { name: "Post comment" }).click();
  const asked = askerComments
    .getByRole("listitem")
    .filter({ hasText: `Why does the whistle blow twice? ${stamp}` });
  await expect(asked).toBeVisible();
  // Markdown, as the server rendered it, for the writer at once.
  await expect(asked.locator(".comment-text strong").first()).toHaveText("twice");

  const answerer = await visitor("Meera");
  const answererComments = await openDiscussion(answerer, post);
  const theQuestion = answererComments
    .getByRole("listitem")
    .filter({ hasText: `${stamp}` })
    .first();
  await theQuestion.getByRole("button", { name: "Reply" }).first().click();
  const answer = `Steam lifts the weight, then \`pressure\` drops and it seats again. ${stamp}`;
  await answererComments.getByRole("textbox", { name: "Write a reply" }).fill(answer);
  await answererComments.getByRole("button", { name: "Post reply" }).click();
  await expect(answererComments.getByRole("textbox", { name: "Write a reply" })).toHaveCount(0);

  // On the asker's open page, under the question, without a reload.
  const replies = asked.getByRole("list", { name: "Replies to Asha" });
  await expect(replies.getByRole("listitem")).toHaveCount(1);
  await expect(replies).toContainText("Steam lifts the weight");
  await expect(replies.locator("code")).toHaveText("pressure");

  // A third reader, later, and the served HTML without JavaScript.
  const later = await visitor("Ravi");
  const laterComments = await openDiscussion(later, post);
  await expect(
    laterComments.getByRole("list", { name: "Replies to Asha" }).filter({ hasText: `${stamp}` }),
  ).toContainText("Steam lifts the weight");
  expect(await seriousViolations(later, "section[aria-label^='Comments']")).toEqual([]);

  const plain = await visitor({ javaScriptEnabled: false });
  await plain.goto(post);
  const served = plain
    .locator(".static-comments")
    .getByRole("listitem")
    .filter({ hasText: `Why does the whistle blow twice? ${stamp}` });
  await expect(served.getByRole("list", { name: "Replies to Asha" })).toContainText(
    "Steam lifts the weight",
  );
});
