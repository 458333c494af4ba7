import type { Locator, Page } from "@playwright/test";
import { uniqueWord } from "./support/comments.ts";
import { expect, test } from "./support/fixtures.ts";
import { type OwnSite, ownerPage, startOwnSite } from "./support/own-site.ts";

/*
 * The console's forms when the server refuses what the browser let through
 * (app/console/refusal.tsx): the refused field is marked invalid, says the
 * server's words (never the API's "body." path) as its description, and has
 * the focus; nothing is said under the form instead. On a server of this
 * spec's own at localhost, where WebAuthn takes the site as a relying party.
 */

test.describe.configure({ mode: "default" });

let own: OwnSite;

test.beforeAll(async () => {
  own = await startOwnSite("console-refusals", { host: "localhost" });
});
test.afterAll(async () => {
  await own?.stop();
});

/** The field is marked with the server's words, focused, and the form says nothing else. */
async function markedAtField(page: Page, field: Locator, words: string) {
  await expect(field).toHaveAttribute("aria-invalid", "true");
  await expect(field).toHaveAccessibleDescription(
    new RegExp(`^${words.replace(/[.*()]/g, "\\$&")}`),
  );
  await expect(field).toBeFocused();
  await expect(page.getByRole("main")).not.toContainText("body.");
  await expect(page.getByRole("main").getByRole("alert")).toHaveCount(0);
}

test("the weekly hours mark the day the server refuses, not the form", async ({ visitor }) => {
  const page = await ownerPage(visitor, own, "/admin/bookings");
  const monday = page.getByLabel("Monday", { exact: true });
  // Seven stretches, each well written: the browser's check passes them, the server's most is six.
  await monday.fill(
    "09:00-10:00, 10:00-11:00, 11:00-12:00, 12:00-13:00, 13:00-14:00, 14:00-15:00, 15:00-16:00",
  );
  const saved = page.waitForResponse((response) => response.request().method() === "PUT");
  await page.getByRole("button", { name: "Save availability" }).click();
  expect((await saved).status()).toBe(400);
  await markedAtField(page, monday, "A day has at most 6 stretches.");
  await expect(page.getByLabel("Tuesday", { exact: true })).not.toHaveAttribute("aria-invalid");
});
