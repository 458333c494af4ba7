import type { Page } from "@playwright/test";
import { readersReportSchema } from "../../contract/readers.ts";
import { seriousViolations } from "./support/axe.ts";
import { expect, test } from "./support/fixtures.ts";
import { type OwnSite, ownerCli, ownerPage, startOwnSite } from "./support/own-site.ts";
import { siteEnv } from "./support/site.ts";

/*
 * Readers as the owner meets them (docs/product.md, "Readers"): two readers
 * in browsers of their own read /science and an article, one from LinkedIn,
 * one from the newsletter, and one sends an enquiry; a bot and a browser with
 * Global Privacy Control are not counted. The command line and the console's
 * screen then say the same. The next day's new visitor is in
 * tests/server/readers.test.ts, which can move the clock.
 */

const desktop =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const phone =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const article = "/science/pressure-cooker";

// One server for the file's tests, in one worker, in order: split across the two
// workers, each started its own. A failure does not skip the others.
test.describe.configure({ mode: "default" });

let site: OwnSite;

test.beforeAll(async () => {
  site = await startOwnSite("readers", {
    env: { COMMENT_MIN_SECONDS: siteEnv.COMMENT_MIN_SECONDS },
  });
});
test.afterAll(async () => {
  await site?.stop();
});

const report = () =>
  readersReportSchema.parse(JSON.parse(ownerCli(site, "readers", "--since", "1d", "--json")));

/** A page of the site, loaded and visible: its beacon has gone. */
async function read(page: Page, path: string, referer?: string) {
  const sent = page.waitForRequest((request) => request.url().includes("/api/readers/view"));
  await page.goto(`${site.siteUrl}${path}`, referer ? { referer } : {});
  await sent;
}

