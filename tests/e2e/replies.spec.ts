import { seriousViolations } from "./support/axe.ts";
import { replyTo, uniqueWord } from "./support/comments.ts";
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
  const answer = `Steam lifts the weight, then \`pressure\` drops and it seats again. ${stamp}`;
  await replyTo(answererComments, stamp, answer);
  // The form is gone: focus is on the reply it sent, not lost to the page.
  await expect(
    answererComments
      .getByRole("list", { name: "Replies to Asha" })
      .getByRole("listitem")
      .filter({ hasText: stamp }),
  ).toBeFocused();

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

test("Markdown links are nofollow ugc, raw HTML stays text, a reply to a reply starts with its name, and a deleted question leaves 'Comment deleted'", async ({
  visitor,
}) => {
  test.slow();
  const stamp = uniqueWord();
  const asker = await visitor("Asha");
  const askerComments = await openDiscussion(asker, post);
  const question = `Can the gasket be reused? ${stamp}`;
  await askerComments.getByRole("textbox", { name: "Write a comment" }).fill(question);
  await askerComments.getByRole("button", { name: "Post comment" }).click();
  const asked = askerComments.getByRole("listitem").filter({ hasText: question });
  await expect(asked).toBeVisible();

  const answerer = await visitor("Meera");
  const answererComments = await openDiscussion(answerer, post);
  await replyTo(answererComments, question, `Only if it is <b>not cracked</b>. ${stamp}`);

  // Raw HTML stays literal text on the asker's open page.
  const replies = asked.getByRole("list", { name: "Replies to Asha" });
  const answer = replies.getByRole("listitem").filter({ hasText: "not cracked" });
  await expect(answer.locator(".comment-text")).toContainText("Only if it is <b>not cracked</b>.");
  await expect(answer.locator(".comment-text b")).toHaveCount(0);

  // Answering the reply: the box starts with "@" and the name it answers.
  await answer.getByRole("button", { name: "Reply" }).click();
  const box = askerComments.getByRole("textbox", { name: "Write a reply" });
  await expect(box).toHaveValue("@Meera ");
  await box.press("End");
  await box.pressSequentially(
    `thanks, see [the maker's note](https://example.com/gasket) ${stamp}`,
  );
  await askerComments.getByRole("button", { name: "Post reply" }).click();
  // Held or not, its writer sees it as everyone will: a nofollow ugc link.
  const link = replies.getByRole("link", { name: "the maker's note" });
  await expect(link).toHaveAttribute("href", "https://example.com/gasket");
  const rel = (await link.getAttribute("rel"))?.split(/\s+/) ?? [];
  expect(rel).toEqual(expect.arrayContaining(["nofollow", "ugc"]));
  await expect(replies.getByRole("listitem").last()).toContainText("@Meera thanks, see");

  // Without JavaScript, /science serves the reply nested under its question.
  const plain = await visitor({ javaScriptEnabled: false });
  await expect(async () => {
    await plain.goto("/science");
    // The card opens as a plain <details>, with no script.
    await plain.getByRole("heading", { name: "Why does a pressure cooker cook faster?" }).click();
    const served = plain
      .locator(".static-comments")
      .getByRole("listitem")
      .filter({ hasText: question });
    await expect(served.getByRole("list", { name: "Replies to Asha" })).toContainText(
      "Only if it is <b>not cracked</b>.",
      { timeout: 1000 },
    );
  }).toPass({ timeout: 20_000 });

  // The asker deletes the question: its place says "Comment deleted", and the reply stays.
  await asked.getByRole("button", { name: "Delete" }).first().click();
  const place = answererComments
    .getByRole("listitem")
    .filter({ hasText: "Comment deleted" })
    .filter({ hasText: `not cracked</b>. ${stamp}` });
  await expect(place).toBeVisible({ timeout: 15_000 });
  await expect(place).not.toContainText(question);
  await expect(place).not.toContainText("Asha");
});
