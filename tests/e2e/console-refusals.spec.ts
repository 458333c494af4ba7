import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Locator, Page } from "@playwright/test";
import { uniqueWord } from "./support/comments.ts";
import { expect, test } from "./support/fixtures.ts";
import {
  type OwnSite,
  ownerCli,
  ownerPage,
  signInWith,
  startOwnSite,
  withAuthenticator,
} from "./support/own-site.ts";

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
  // OWNER_EMAIL, for the sign-in page to offer a mailed link.
  own = await startOwnSite("console-refusals", {
    host: "localhost",
    env: { OWNER_EMAIL: "owner@example.com" },
  });
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

test("the sign-in form marks an address the server refuses", async ({ visitor }) => {
  const page = await visitor();
  await page.goto(`${own.siteUrl}/admin/sign-in`);
  const address = page.getByLabel("Your address");
  // An address the browser's own check lets through: the server wants a domain with a dot.
  await address.fill("owner@localhost");
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await markedAtField(page, address, "Enter a valid email address.");
  await address.fill("owner@example.com");
  await expect(address).not.toHaveAttribute("aria-invalid");
});

test("the sign-in form's button keeps the focus once its link is mailed", async ({ visitor }) => {
  const page = await visitor();
  await page.goto(`${own.siteUrl}/admin/sign-in`);
  await page.getByLabel("Your address").fill("someone@example.com");
  const send = page.getByRole("button", { name: "Email me a sign-in link" });
  await send.click();
  await expect(page.getByRole("status")).toContainText("If that is the owner's address");
  // Disabled while it asked, it takes the focus back: a keyboard goes on from there.
  await expect(send).toBeEnabled();
  await expect(send).toBeFocused();
});

test("the reply form marks a reply the server refuses", async ({ visitor }) => {
  const word = uniqueWord();
  const posted = await fetch(`${own.siteUrl}/api/items/science/wifi/comments`, {
    method: "POST",
    headers: { origin: own.siteUrl, "content-type": "application/json" },
    body: JSON.stringify({
      content: `Does the router care about walls? ${word}`,
      userName: "Asha",
    }),
  });
  expect(posted.status).toBe(201);
  const page = await ownerPage(visitor, own, "/admin/comments");
  await page.getByLabel("Search text or name").fill(word);
  const card = page.getByRole("article", { name: "Comment by Asha" });
  await card.getByRole("button", { name: "Reply", exact: true }).click();
  const reply = card.getByRole("textbox", { name: "Write a reply" });
  // A text-direction character the textarea takes, and the server does not.
  await reply.fill("Walls matter \u202Emore than distance");
  await card.getByRole("button", { name: "Post reply" }).click();
  await markedAtField(page, reply, "Comments cannot contain control or text-direction characters.");
});

test("the passkey's name is marked when the server refuses it", async ({ visitor }) => {
  const page = await ownerPage(visitor, own, "/admin/security");
  await withAuthenticator(page);
  const name = page.getByLabel("Passkey name");
  // Within the field's 60 characters, but with a text-direction character in it.
  await name.fill("Work \u202Elaptop");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await markedAtField(
    page,
    name,
    "Passkey names cannot contain control, direction or invisible characters.",
  );
  await expect(page.getByRole("button", { name: /^Remove the passkey/ })).toHaveCount(0);
});

test("adding a passkey 10 minutes after signing in asks to sign in again, and then adds it", async ({
  visitor,
}) => {
  const page = await visitor();
  await signInWith(page, ownerCli(own, "login").trim());
  // This session (the newest) signed in 11 minutes ago: a laptop left open since.
  const db = new DatabaseSync(path.join(own.dataDir, "engage.sqlite"));
  db.prepare(
    "update owner_sessions set created_at = ? where created_at = (select max(created_at) from owner_sessions)",
  ).run(new Date(Date.now() - 11 * 60_000).toISOString());
  db.close();
  await page.getByRole("link", { name: "Sign-in and passkeys" }).click();
  await withAuthenticator(page);
  await page.getByLabel("Passkey name").fill("Work laptop");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  const passkeys = page.getByRole("region", { name: "Passkeys" });
  await expect(passkeys.getByRole("alert")).toHaveText(
    "Adding a passkey needs a sign-in within the last 10 minutes: sign in again (with a passkey or a new link) to confirm it is you, then try again. Sign in again",
  );
  await expect(passkeys.getByRole("button", { name: /^Remove the passkey/ })).toHaveCount(0);

  await passkeys.getByRole("link", { name: "Sign in again" }).click();
  await expect(page.getByRole("heading", { name: "Sign in to the console" })).toBeVisible();
  // The command line's link, pasted into this tab, leads back to this screen.
  await page.goto(ownerCli(own, "login").trim());
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Sign-in and passkeys", level: 1 })).toBeVisible();
  await page.getByLabel("Passkey name").fill("Work laptop");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(
    passkeys.getByRole("button", { name: "Remove the passkey Work laptop" }),
  ).toBeVisible();
  await expect(passkeys.getByRole("alert")).toHaveCount(0);
  // Removing it ends the sessions it signed in: the console asks first.
  await passkeys.getByRole("button", { name: "Remove the passkey Work laptop" }).click();
  await page
    .getByRole("alertdialog", { name: 'Remove the passkey "Work laptop"?' })
    .getByRole("button", { name: "Remove" })
    .click();
  await expect(passkeys.getByText("No passkey yet.")).toBeVisible();
});

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
