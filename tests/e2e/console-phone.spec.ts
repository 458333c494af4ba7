import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Locator, Page } from "@playwright/test";
import { slotsResponseSchema } from "../../contract/bookings.ts";
import { suppressionKey } from "../../server/lib/mailbox.ts";
import { formTokenFor } from "../support/newsletter.ts";
import { seriousViolations } from "./support/axe.ts";
import { expect, type OpenVisitor, test } from "./support/fixtures.ts";
import { type OwnSite, ownerCli, ownerPage, postTo, startOwnSite } from "./support/own-site.ts";

/*
 * The console on a phone's width (360 px) and a desktop's, with what
 * strangers write at its longest: a name or an address with no space to
 * break at wraps within the window, and no screen scrolls sideways
 * (docs/console.md). Tables scroll within their own panel.
 */

test.describe.configure({ mode: "serial" });

let own: OwnSite;
/** A name with no space in it, as long as the enquiry form takes (100 characters). */
const longName = "Bo".padEnd(100, "o");
/** A URL with no space in it, as a stranger may type one anywhere. */
const unbroken = `https://example.org/${"averyveryverylongpathsegment".repeat(4)}`.slice(0, 120);

/** A word as long as a path may be, in a reader's question and a mail server's refusal. */
const longWord = "averyveryverylongunbrokenword".repeat(4);
/** A passkey's name as long as the field takes (60), and a writer's as long as the comment form takes (40). */
const longPasskey = "MyWorkLaptop".repeat(5);
const longWriter = "Wolfgang".padEnd(40, "W");

test.beforeAll(async ({ request }) => {
  // An edition whose link leads nowhere: its warning quotes the link whole, twice.
  const editionsDir = mkdtempSync(path.join(os.tmpdir(), "ewe-console-phone-editions-"));
  writeFileSync(
    path.join(editionsDir, "2026-12-gears.md"),
    `---\nsubject: Gears in December\n---\nRead [the lost post](/science/${longWord}).\n`,
  );
  own = await startOwnSite("console-phone", {
    host: "localhost",
    env: { EDITIONS_DIR: editionsDir },
  });
  const asked = await request.post(`${own.siteUrl}/api/assistant`, {
    headers: { origin: own.siteUrl },
    data: { question: `Why ${longWord}?` },
  });
  expect(asked.status(), await asked.text()).toBe(200);
  const db = new DatabaseSync(path.join(own.dataDir, "engage.sqlite"));
  db.exec("pragma busy_timeout = 5000");
  // An address suppressed with its mail server's words, one long unbroken path among them.
  const key = suppressionKey(readFileSync(path.join(own.dataDir, "cookie-secret"), "utf8").trim());
  db.prepare(
    "insert into suppressions (email_hash, domain, reason, source, detail, created_at) values (?, 'example.org', 'hard_bounce', 'smtp', ?, ?)",
  ).run(
    key("gone@example.org"),
    `550 5.1.1 see https://example.org/${longWord}`,
    new Date().toISOString(),
  );
  // A passkey the owner named at the field's longest, without a space.
  db.prepare(
    "insert into owner_passkeys (id, name, public_key, counter, transports, created_at) values ('phone-passkey', ?, 'unused', 0, '[]', ?)",
  ).run(longPasskey, new Date().toISOString());
  db.prepare(
    "insert into fediverse_followers (actor_id, handle, name, inbox, shared_inbox, follow_id, created_at) values (?, ?, ?, ?, ?, ?, ?)",
  ).run(
    "https://fosstodon.org/users/ines",
    `@${"inesduarte".repeat(8)}@fosstodon.org`,
    "Inês Duarte",
    "https://fosstodon.org/users/ines/inbox",
    "https://fosstodon.org/inbox",
    "https://fosstodon.org/users/ines#follows/1",
    new Date().toISOString(),
  );
  db.close();
  const banned = await postTo(request, own, "wifi", { content: "Buy now", userName: longWriter });
  ownerCli(own, "visitor", "ban", "--comment", String(banned.id));
  const { formToken } = await (await request.get(`${own.siteUrl}/api/enquiries/form-token`)).json();
  // Sent as the form sends it, once the form's second has passed.
  await expect(async () => {
    const sent = await request.post(`${own.siteUrl}/api/enquiries`, {
      headers: { origin: own.siteUrl },
      data: {
        name: "Asha Kulkarni",
        email: "asha@example.org",
        service: "other",
        message: "Our gearbox housing stack-up fails at the bearing bore; can you review it?",
        organisation: unbroken,
        formToken,
      },
    });
    expect(sent.status(), await sent.text()).toBe(201);
  }).toPass({ timeout: 20_000 });
  // A name as long as the form takes, with no space in it.
  const sent = await request.post(`${own.siteUrl}/api/enquiries`, {
    headers: { origin: own.siteUrl },
    data: {
      name: longName,
      email: "bo@example.org",
      service: "other",
      message: "Could you review the tolerance stack of our gearbox housing, bore to bore?",
      formToken,
    },
  });
  expect(sent.status(), await sent.text()).toBe(201);
});
test.afterAll(async () => {
  await own?.stop();
});

