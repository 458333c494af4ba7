import { type APIRequestContext, expect } from "@playwright/test";

/**
 * Posts a comment through the API as the comment form does: with the form's
 * signed time, sent once the server's minimum time has passed (the browser
 * tests' servers use 1 s). The server says "too fast" until then, changing
 * nothing, so the post is simply repeated until it is taken.
 */
export async function postComment(
  request: APIRequestContext,
  origin: string,
  postId: string,
  body: { content: string; userName: string },
): Promise<number> {
  const token = await request.get("/api/comments/form-token");
  expect(token.status()).toBe(200);
  const { formToken } = (await token.json()) as { formToken: string };
  let status = 0;
  await expect
    .poll(
      async () => {
        const response = await request.post(`/api/items/science/${postId}/comments`, {
          data: { ...body, formToken },
          headers: { origin },
        });
        status = response.status();
        return status;
      },
      { intervals: [250], timeout: 10_000 },
    )
    .not.toBe(400);
  return status;
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
