import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { formTokenFor } from "../support/newsletter.ts";
import { seriousViolations } from "./support/axe.ts";
import { expect, test } from "./support/fixtures.ts";
import { confirmationLink } from "./support/newsletter.ts";
import { type OwnSite, ownerCli, startOwnSite } from "./support/own-site.ts";

/*
 * The unsubscribe link as a reader meets it: the owner exports the subscribers
 * with `npm run admin -- subscribers export` and mails each their link. To run
 * that command against the server's database, this spec starts its own server
 * on the built site, with a data directory it knows.
 */
// One server for the file's tests, in one worker, in order: split across two
// workers, each would start its own
// (docs/decisions/028-how-the-suite-stays-fast.md). A failure does not skip the others.
test.describe.configure({ mode: "default" });

let server: OwnSite;

test.beforeAll(async () => {
  server = await startOwnSite("unsubscribe", { defaultLimits: true });
});

test.afterAll(async () => {
  await server?.stop();
});

/** Every subscriber's email and link, as the owner's export gives them. */
function exportedLinks(): Map<string, string> {
  const csv = ownerCli(server, "subscribers", "export");
  const rows = csv.trimEnd().split("\r\n").slice(1);
  return new Map(rows.map((row) => row.split(",")).map(([email = "", , url = ""]) => [email, url]));
}

async function confirm(page: Page) {
  await expect(
    page.getByRole("heading", { name: "Unsubscribe from the newsletter" }),
  ).toBeVisible();
  await page.getByRole("button", { name: "Unsubscribe" }).click();
}

test("the link from the export unsubscribes once the reader confirms, and says so again later", async ({
  page,
  request,
}, testInfo) => {
  const email = `leaving-${testInfo.project.name}-${randomBytes(4).toString("hex")}@example.com`;
  const subscribed = await request.post(`${server.url}/api/subscribers`, {
    data: { email, formToken: formTokenFor({ DATA_DIR: server.dataDir }) },
    headers: { Origin: server.url },
  });
  expect(subscribed.status()).toBe(202);
  const confirmation = await confirmationLink(server.dataDir, email);
  const confirmed = await request.post(`${server.url}/api/subscribers/confirm`, {
    data: { token: new URL(confirmation).searchParams.get("token") },
    headers: { Origin: server.url },
  });
  expect(confirmed.status()).toBe(200);
  const link = exportedLinks().get(email);
  expect(link).toMatch(/\/unsubscribe\?token=[A-Za-z0-9_-]{43}$/);

  await page.goto(link ?? "");
  await expect(page.getByText("Stop sending the newsletter")).toBeVisible();
  // Opening the link removes nothing: mail scanners open links too.
  expect(exportedLinks().has(email)).toBe(true);
  expect(await seriousViolations(page)).toEqual([]);

  await confirm(page);
  await expect(page.getByRole("status")).toHaveText(/You have been unsubscribed/);
  expect(exportedLinks().has(email)).toBe(false);

  await page.reload();
  await confirm(page);
  await expect(page.getByRole("status")).toHaveText(
    /This link's subscription had ended already, and no newsletter is sent under it\. If newsletters still come/,
  );
});

test("a link that was never sent is not recognised", async ({ page }) => {
  for (const token of [randomBytes(32).toString("base64url"), "cut-short"]) {
    await page.goto(`${server.url}/unsubscribe?token=${token}`);
    await confirm(page);
    await expect(page.getByRole("alert")).toHaveText(/This unsubscribe link is not recognised/);
    await expect(page.getByRole("button", { name: "Unsubscribe" })).toBeHidden();
  }
});

test("without a token the page explains where the link comes from", async ({ page }) => {
  await page.goto(`${server.url}/unsubscribe`);
  await expect(page.getByText(/unsubscribe link in one of the emails/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Unsubscribe" })).toHaveCount(0);
  await expect(
    page.getByRole("main").getByRole("link", { name: "owner@example.com" }),
  ).toBeVisible();
});

test("the page is prerendered, unlisted and not indexed, and asks its question without JavaScript", async ({
  request,
}) => {
  const html = await (await request.get(`${server.url}/unsubscribe`)).text();
  expect(html).toContain("Unsubscribe from the newsletter");
  expect(html).toContain('<meta name="robots" content="noindex"');
  // Without JavaScript the page's own form asks what the island asks.
  expect(/<noscript>[\s\S]*<\/noscript>/.exec(html)?.[0]).toContain(
    "<p>Stop sending the newsletter to the address this link was mailed to?</p>",
  );
  const sitemap = await (await request.get(`${server.url}/sitemap.xml`)).text();
  expect(sitemap).not.toContain("/unsubscribe");
});
