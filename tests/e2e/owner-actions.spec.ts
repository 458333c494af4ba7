import { randomBytes } from "node:crypto";
import { firstLoaded } from "../../app/lib/comment-list.ts";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import { fakeBuiltSite } from "../support/built-site.ts";
import { seriousViolations } from "./support/axe.ts";
import { expect, test } from "./support/fixtures.ts";
import { linkFromOutbox } from "./support/newsletter.ts";
import { type OwnSite, startOwnSite } from "./support/own-site.ts";

/*
 * The delete link of an owner's notification mail as the owner meets it, in
 * Chromium with JavaScript off: the mail read from DATA_DIR/outbox/ (no
 * SMTP_URL), the link opened, the button pressed. The spec starts its own
 * server so it knows the data directory and can set OWNER_EMAIL.
 */
const owner = "owner@example.com";
let server: OwnSite;

test.use({ javaScriptEnabled: false });

test.beforeAll(async () => {
  server = await startOwnSite("owner", {
    defaultLimits: true,
    env: { CLIENT_ROOT: fakeBuiltSite(), OWNER_EMAIL: owner, MAIL_RATE_PER_MINUTE: "0" },
  });
});

test.afterAll(async () => {
  await server?.stop();
});

/** The delete link of the owner's mail about the comment that says `marker`. */
function deleteLink(marker: string): Promise<string> {
  return linkFromOutbox(
    server.dataDir,
    (mail) => mail.text?.includes(marker) ?? false,
    /^Delete: (http:\/\/\S+\/owner\/comments\/\d+\/delete\?token=[A-Za-z0-9_-]{43})$/m,
  );
}

test("the owner deletes a comment from the mail's link with JavaScript off, once", async ({
  visitor,
  page,
  request,
}, testInfo) => {
  const marker = `spam-${testInfo.project.name}-${randomBytes(4).toString("hex")}`;
  const posted = await request.post(`${server.url}/api/items/science/soap/comments`, {
    data: { content: `<b>${marker}</b> cheap watches`, userName: "Spammer" },
    headers: { Origin: server.url },
  });
  expect(posted.status()).toBe(201);
  const { comment } = commentResponseSchema.parse(await posted.json());
  const link = await deleteLink(marker);
  // Read as the spammer's page reads it: a comment held for the owner is shown
  // to its writer alone, as their own (docs/decisions/035-returning-readers-read-the-shared-bytes.md).
  const stillThere = async () => {
    const list = await request.get(`${server.url}/api/items/science/soap/comments`);
    const { comments } = firstLoaded(commentsResponseSchema.parse(await list.json()));
    return comments.some((c) => c.id === comment.id);
  };

  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Delete this comment?" })).toBeVisible();
  await expect(page.getByText(`<b>${marker}</b> cheap watches`)).toBeVisible();
  // axe runs as a script in the page: the same page, opened where scripts run.
  const checked = await visitor({ javaScriptEnabled: true });
  await checked.goto(link);
  expect(await seriousViolations(checked)).toEqual([]);
  expect(await stillThere()).toBe(true);

  await page.getByRole("button", { name: "Delete the comment" }).click();
  await expect(page.getByRole("heading", { name: "Done" })).toBeVisible();
  await expect(page.getByText("The comment is deleted")).toBeVisible();
  expect(await stillThere()).toBe(false);

  await page.goto(link);
  await expect(
    page.getByRole("heading", { name: "This link has already been used" }),
  ).toBeVisible();
  await expect(page.getByRole("button")).toHaveCount(0);
});