test("two readers, their sources and the enquiry one sent are counted, and the owner sees them", async ({
  visitor,
}) => {
  // Two readers, a crawler, a private browser and the owner, on a machine the whole suite shares.
  test.setTimeout(240_000);
  const asha = await visitor({ userAgent: desktop, timezoneId: "Europe/London" });
  await read(asha, "/science", "https://www.linkedin.com/feed/");
  await read(asha, article);

  const ravi = await visitor({ userAgent: phone, timezoneId: "Asia/Kolkata" });
  await read(ravi, "/science?utm_source=newsletter&utm_medium=email");
  await read(ravi, article);
  await read(ravi, "/services");
  const form = ravi.locator("#send-enquiry");
  // The form is live once the reader comes to it.
  await form.scrollIntoViewIfNeeded();
  await expect(form.locator("astro-island")).not.toHaveAttribute("ssr", { timeout: 15_000 });
  await form.getByRole("textbox", { name: "Your name" }).fill("Ravi Menon");
  await form.getByRole("textbox", { name: "Your email" }).fill("ravi.readers@example.org");
  await form.getByRole("combobox", { name: "Service" }).selectOption("dfmea");
  await form
    .getByRole("textbox", { name: "Message" })
    .fill("We need a DFMEA workshop for a new fuel pump module in the spring, for five engineers.");
  await ravi.getByRole("button", { name: "Send enquiry" }).click();
  await expect(ravi.getByRole("status")).toContainText("Thank you");

  // Neither of these is counted: a search engine's crawler, and a browser asking not to be tracked.
  const bot = await visitor({
    userAgent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  });
  await bot.goto(`${site.siteUrl}/science`);
  const private_ = await visitor({
    userAgent: desktop.replace("131", "130"),
    extraHTTPHeaders: { "Sec-GPC": "1" },
  });
  await private_.goto(`${site.siteUrl}/science`);

  // Each instance writes what it counted every few seconds.
  await expect
    .poll(
      () => {
        const now = report();
        return [now.visitors, now.conversions.byEntryPage.length];
      },
      { timeout: 30_000 },
    )
    .toEqual([2, 1]);
  const figures = report();
  expect(figures.views).toBe(5);
  expect(figures.pages.map((p) => [p.value, p.visitors])).toEqual([
    ["/science", 2],
    [article, 2],
    ["/services", 1],
  ]);
  expect(figures.sources.map((s) => s.value).sort()).toEqual(["LinkedIn", "Newsletter"]);
  expect(figures.countries.map((c) => c.value).sort()).toEqual(["GB", "IN"]);
  expect(figures.conversions.byEntryPage).toEqual([
    expect.objectContaining({ value: "/science", enquiry: 1 }),
  ]);
  expect(figures.conversions.bySource).toEqual([
    expect.objectContaining({ value: "Newsletter", enquiry: 1 }),
  ]);

  const owner = await ownerPage(visitor, site, "/admin/readers");
  await expect(owner.getByRole("heading", { name: "Readers", level: 1 })).toBeVisible();
  await owner.getByRole("combobox", { name: "Period" }).selectOption("day");
  const summary = owner.getByRole("region", { name: "Visitors and views" });
  await expect(summary.getByRole("definition").first()).toHaveText("2");
  // Days run from midnight where the owner lives (the sample profile's zone), and say so.
  await expect(summary).toContainText(
    "days from midnight in Asia / Kolkata (the zone of your Bookings hours)",
  );
  // An owner trying the site in this browser learns why their own visits are not there.
  await expect(summary).toContainText("your own browser while signed in here, are not counted");
  const sources = owner.getByRole("region", { name: "Sources" });
  await expect(sources.getByRole("button", { name: "LinkedIn" })).toBeVisible();
  await expect(sources.getByRole("button", { name: "Newsletter" })).toBeVisible();
  const byPage = owner.getByRole("region", { name: "Conversions by entry page" });
  await expect(byPage.getByRole("row", { name: /^\/science\b/ })).toContainText("1");
  // What the owner needs to read the conversions: whose they are, and what "(not counted)" is.
  await expect(byPage).toContainText("credited to the page and source the reader's visit began");
  await expect(byPage).toContainText("(not counted): no visit of theirs was counted that day");
  // At 1280 px its six columns fit the panel: nothing to scroll inside it.
  expect(owner.viewportSize()?.width).toBe(1280);
  const byPageTable = byPage.getByRole("table", { name: /^Entry page by kind of conversion/ });
  expect(
    await byPageTable.locator("xpath=..").evaluate((e) => e.scrollWidth <= e.clientWidth),
  ).toBe(true);
  // A row opens its own figures, day by day.
  const page = owner
    .getByRole("region", { name: "Top pages" })
    .getByRole("button", { name: article });
  await page.click();
  await expect(page).toHaveAttribute("aria-expanded", "true");
  await expect(owner.getByRole("table", { name: `${article}, day by day` })).toBeVisible();
  // A page other than an article sends no read to the end: its share is not measured, not 0%.
  const services = owner
    .getByRole("region", { name: "Top pages" })
    .getByRole("row", { name: /^\/services\b/ });
  await expect(services.getByRole("cell").last()).toHaveText(/–$/);
  expect(await seriousViolations(owner, "main")).toEqual([]);
  // Days before the site was read: the conversions say nothing was counted then.
  await owner.getByRole("combobox", { name: "Period" }).selectOption("range");
  await owner.getByRole("textbox", { name: "From" }).fill("2020-01-01");
  await owner.getByRole("textbox", { name: "To" }).fill("2020-01-02");
  await expect(byPage).toContainText(
    "No subscription, enquiry, call, comment or question counted in this period.",
  );

  const csv = await owner.request.get(`${site.siteUrl}/api/admin/readers/export?period=day`);
  expect(csv.headers()["content-type"]).toMatch(/^text\/csv/);
  expect(await csv.text()).toContain("LinkedIn");
});

test("a first day moved past the last takes the last with it: the fields say the days the figures are of", async ({
  visitor,
}) => {
  const owner = await ownerPage(visitor, site, "/admin/readers");
  await owner.getByRole("combobox", { name: "Period" }).selectOption("range");
  const from = owner.getByRole("textbox", { name: "From" });
  const to = owner.getByRole("textbox", { name: "To" });
  await to.fill("2025-01-01");
  await from.fill("2025-01-03");
  await expect(to).toHaveValue("2025-01-03");
  await expect(owner.getByRole("region", { name: "Visitors and views" })).toContainText(
    "2025-01-03, days from midnight",
  );
  // Nor can the last day be set before the first.
  await expect(to).toHaveAttribute("min", "2025-01-03");
});
