import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Locator, Page } from "@playwright/test";
import { seriousViolations } from "./support/axe.ts";
import { busySiteEnv, odd, type Seeded, seedBusySite } from "./support/busy-site.ts";
import { expect, test } from "./support/fixtures.ts";
import {
  type OwnSite,
  ownerCli,
  ownerCliAsync,
  ownerPage,
  startOwnSite,
} from "./support/own-site.ts";

/*
 * The owner's console on a busy site: a hundred and more comments (some held,
 * some spam, replies), subscribers with bounces, an edition sent and one not,
 * enquiries, calls booked, moved and cancelled, readers from several sources
 * and questions to the assistant, all made through the API, the beacon and
 * the command line (support/busy-site.ts). The screens' figures are checked
 * against the command line's `--json`, and long lists page.
 */

let site: OwnSite;
let seeded: Seeded;

test.beforeAll(async () => {
  // Seeding a busy site through the API and the command line takes a while: under a minute
  // on a quiet machine, past two minutes with the 2 cores loaded five times over.
  test.setTimeout(300_000);
  const editions = mkdtempSync(path.join(tmpdir(), "ewe-busy-editions-"));
  for (const file of ["01-pressure-in-numbers.md", "02-a-stack-up-that-saved-a-gasket.md"])
    copyFileSync(path.join("newsletter", file), path.join(editions, file));
  site = await startOwnSite("busy-console", { host: "localhost", env: busySiteEnv(editions) });
  seeded = await seedBusySite(site, (...argv) => ownerCli(site, ...argv), editions);
});
test.afterAll(async () => {
  await site?.stop();
});

/** The command line's answer, as JSON. */
const cli = async <T>(...argv: string[]): Promise<T> =>
  JSON.parse(await ownerCliAsync(site, ...argv)) as T;

/** A figure of a screen's (a term and its value), by its term. */
const figure = (page: Page, label: string) =>
  page.locator(`dl > div:has(> dt:text-is("${label}")) > dd`);

async function open(page: Page, screen: string) {
  await page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: new RegExp(`^${screen}`) })
    .click();
  await expect(page.getByRole("heading", { name: screen, level: 1 })).toBeVisible();
}

test("a busy site's screens say what the command line says, and every comment is a page away", async ({
  visitor,
}) => {
  const [comments, stats, readers, subscribers, suppressions] = await Promise.all([
    cli<{ id: number; status: string }[]>("comments", "list", "--json"),
    cli<{ items: { comments: number | null }[] }>("stats", "--json"),
    cli<{ visitors: number; views: number }>("readers", "--since", "7d", "--json"),
    cli<{ status: string }[]>("subscribers", "list", "--json"),
    cli<unknown[]>("suppressions", "list", "--json"),
  ]);
  const published = comments.filter((c) => c.status === "published");
  const listed = comments.filter((c) => c.status !== "pending");
  const held = comments.length - listed.length;
  expect(held).toBeGreaterThan(0);
  expect(listed.length).toBeGreaterThan(100);

  const page = await ownerPage(visitor, site);
  // Overview: the comments readers see, as `stats` counts them, none held or spam.
  await expect(
    page.getByRole("link", { name: new RegExp(`^${held} comments awaiting approval`) }),
  ).toBeVisible();
  await expect(page.getByRole("region", { name: "Comments and reactions per day" })).toContainText(
    `Last 90 days: ${published.length} comments`,
  );
  const engaged = await page
    .getByRole("region", { name: "Most engaged stories and posts" })
    .innerText();
  const charted = [...engaged.matchAll(/(\d+) comments/g)].map((m) => Number(m[1]));
  const counted = stats.items.flatMap((item) => (item.comments ? [item.comments] : []));
  expect(charted.sort()).toEqual(counted.sort());

  // Comments: every one reachable, a hundred to a page, the held queue on the first.
  await open(page, "Comments");
  await expect(page.getByRole("radio", { name: `Published (${published.length})` })).toBeVisible();
  const list = page.getByRole("list", { name: "Comments, newest first" }).locator(":scope > li");
  await expect(list).toHaveCount(100);
  const pager = page.getByRole("navigation", { name: "Pages of comments" });
  await pager.getByRole("button", { name: "Next page" }).click();
  await expect(pager.getByRole("status")).toHaveText("Page 2");
  await expect(list).toHaveCount(listed.length - 100);
  const oldest = Math.min(...listed.map((c) => c.id));
  await expect(list.last()).toContainText(`#${oldest} ·`);
  await expect(page.getByRole("heading", { name: /^Awaiting approval/ })).toHaveCount(0);
  await expect(pager.getByRole("button", { name: "Next page" })).toHaveAttribute(
    "aria-disabled",
    "true",
  );
  expect(await seriousViolations(page)).toEqual([]);
  await pager.getByRole("button", { name: "Previous page" }).click();
  await expect(pager.getByRole("status")).toHaveText("Page 1");
  await expect(page.getByRole("heading", { name: `Awaiting approval (${held})` })).toBeVisible();

  // Bookings: the calls readers moved from their mail's link say so.
  await open(page, "Bookings");
  await expect(page.getByText("Booked, moved by the reader once")).toHaveCount(
    seeded.bookings.moved,
  );

  // Readers: the same visitors and views as `readers --since 7d`.
  await open(page, "Readers");
  await expect(figure(page, "Visitors")).toHaveText(String(readers.visitors));
  await expect(figure(page, "Views")).toHaveText(String(readers.views));

  // Subscribers: the confirmed as the command line lists them, and the suppressed.
  await open(page, "Subscribers");
  const confirmed = subscribers.filter((s) => s.status === "confirmed").length;
  await expect(figure(page, "Confirmed")).toHaveText(String(confirmed));
  await expect(
    page
      .getByRole("table", { name: "Suppressed addresses, newest first" })
      .getByRole("button", { name: /^Lift/ }),
  ).toHaveCount(suppressions.length);

  // Questions: a question in Malayalam grouped under its words as written.
  await open(page, "Questions");
  await expect(page.getByText("ഇത്, എങ്ങനെ, പ്രവർത്തിക്കുന്നു")).toBeVisible();

  // Health: a call's reminders are mail due later, not a backlog.
  await open(page, "Health");
  await expect(page.getByText(/^0 mails waiting, 0 given up, [1-9]\d* due later/)).toBeVisible();

  // On a phone, no screen of long names, right-to-left text and long notes is wider than it.
  await page.setViewportSize({ width: 360, height: 780 });
  const loaded: [string, Locator][] = [
    ["Overview", page.getByRole("link", { name: /comments awaiting approval/ })],
    ["Comments", page.getByRole("radio", { name: /^Published/ })],
    ["Enquiries", page.getByText(odd.longEnquiryName).first()],
    ["Bookings", page.getByText(odd.rtl).first()],
    ["Readers", figure(page, "Visitors")],
    ["Subscribers", figure(page, "Confirmed")],
  ];
  for (const [screen, shown] of loaded) {
    await open(page, screen);
    await expect(shown).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth), screen).toBe(360);
  }
  // The Subscribers screen is the last: a state and a button's word stay whole in its tables.
  for (const word of [
    page.getByRole("cell", { name: "Confirmed", exact: true }).first(),
    page.getByRole("button", { name: /^Remove \S+@/ }).first(),
    page.getByRole("button", { name: /^Lift / }).first(),
  ]) {
    expect(await lines(word), await word.innerText()).toBe(1);
  }
});

/** How many lines the text of `element` takes. */
const lines = (element: Locator) =>
  element.evaluate((node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    return new Set([...range.getClientRects()].map((rect) => Math.round(rect.bottom))).size;
  });
