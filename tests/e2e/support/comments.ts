import { type APIRequestContext, type APIResponse, expect, type Locator } from "@playwright/test";
import { commentResponseSchema, formTokenResponseSchema } from "../../../contract/api.ts";

/**
 * Posts a comment through the API as the comment form does: with the form's
 * signed time, sent once the server's minimum time has passed (the browser
 * tests' servers use a quarter of a second). The server says "too fast"
 * until then, changing nothing, so the post is simply repeated until it is
 * taken.
 */
export async function postComment(
  request: APIRequestContext,
  origin: string,
  postId: string,
  body: { content: string; userName: string },
): Promise<number> {
  const token = await request.get("/api/comments/form-token");
  expect(token.status()).toBe(200);
  const { formToken } = formTokenResponseSchema.parse(await token.json());
  let response: APIResponse | undefined;
  await expect
    .poll(
      async () => {
        response = await request.post(`/api/items/science/${postId}/comments`, {
          data: { ...body, formToken },
          headers: { origin },
        });
        return response.status();
      },
      { intervals: [250], timeout: 10_000 },
    )
    .not.toBe(400);
  if (!response) return 0;
  // Held for the owner, it would show to no one else: a test's text must read as a reader's.
  if (response.status() === 201) {
    expect(commentResponseSchema.parse(await response.json()).comment.awaitingApproval).toBe(false);
  }
  return response.status();
}

/**
 * A word that makes a test's comment text its own, in letters only: a run of
 * thirteen digits (Date.now()) reads as a phone number, which the spam
 * defences hold for approval from a browser the site does not trust yet.
 */
export function uniqueWord(): string {
  const letters = (n: number) =>
    n.toString(26).replace(/./g, (c) => "abcdefghijklmnopqrstuvwxyz"[Number.parseInt(c, 26)]!);
  return `q${letters(Date.now())}${letters(Math.floor(Math.random() * 26 ** 3))}`;
}

/**
 * Answers the first comment in `comments` that holds `to`, as a reader does: its Reply,
 * the text, Post reply; done once the form has closed, the reply taken.
 */
export async function replyTo(comments: Locator, to: string, text: string) {
  const comment = comments.getByRole("listitem").filter({ hasText: to }).first();
  await comment.getByRole("button", { name: "Reply" }).first().click();
  const box = comments.getByRole("textbox", { name: "Write a reply" });
  await box.fill(text);
  await comments.getByRole("button", { name: "Post reply" }).click();
  await expect(box).toHaveCount(0);
}