const openAt = (visitor: OpenVisitor, path: string, width: number) =>
  ownerPage(visitor, own, path, { viewport: { width, height: 800 } });

/** How far the page reaches past the window's right edge, in CSS pixels (0 when it does not scroll sideways). */
const pastTheEdge = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

for (const width of [360, 1280]) {
  test(`an enquiry's facts wrap an address without spaces at ${width} px`, async ({ visitor }) => {
    const page = await openAt(visitor, "/admin/enquiries", width);
    const card = page.getByRole("article", { name: "Enquiry from Asha Kulkarni" });
    await expect(card.getByText(unbroken)).toBeVisible();
    expect(await pastTheEdge(page)).toBe(0);
    // Every card has the same buttons: grouped, they say whose enquiry they act on.
    await expect(
      card
        .getByRole("group", { name: "Enquiry from Asha Kulkarni" })
        .getByRole("button", { name: "Mark answered" }),
    ).toBeVisible();
  });
}

test("an enquiry's name without spaces wraps in its heading on a phone", async ({ visitor }) => {
  const page = await openAt(visitor, "/admin/enquiries", 360);
  const card = page.getByRole("article", { name: `Enquiry from ${longName}` });
  const heading = card.getByRole("heading", { name: new RegExp(`^${longName}`) });
  await expect(heading).toBeVisible();
  expect(await heading.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(
    true,
  );
  expect(await pastTheEdge(page)).toBe(0);
});

test("a follower's handle without spaces wraps on a phone", async ({ visitor }) => {
  const page = await openAt(visitor, "/admin/followers", 360);
  await expect(page.getByRole("link", { name: /^@inesduarte/ })).toBeVisible();
  expect(await pastTheEdge(page)).toBe(0);
});

test("Readers and Bookings fit a phone: a wide table's rows stack, each whole in its panel", async ({
  visitor,
}) => {
  const page = await openAt(visitor, "/admin/readers", 360);
  const conversions = page.getByRole("table", { name: /^Entry page by kind of conversion/ });
  // The enquiry's conversion is written within a few seconds of it.
  await expect(async () => {
    await page.reload();
    await expect(conversions).toBeVisible({ timeout: 5_000 });
  }).toPass({ timeout: 30_000 });
  expect(await pastTheEdge(page)).toBe(0);
  // Nothing to scroll within the panel: the page's path has a line of its own, and each
  // figure follows its name, read as the table's cell all the same.
  const scroller = conversions.locator("xpath=..");
  expect(await scroller.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(
    true,
  );
  const row = conversions.getByRole("row").nth(1);
  const [table, path] = await Promise.all([
    conversions.boundingBox(),
    row.getByRole("rowheader").boundingBox(),
  ]);
  expect(path?.width ?? 0).toBeGreaterThan((table?.width ?? 0) * 0.9);
  // Asha's enquiry and the one under the long name.
  await expect(row).toContainText("Enquiries 2");
  await expect(row.getByRole("cell").nth(1)).toHaveAccessibleName("2");
  expect(await seriousViolations(page, "main")).toEqual([]);

  await page.goto(`${own.siteUrl}/admin/bookings`);
  await expect(page.getByRole("button", { name: "Save availability" })).toBeVisible();
  expect(await pastTheEdge(page)).toBe(0);
});

test("the block field says what to write, whole, on a phone", async ({ visitor }) => {
  const page = await openAt(visitor, "/admin/followers", 360);
  const field = page.getByLabel("Account or server to block");
  // Not in a placeholder, which a phone's width cut off after "https://mastodon.social/u".
  await expect(field).not.toHaveAttribute("placeholder");
  await expect(field).toHaveAccessibleDescription(
    "An account's address, as https://mastodon.social/users/someone, or a server's name, as mastodon.social.",
  );
  const hint = page.getByText(/^An account's address, as/);
  await hint.scrollIntoViewIfNeeded();
  await expect(hint).toBeInViewport({ ratio: 1 });
  expect(await hint.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  expect(await pastTheEdge(page)).toBe(0);
});

/**
 * Tabs once round the open `dialog`, from the control focused: the keyboard reaches each of
 * its controls (of a group of radio buttons, the chosen one), each whole in the window.
 */
async function tabRound(page: Page, dialog: Locator) {
  const stops = await dialog.evaluate((box) => {
    const all = box.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea");
    const each = [...all].filter(
      (control) =>
        !(control as HTMLButtonElement).disabled &&
        !(control instanceof HTMLInputElement && control.type === "radio" && !control.checked),
    );
    for (const [at, control] of each.entries()) control.dataset.stop = String(at);
    return each.length;
  });
  const reached = new Set<string>();
  for (let step = 0; step < stops; step += 1) {
    const focused = page.locator(":focus");
    await expect(focused).toBeInViewport({ ratio: 1 });
    reached.add((await focused.getAttribute("data-stop")) ?? "outside the dialog");
    await page.keyboard.press("Tab");
  }
  expect([...reached].sort()).toEqual(Array.from({ length: stops }, (_, at) => String(at)).sort());
}

test("a confirmation fits a phone: a long title wraps, Cancel has the focus, the keyboard reaches each button, nothing moves under reduced motion, and Escape gives the focus back", async ({
  visitor,
}) => {
  const page = await openAt(visitor, "/admin/followers", 360);
  await page.emulateMedia({ reducedMotion: "reduce" });
  const erase = page.getByRole("button", { name: /^Erase @inesduarte/ });
  await erase.click();
  const dialog = page.getByRole("alertdialog", { name: /^Erase @inesduarte/ });
  await expect(dialog).toBeVisible();
  expect(
    await page.evaluate(
      () => document.getAnimations().filter((each) => each.playState === "running").length,
    ),
  ).toBe(0);
  // The button that leaves things as they are, as an alert dialog should.
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await tabRound(page, dialog);
  const title = dialog.getByRole("heading", { name: /^Erase @inesduarte/ });
  expect(await title.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  await expect(dialog.getByRole("button", { name: "Erase and block" })).toBeInViewport({
    ratio: 1,
  });
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(erase).toBeFocused();
});

test("the dialogs with a form fit a phone: its first field focused, nothing wider than the window, and the keyboard reaches every control", async ({
  visitor,
}) => {
  const site = own.siteUrl;
  const { starts } = slotsResponseSchema.parse(
    await (await fetch(`${site}/api/bookings/slots`)).json(),
  );
  const booked = await fetch(`${site}/api/bookings`, {
    method: "POST",
    headers: { origin: site, "content-type": "application/json" },
    body: JSON.stringify({
      start: starts[0],
      name: longName,
      email: "bo@example.org",
      service: "dfmea",
      zone: "Asia/Kolkata",
    }),
  });
  expect(booked.status, await booked.text()).toBe(201);
  const phone = { viewport: { width: 360, height: 640 } };
  const page = await ownerPage(visitor, own, "/admin/bookings", phone);
  const card = page.getByRole("article", { name: `Call with ${longName}` });
  const dialogs = [
    [`Move the call with ${longName}`, `Move the call with ${longName}`, "/admin/bookings"],
    [`Cancel the call with ${longName}`, `Cancel the call with ${longName}?`, "/admin/bookings"],
    [
      new RegExp(`^Ban the writer of the comment of ${longWriter}`),
      `Ban ${longWriter}?`,
      "/admin/comments",
    ],
  ] as const;
  for (const [button, name, screen] of dialogs) {
    if (!page.url().endsWith(screen)) await page.goto(`${site}${screen}`);
    const opener = (screen === "/admin/bookings" ? card : page).getByRole("button", {
      name: button,
    });
    await opener.click();
    const dialog = page.getByRole("dialog", { name });
    // Its first field takes the focus once it is there (the times load first).
    await expect(dialog.locator("input:focus, textarea:focus")).toHaveCount(1);
    expect(await pastTheEdge(page)).toBe(0);
    expect(await dialog.evaluate((box) => box.scrollWidth <= box.clientWidth)).toBe(true);
    const box = await dialog.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 360).toBe(true);
    await tabRound(page, dialog);
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(opener).toBeFocused();
  }
});

test("Newsletter, Questions, Subscribers and the Overview fit a phone: a long link, word or refusal wraps; each empty list says why", async ({
  visitor,
}) => {
  const page = await openAt(visitor, "/admin/newsletter", 360);
  const edition = page.getByRole("listitem").filter({ hasText: "Gears in December" });
  await expect(edition.getByRole("region", { name: "Warnings about 2026-12-gears" })).toContainText(
    longWord,
  );
  expect(await pastTheEdge(page)).toBe(0);
  // Each edition's buttons are grouped under its subject, which says whose they are.
  await expect(
    page
      .getByRole("group", { name: "Gears in December" })
      .getByRole("button", { name: "Send", exact: true }),
  ).toBeVisible();

  await page.goto(`${own.siteUrl}/admin/questions`);
  await expect(page.getByRole("list", { name: "Unanswered questions, grouped" })).toContainText(
    longWord,
  );
  expect(await pastTheEdge(page)).toBe(0);
  // The question's Delete names it by its start, marked cut.
  await expect(
    page.getByRole("button", { name: `Delete the question “Why ${longWord.slice(0, 55)}…”` }),
  ).toBeVisible();
  // Filtered to the answered ones, of which there is none: the line says so, not "No questions yet".
  await page.getByRole("radio", { name: "Answered", exact: true }).check();
  await expect(
    page.getByText("No question in the last 90 days was answered from the site."),
  ).toBeVisible();

  await page.goto(`${own.siteUrl}/admin/subscribers`);
  await expect(
    page.getByText(
      "No subscribers yet: readers subscribe with the form at the foot of every page.",
    ),
  ).toBeVisible();
  await expect(
    page.getByRole("table", { name: "Suppressed addresses, newest first" }),
  ).toContainText(longWord);
  expect(await pastTheEdge(page)).toBe(0);
  // A subscriber's row, its address, state, time and button: its cells stack on a phone.
  const email = "priya.raman.procurement@ramanmotorsinternational.co.uk";
  const subscribed = await page.request.post(`${own.siteUrl}/api/subscribers`, {
    data: { email, formToken: formTokenFor({ DATA_DIR: own.dataDir }) },
    headers: { origin: own.siteUrl },
  });
  expect(subscribed.status()).toBe(202);
  // In a zone whose times are named long ("8 Dec 2026, 03:14 GMT+5:30"), as in India.
  const india = await ownerPage(visitor, own, "/admin/subscribers", {
    viewport: { width: 360, height: 800 },
    timezoneId: "Asia/Kolkata",
  });
  const subscribers = india.getByRole("table", { name: "Subscribers, newest first" });
  await expect(subscribers).toContainText(email);
  expect(await pastTheEdge(india)).toBe(0);
  // Within its panel too: a confirmed one's wider state would carry it past the window.
  expect(
    await subscribers.evaluate(
      (table) =>
        table.getBoundingClientRect().right -
        (table.parentElement?.getBoundingClientRect().right ?? 0),
    ),
  ).toBeLessThanOrEqual(0);

  // The enquiries' chart says what its number counts.
  await page.goto(`${own.siteUrl}/admin`);
  await expect(page.getByRole("region", { name: "Enquiries per week by service" })).toContainText(
    "Last 12 weeks: Something else: 2 enquiries.",
  );
  expect(await pastTheEdge(page)).toBe(0);
});

test("Bans and Sign-in and passkeys fit a phone: a writer's or a passkey's name without spaces wraps", async ({
  visitor,
}) => {
  const page = await openAt(visitor, "/admin/bans", 360);
  await expect(
    page.getByRole("button", { name: new RegExp(`^Unban ${longWriter}`) }),
  ).toBeVisible();
  expect(await pastTheEdge(page)).toBe(0);
  await page.goto(`${own.siteUrl}/admin/security`);
  await expect(
    page.getByRole("button", { name: `Remove the passkey ${longPasskey}` }),
  ).toBeVisible();
  expect(await pastTheEdge(page)).toBe(0);
});

test("a read or a write the site does not answer says so and what to do; Try again reads the screen again", async ({
  visitor,
}) => {
  const page = await openAt(visitor, "/admin/enquiries", 1280);
  const card = page.getByRole("article", { name: "Enquiry from Asha Kulkarni" });
  await page.route("**/api/admin/enquiries/*", (route) => route.abort("internetdisconnected"));
  await card.getByRole("button", { name: "Keep" }).click();
  // Not the browser's "Failed to fetch", which says neither what happened nor what to do.
  const noAnswer = "The site did not answer: check your connection, then try again.";
  await expect(page.getByText(noAnswer)).toBeVisible();
  await page.unrouteAll();

  await page.route("**/api/admin/audit*", (route) => route.abort("internetdisconnected"));
  await page.goto(`${own.siteUrl}/admin/audit`);
  await expect(page.getByRole("alert")).toHaveText(`Could not load: ${noAnswer}`);
  await page.unrouteAll();
  await page.getByRole("button", { name: "Try again" }).press("Enter");
  await expect(page.getByRole("list", { name: "Audit trail, newest first" })).toContainText(
    "visitor ban",
  );
  // The button gone with the failure, the focus goes to the screen's heading, not the page.
  await expect(page.getByRole("heading", { name: "Audit trail", level: 1 })).toBeFocused();
});
