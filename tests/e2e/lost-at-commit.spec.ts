import { expect, test } from "./support/fixtures.ts";
import { newsletterHydrated } from "./support/islands.ts";
import { openItem } from "./support/items.ts";
import { refuseWrite } from "./support/refused-write.ts";

/*
 * A write whose connection to PostgreSQL was lost as it was saved answers 503
 * saying it may or may not have been saved (server/api/errors.ts; the server
 * tests lose a real COMMIT, tests/server/lost-at-commit.test.ts). Here the
 * browser gets that answer, and each form shows the reader that message, not
 * words of its own that ask to send again.
 */

const lostSaid =
  "The site lost its database as it saved, so this may or may not have been saved. Reload the page (or check your inbox) before you send it again.";

test("the comment box, the newsletter form and the enquiry form show what the server says of a lost save", async ({
  page,
  visitor,
}) => {
  const reader = await visitor("Kiran");
  await refuseWrite(reader, {
    method: "POST",
    url: /\/api\/items\/science\/[^/]+\/comments$/,
    list: /\/comments/,
    message: lostSaid,
  });
  await openItem(reader, "/science", /soap/i);
  await reader.getByRole("textbox", { name: "Write a comment" }).fill("Does soap work cold?");
  await reader.getByRole("button", { name: "Post comment" }).click();
  await expect(reader.getByText(lostSaid)).toBeVisible();
  await expect(reader.getByRole("textbox", { name: "Write a comment" })).toHaveValue(
    "Does soap work cold?",
  );

  await refuseWrite(page, {
    method: "POST",
    url: /\/api\/(subscribers|enquiries)$/,
    list: /\/never$/,
    message: lostSaid,
  });
  await page.goto("/about");
  await newsletterHydrated(page);
  await page.getByRole("textbox", { name: "Email address" }).fill("reader@example.com");
  await page.getByRole("button", { name: "Subscribe" }).click();
  await expect(page.getByRole("alert")).toHaveText(lostSaid, { timeout: 6_000 });
  await expect(page.getByRole("alert")).toBeVisible();

  await page.goto("/services?service=dfmea");
  const form = page.locator("#send-enquiry");
  await form.hover();
  await expect(page.locator("#send-enquiry astro-island")).not.toHaveAttribute("ssr", {
    timeout: 15_000,
  });
  await form.getByRole("textbox", { name: "Your name" }).fill("Priya Raman");
  await form.getByRole("textbox", { name: "Your email" }).fill("priya@example.org");
  await form
    .getByRole("textbox", { name: "Message" })
    .fill("We need a DFMEA workshop for a fuel pump module before the launch in March.");
  await page.getByRole("button", { name: "Send enquiry" }).click();
  await expect(form.getByRole("alert")).toHaveText(lostSaid, { timeout: 6_000 });
});
