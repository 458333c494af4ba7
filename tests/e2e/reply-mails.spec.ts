import { randomBytes } from "node:crypto";
import { runSql } from "../server/support/sql.ts";
import { isAddressedTo, outboxMails } from "../support/newsletter.ts";
import { replyTo, uniqueWord } from "./support/comments.ts";
import { expect, test } from "./support/fixtures.ts";
import { openDiscussion } from "./support/items.ts";
import { linkFromOutbox } from "./support/newsletter.ts";
import { type OwnSite, startOwnSite } from "./support/own-site.ts";

/*
 * Reply mails in Chromium (docs/product.md, "Reply mails"): the first reader
 * ticks "Email me when someone replies", confirms from the mail (read from
 * DATA_DIR/outbox, no SMTP_URL) with the page's button, and the second
 * reader's reply then arrives as a mail with its text and one-click headers;
 * the one-click POST stops further mails.
 */

let site: OwnSite;

test.beforeAll(async () => {
  site = await startOwnSite("reply-mails");
});

test.afterAll(async () => {
  await site?.stop();
});

test("a reader asks to be mailed, confirms by the button, and gets the reply by mail", async ({
  visitor,
}, testInfo) => {
  test.slow();
  const post = `${site.url}/science/pressure-cooker`;
  const stamp = uniqueWord();
  const email = `asker-${testInfo.project.name}-${randomBytes(4).toString("hex")}@example.com`;

  // On a phone: the address box is wide enough to read what is typed in it.
  const asker = await visitor({ name: "Asha", viewport: { width: 390, height: 844 } });
  const askerComments = await openDiscussion(asker, post);
  await askerComments
    .getByRole("textbox", { name: "Write a comment" })
    .fill(`How does the weight know when to lift? ${stamp}`);
  await expect(askerComments.getByRole("textbox", { name: "Email for replies" })).toHaveCount(0);
  await askerComments.getByRole("checkbox", { name: "Email me when someone replies" }).check();
  // An address the server refuses is said beside its field, which takes the focus.
  const address = askerComments.getByRole("textbox", { name: "Email for replies" });
  expect((await address.boundingBox())?.width).toBeGreaterThanOrEqual(200);
  await address.fill("asha@example");
  await askerComments.getByRole("button", { name: "Post comment" }).click();
  await expect(address).toBeFocused();
  await expect(address).toHaveAccessibleDescription("Enter a valid email address.");
  await expect(askerComments.getByRole("alert")).toHaveText("Enter a valid email address.");
  // Refused twice over (not an address, and too long before the "@"): said once, beside it.
  await address.fill(`${"a".repeat(65)}@example`);
  await askerComments.getByRole("button", { name: "Post comment" }).click();
  await expect(askerComments.getByRole("alert")).toHaveText(["Enter a valid email address."]);
  await expect(address).toBeFocused();
  await address.fill(email);
  await askerComments.getByRole("button", { name: "Post comment" }).click();
  await expect(askerComments.getByRole("status").first()).toContainText("press Confirm");

  const confirm = await linkFromOutbox(
    site.dataDir,
    (mail) => isAddressedTo(mail, email),
    /https?:\/\/\S+\/replies\/confirm\?token=[A-Za-z0-9_-]{43}/,
  );
  const mailbox = await visitor();
  await mailbox.goto(confirm);
  await expect(mailbox.getByRole("heading", { name: "Confirm reply notifications" })).toBeVisible();
  await mailbox.getByRole("button", { name: "Confirm" }).click();
  await expect(
    mailbox.getByRole("heading", { name: "Reply notifications confirmed" }),
  ).toBeVisible();

  const answerer = await visitor("Meera");
  const answererComments = await openDiscussion(answerer, post);
  await replyTo(
    answererComments,
    stamp,
    `The spring is set to the working pressure, so it lifts there. ${stamp}`,
  );

  await expect
    .poll(
      async () =>
        (await outboxMails(site.dataDir, (mail) => isAddressedTo(mail, email))).filter((mail) =>
          (mail.text ?? "").includes("The spring is set to the working pressure"),
        ).length,
      { timeout: 20_000 },
    )
    .toBe(1);
  const [mail] = (await outboxMails(site.dataDir, (m) => isAddressedTo(m, email))).filter((m) =>
    (m.text ?? "").includes("working pressure"),
  );
  expect(mail?.subject).toMatch(/^Replies in your conversation on "/);
  expect(mail?.text).toContain("Meera replied on");
  const lines = mail?.headerLines ?? [];
  expect(lines.find((h) => h.key === "list-unsubscribe-post")?.line).toBe(
    "List-Unsubscribe-Post: List-Unsubscribe=One-Click",
  );
  expect(lines.find((h) => h.key === "list-unsubscribe")?.line).toMatch(
    /\/replies\/one-click\?token=/,
  );

  // One click (RFC 8058), as a mail provider posts it, stops further mails:
  // the next reply in the thread queues none for the address.
  const oneClick = /<([^>]+)>/.exec(
    lines.find((h) => h.key === "list-unsubscribe")?.line ?? "",
  )?.[1] as string;
  const clicked = await mailbox.request.post(oneClick, {
    form: { "List-Unsubscribe": "One-Click" },
  });
  expect(clicked.status()).toBe(200);
  expect(await clicked.text()).toContain("No more mails will be sent for replies in this thread.");
  await replyTo(answererComments, stamp, `And the vent pipe must be clear. ${stamp}`);
  await expect(
    answererComments
      .getByRole("list", { name: /^Replies to / })
      .getByText("And the vent pipe must be clear."),
  ).toBeVisible();
  expect(
    await runSql(
      { databaseUrl: undefined, dataDir: site.dataDir },
      "select outbox.kind from outbox where email = ? and kind <> 'reply_confirmation'",
      [email],
    ),
  ).toEqual([]);
  expect(
    (await outboxMails(site.dataDir, (m) => isAddressedTo(m, email))).filter((m) =>
      (m.text ?? "").includes("vent pipe"),
    ),
  ).toEqual([]);

  // The address is remembered in the browser for the next comment.
  await asker.reload();
  const again = await openDiscussion(asker, post);
  await again.getByRole("checkbox", { name: "Email me when someone replies" }).first().check();
  await expect(again.getByRole("textbox", { name: "Email for replies" }).first()).toHaveValue(
    email,
  );
});
