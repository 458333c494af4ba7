import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Page } from "@playwright/test";
import { commentResponseSchema } from "../../contract/api.ts";
import { assistantResponseSchema } from "../../contract/assistant.ts";
import {
  bookingsResponseSchema,
  moveTimesResponseSchema,
  slotsResponseSchema,
} from "../../contract/bookings.ts";
import { dateKey, dayLabel, momentLabel, timeLabel, zoneName } from "../../contract/time-zones.ts";
import { suppressionKey } from "../../server/lib/mailbox.ts";
import { projectRoot } from "../support/server-process.ts";
import { seriousViolations } from "./support/axe.ts";
import { uniqueWord } from "./support/comments.ts";
import { expect, test } from "./support/fixtures.ts";
import { holdRead } from "./support/held-read.ts";
import { liveDiscussion, openDiscussion } from "./support/items.ts";
import {
  type OwnSite,
  ownerCli,
  ownerPage,
  signInWith,
  startOwnSite,
  withAuthenticator,
} from "./support/own-site.ts";
import { refuseWrite } from "./support/refused-write.ts";

/*
 * The owner's console in Chromium, against its own server process: WebAuthn
 * refuses IP addresses as relying parties, so this server's SITE_URL is
 * http://localhost:<port>, and the test knows its DATA_DIR to run the
 * command line against it and to seed three months of history. Tests that
 * only need to be signed in share one sign-in (`ownerPage`); the ones about
 * signing in sign in themselves. Each screen is checked by axe in the visit
 * that tests it, and a dialog on its own (the screen under it is checked
 * without it); the Overview with held comments, Comments, Bans, the Audit
 * trail, Health and Sign-in and passkeys are checked in
 * console-moderation.spec.ts, at a desktop's and a phone's width, with held,
 * published and spam comments and a ban in force.
 */

test.describe.configure({ mode: "serial" });

let own: OwnSite;
/** Its SITE_URL, `http://localhost:<port>`. */
let site: string;

const day = 24 * 60 * 60 * 1000;

/** Deterministic "random" numbers, so the seeded charts look the same on every run. */
function seeded(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Three months of comments, reactions and subscribers, and two suppressed addresses, written as the site would have. */
function seedHistory(file: string) {
  const db = new DatabaseSync(file);
  db.exec("pragma busy_timeout = 5000");
  const random = seeded(7);
  const now = Date.now();
  const posts = ["wifi", "ironing", "soap", "pressure-cooker", "tea-cooling"];
  const stories = ["garuda", "sita-faith", "rama-duty", "nala-damayanti"];
  const types = ["like", "love", "idea", "dislike"];
  const names = ["Asha", "Ravi", "Meera", "Tom", "Li", "Sara", "Kofi"];
  const comment = db.prepare(
    "insert into science_comments (post_id, content, user_name, visitor_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?)",
  );
  const scienceReaction = db.prepare(
    "insert or ignore into science_reactions (post_id, type, user_name, visitor_id, created_at) values (?, ?, ?, ?, ?)",
  );
  const mythologyReaction = db.prepare(
    "insert or ignore into mythology_reactions (story_id, type, user_name, visitor_id, created_at) values (?, ?, ?, ?, ?)",
  );
  const subscriber = db.prepare(
    "insert into subscribers (email, email_hash, unsubscribe_token, created_at, status, confirmed_at) values (?, ?, ?, ?, ?, ?)",
  );
  const key = siteAddressKey(path.dirname(file));
  let visitor = 0;
  for (let ago = 89; ago >= 0; ago--) {
    const growth = 1 + (89 - ago) / 30;
    const at = (hour: number) => new Date(now - ago * day - hour * 3600_000).toISOString();
    for (let i = 0; i < Math.round(random() * 3 * growth); i++) {
      const post = posts[Math.floor(random() * posts.length)] ?? "wifi";
      comment.run(
        post,
        `Seeded comment ${ago}-${i}`,
        names[i % names.length] ?? "Asha",
        `seed-visitor-${visitor++}`.padEnd(22, "x"),
        at(i),
        at(i),
      );
    }
    for (let i = 0; i < Math.round(random() * 8 * growth); i++) {
      const type = types[Math.floor(random() * types.length)] ?? "like";
      if (random() < 0.5) {
        scienceReaction.run(
          posts[i % posts.length] ?? "wifi",
          type,
          "Reader",
          `seed-visitor-${visitor++}`.padEnd(22, "x"),
          at(i),
        );
      } else {
        mythologyReaction.run(
          stories[i % stories.length] ?? "garuda",
          type,
          "Reader",
          `seed-visitor-${visitor++}`.padEnd(22, "x"),
          at(i),
        );
      }
    }
    if (random() < 0.6) {
      const confirmed = random() < 0.8;
      subscriber.run(
        `reader-${ago}@example.com`,
        key(`reader-${ago}@example.com`),
        `seed-token-${ago}`.padEnd(43, "x"),
        at(2),
        confirmed ? "confirmed" : "pending",
        confirmed ? at(1) : null,
      );
    }
  }
  // Two addresses no mail goes to, as the outbox would have suppressed them: by their
  // digests, addresses the site no longer holds.
  const suppression = db.prepare(
    "insert into suppressions (email_hash, domain, reason, source, detail, created_at) values (?, ?, ?, ?, ?, ?)",
  );
  const hoursAgo = (hours: number) => new Date(now - hours * 3600_000).toISOString();
  suppression.run(
    key("gone@example.net"),
    "example.net",
    "hard_bounce",
    "smtp",
    "550 5.1.1 No such user",
    hoursAgo(5),
  );
  suppression.run(
    key("annoyed@example.com"),
    "example.com",
    "complaint",
    "postmark",
    null,
    hoursAgo(3),
  );
  // October's edition, sent to three readers before this run: the Overview charts it.
  const edition = db
    .prepare(
      "insert into editions (slug, subject, html, text, created_at) values (?, ?, ?, ?, ?) returning id",
    )
    .get(
      "2026-10-heat-exchangers",
      "Heat exchangers in October",
      "<p>Why fouling costs more than the fins.</p>",
      "Why fouling costs more than the fins.",
      hoursAgo(24 * 40),
    ) as { id: number };
  const copy = db.prepare(
    "insert into outbox (kind, edition_id, email, status, next_attempt_at, created_at, sent_at) values ('edition', ?, ?, 'sent', ?, ?, ?)",
  );
  for (const reader of ["reader-80@example.com", "reader-70@example.com", "reader-60@example.com"])
    copy.run(edition.id, reader, hoursAgo(24 * 40), hoursAgo(24 * 40), hoursAgo(24 * 40 - 1));
  db.close();
}

/** The digest the site in `dataDir` keeps a suppressed address under. */
const siteAddressKey = (dataDir: string) =>
  suppressionKey(readFileSync(path.join(dataDir, "cookie-secret"), "utf8").trim());

/** A 1×1 PNG: the picture a Fediverse writer's server gave. */
const remotePicture =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/**
 * The open web's audience, as the inbox and the webmention endpoint would
 * have left it: a follower, a webmention waiting for the owner, and a reply
 * from the Fediverse under the pressure-cooker post, with its writer's
 * picture kept here; and a delivery the queue gave up. Seeded before any
 * read, so no cached page misses it.
 */
function seedOpenWeb(file: string, site: string) {
  const db = new DatabaseSync(file);
  db.exec("pragma busy_timeout = 5000");
  const now = new Date().toISOString();
  db.prepare(
    "insert into fediverse_followers (actor_id, handle, name, inbox, shared_inbox, follow_id, created_at) values (?, ?, ?, ?, ?, ?, ?)",
  ).run(
    "https://fosstodon.org/users/ines",
    "@ines@fosstodon.org",
    "Inês Duarte",
    "https://fosstodon.org/users/ines/inbox",
    "https://fosstodon.org/inbox",
    "https://fosstodon.org/users/ines#follows/1",
    now,
  );
  db.prepare(
    "insert into webmentions (source, target, path, status, kind, author_name, author_url, content, received_at, verified_at) values (?, ?, ?, 'pending', 'mention', ?, ?, ?, ?, ?)",
  ).run(
    "https://kitchenphysics.org/notes/pressure",
    `${site}/science/pressure-cooker`,
    "/science/pressure-cooker",
    "Tomás Ferreira",
    "https://kitchenphysics.org/",
    "A clear account of why the lid must lock.",
    now,
    now,
  );
  const { lastInsertRowid } = db
    .prepare(
      "insert into science_comments (post_id, content, content_html, user_name, visitor_id, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)",
    )
    .run(
      "pressure-cooker",
      "The valve's weight sets the pressure, so it sets the boiling point too.",
      "<p>The valve's weight sets the pressure, so it sets the boiling point too.</p>",
      "Inês Duarte",
      "fediverse:0123456789abcdef0123456789abcdef",
      now,
      now,
    );
  db.prepare(
    "insert into fediverse_replies (comment_id, note_id, actor_id, handle, name, url, avatar, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)",
  ).run(
    Number(lastInsertRowid),
    "https://fosstodon.org/users/ines/statuses/1",
    "https://fosstodon.org/users/ines",
    "@ines@fosstodon.org",
    "Inês Duarte",
    "https://fosstodon.org/@ines/1",
    `image/png;base64,${remotePicture}`,
    now,
  );
  db.prepare(
    "insert into fediverse_given_up (kind, activity, why, given_up_at) values ('outbox', ?, 'no result within 120 s', ?)",
  ).run(`${site}/fediverse/notes/1#delete-1`, now);
  db.close();
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const editionsDir = mkdtempSync(path.join(os.tmpdir(), "ewe-console-editions-"));
  writeFileSync(
    path.join(editionsDir, "2026-11-fuel-cells.md"),
    "---\nsubject: Fuel cells in November\n---\nWhy a **fuel cell** stack runs warm, and what that means for winter.\n",
  );
  // A link and an image that lead nowhere on the built site: the screen warns before any sending.
  writeFileSync(
    path.join(editionsDir, "2026-12-lost-links.md"),
    "---\nsubject: Lost links in December\n---\nRead [the lost post](/science/no-such-post).\n\n![A lost chart](/og/no-such-chart.png)\n",
  );
  own = await startOwnSite("console", { host: "localhost", env: { EDITIONS_DIR: editionsDir } });
  site = own.siteUrl;
  seedHistory(path.join(own.dataDir, "engage.sqlite"));
  seedOpenWeb(path.join(own.dataDir, "engage.sqlite"), site);
});

test.afterAll(async () => {
  await own?.stop();
});

/** `npm run admin -- login` against the test's server: a one-time sign-in link. */
const cliLink = () => ownerCli(own, "login").trim();

test("a signed-out browser is sent to sign in; the pages are not for search engines; the sign-in page is axe clean, with and without a link", async ({
  page,
  request,
}) => {
  // A screen's address, as the owner's mails link to one: signing in leads back to it.
  await page.goto(`${site}/admin/comments`);
  await expect(page).toHaveURL(`${site}/admin/sign-in?then=%2Fadmin%2Fcomments`);
  await expect(page.getByRole("heading", { name: "Sign in to the console" })).toBeVisible();
  // No passkey is registered yet, and without OWNER_EMAIL no link could be mailed: the page
  // names the command that prints one, and offers neither a passkey nor a mailed link.
  await expect(page.getByRole("main")).toContainText(
    "On the server, npm run admin -- login prints a sign-in link.",
  );
  await expect(page.getByRole("button", { name: "Email me a sign-in link" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Sign in with a passkey" })).toHaveCount(0);
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex, nofollow");
  expect(await seriousViolations(page)).toEqual([]);
  await page.goto(cliLink());
  await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Comments", level: 1 })).toBeVisible();
  await expect(page).toHaveURL(`${site}/admin/comments`);

  const signInPage = await request.get(`${site}/admin/sign-in`);
  const csp = signInPage.headers()["content-security-policy"] ?? "";
  expect(csp).toMatch(/script-src 'self'( 'sha256-[^']+')+;/);
  expect(csp).not.toContain("chatbot");
  expect(csp).not.toContain("unsafe-inline' 'self'; script");
  expect(signInPage.headers()["x-robots-tag"]).toBe("noindex, nofollow");
  const robots = await (await request.get(`${site}/robots.txt`)).text();
  expect(robots).toContain("Disallow: /admin\n");
  expect((await request.get(`${site}/api/admin/overview`)).status()).toBe(401);
});

test("the command line's link signs in once; comments arrive live and a deletion reaches a reader's page; a search read that left before a deletion does not bring the comment back", async ({
  page,
  visitor,
  request,
}) => {
  test.slow();
  const link = cliLink();
  expect(link).toMatch(new RegExp(`^${site}/admin/sign-in#token=[\\w-]{43}$`));
  await signInWith(page, link);
  const cookies = await page.context().cookies();
  expect(cookies.find((c) => c.name === "ewe_owner")).toMatchObject({
    httpOnly: true,
    sameSite: "Strict",
  });

  // The same link in another browser is refused.
  const second = await visitor();
  await second.goto(link);
  await second.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(second.getByText("This sign-in link has already been used")).toBeVisible();

  await page.getByRole("link", { name: "Comments" }).click();
  await expect(page.getByRole("heading", { name: "Comments", level: 1 })).toBeVisible();
  await expect(page.getByText("Live: new comments appear here")).toBeVisible();

  // A reader has the Wi-Fi post's page open, its discussion live.
  const reader = await visitor();
  const readerComments = await openDiscussion(reader, `${site}/science/wifi`);

  const text = `Live comment ${uniqueWord()}`;
  const posted = await reader.request.post(`${site}/api/items/science/wifi/comments`, {
    headers: { origin: site },
    data: { content: text, userName: "Nadia" },
  });
  expect(posted.status()).toBe(201);
  const inConsole = page.getByRole("article", { name: "Comment by Nadia" });
  await expect(inConsole).toContainText(text);
  await expect(readerComments.getByText(text)).toBeVisible({ timeout: 15_000 });

  const next = await inConsole
    .locator("xpath=ancestor::li/following-sibling::li[1]//article")
    .getAttribute("aria-label");
  // While the deletion's answer is on its way, a comment arrives live, newest
  // first: where Nadia's was.
  const deletion = await holdRead(page, /\/api\/admin\/comments\/\d+$/);
  // Its notice leaves by itself after 4 s: on the page's clock, moved on below rather
  // than waited out (its time runs as ever meanwhile).
  await page.clock.install();
  await inConsole.getByRole("button", { name: "Delete the comment of Nadia" }).press("Enter");
  await deletion.answered;
  const arrived = await reader.request.post(`${site}/api/items/science/soap/comments`, {
    headers: { origin: site },
    data: { content: `Arrived meanwhile ${uniqueWord()}`, userName: "Omar" },
  });
  expect(arrived.status()).toBe(201);
  await expect(page.getByRole("article").first()).toHaveAccessibleName(/^Comment by Omar/);
  await deletion.release();
  await expect(page.getByText("Comment deleted")).toBeVisible();
  await expect(page.getByRole("article", { name: "Comment by Nadia" })).toHaveCount(0);
  // The focus goes to the comment that followed Nadia's, not to the one that came meanwhile.
  expect(next).toMatch(/^Comment by /);
  await expect(
    page
      .getByRole("article", { name: next!, exact: true })
      .getByRole("button", { name: "Reply", exact: true }),
  ).toBeFocused();
  await expect(readerComments.getByText(text)).toHaveCount(0, { timeout: 15_000 });

  // Search by name.
  await page.getByLabel("Search text or name").fill("Meera");
  await expect(page.getByRole("article").first()).toContainText("Meera");
  await expect(page.getByRole("article", { name: "Comment by Asha" })).toHaveCount(0);

  // On the same screen: a comment found by its text, then a narrower search.
  const word = uniqueWord();
  const overtakenText = `Overtaken by its deletion ${word}`;
  const overtaken = await request.post(`${site}/api/items/science/soap/comments`, {
    headers: { origin: site },
    data: { content: overtakenText, userName: "Ines" },
  });
  expect(overtaken.status()).toBe(201);
  // The first deletion's notice gone, so that the next one is this deletion's.
  await page.clock.runFor(5_000);
  await expect(page.getByText("Comment deleted")).toHaveCount(0);
  const search = page.getByLabel("Search text or name");
  await search.fill(overtakenText);
  const card = page.getByRole("article", { name: "Comment by Ines" });
  await expect(card).toContainText(overtakenText);
  await expect(page.getByRole("article")).toHaveCount(1);

  // A narrower search leaves and is answered with the comment still there; the
  // answer reaches the page after the deletion and the live event it sends.
  const read = await holdRead(page, /\/api\/admin\/comments\?/);
  await search.fill(word);
  await read.answered;
  await card.getByRole("button", { name: "Delete the comment of Ines" }).click();
  await expect(page.getByText("Comment deleted")).toBeVisible();
  await read.release();
  await expect(card).toHaveCount(0);
  await expect(page.getByText("No comments match.")).toBeFocused();
});

test("subscribers: counts, search, removal after confirmation, the screen axe clean; a search's late answer keeps the focus on the list; a search read that left before a removal does not bring the removed row back", async ({
  visitor,
}) => {
  const page = await ownerPage(visitor, own, "/admin/subscribers");
  await expect(page.getByRole("heading", { name: "Subscribers", level: 1 })).toBeVisible();
  await expect(page.getByText("Loading…")).toHaveCount(0);
  expect(await seriousViolations(page)).toEqual([]);
  const confirmed = page.locator("dl > div").filter({ hasText: "Confirmed" }).locator("dd");
  const before = Number(await confirmed.textContent());
  expect(before).toBeGreaterThan(0);
  const rows = page.getByRole("table", { name: "Subscribers, newest first" }).locator("tbody tr");
  await page.getByLabel("Search addresses").fill("reader-0@");
  const row = page.getByRole("row", { name: /reader-0@example\.com/ });
  // The search answered: only that address is listed.
  await expect(rows).toHaveCount(1);
  await expect(row).toBeVisible();
  // By keyboard: Remove, then past Cancel to the confirmation's Remove.
  // Among the page's buttons, each Remove names the address it removes.
  await page
    .getByRole("button", { name: "Remove reader-0@example.com", exact: true })
    .press("Enter");
  const dialog = page.getByRole("alertdialog", { name: "Remove reader-0@example.com?" });
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Tab");
  await expect(dialog.getByRole("button", { name: "Remove" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Removed reader-0@example.com")).toBeVisible();
  await expect(row).toHaveCount(0);
  // The last row gone, the line that says none match takes the focus.
  await expect(page.getByText("No addresses match.")).toBeFocused();
  // The whole address typed: none subscribed has it, and the screen offers to
  // forget the mails sent to it; Remove forgot them already, so the server says so.
  await page.getByLabel("Search addresses").fill("reader-0@example.com");
  await expect(
    page.getByText(/^No subscriber has this address\. A reader who unsubscribed/),
  ).toBeVisible();
  await page.getByRole("button", { name: "Forget this address" }).click();
  await page
    .getByRole("alertdialog", { name: "Forget reader-0@example.com?" })
    .getByRole("button", { name: "Forget" })
    .click();
  await expect(
    page.getByText("No subscriber has this address, and no mail sent to it is kept."),
  ).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Export CSV" }).click();
  expect((await download).suggestedFilename()).toMatch(/^subscribers-\d{4}-\d{2}-\d{2}\.csv$/);

  // On the same screen, every address listed again (the list the screen opened
  // with may show for a moment, the removed address still in it).
  await page.getByLabel("Search addresses").fill("");
  const another = rows.filter({ hasNotText: "reader-0@example.com" }).first();
  await expect(another).toBeVisible();
  const email = (await another.getByRole("rowheader").textContent()) ?? "";
  expect(email).toMatch(/^reader-\d+@example\.com$/);

  // Suppressed addresses, each lifted by keyboard: the next one's Lift takes
  // the focus, then the line that says none is left.
  const suppressed = page.getByRole("region", { name: "Suppressed addresses" });
  // Neither address is held by the site any more: each shows its domain.
  const notKept = (domain: string) => `an address at ${domain} (no longer kept)`;
  for (const [lifted, then] of [
    [
      notKept("example.com"),
      suppressed.getByRole("button", {
        name: `Lift the suppression of ${notKept("example.net")}`,
      }),
    ],
    [notKept("example.net"), suppressed.getByText(/^None: no receiving server/)],
  ] as const) {
    await suppressed
      .getByRole("button", { name: `Lift the suppression of ${lifted}` })
      .press("Enter");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await expect(page.getByText(`Mail may go to ${lifted} again`)).toBeVisible();
    await expect(suppressed.getByRole("row", { name: lifted })).toHaveCount(0);
    await expect(then).toBeFocused();
  }
  expect(ownerCli(own, "suppressions", "list")).not.toContain("no longer kept");

  // A search's answer that reaches the page late, as a slow network would
  // deliver it, after the focus has moved into the list: the row that had the
  // focus is not listed, the nearest one still listed takes it.
  await expect(rows.filter({ hasText: "reader-0@" })).toHaveCount(0);
  const [, second = "", third = ""] = await rows.getByRole("rowheader").allTextContents();
  const removeOf = (address: string) =>
    page.getByRole("row", { name: address }).getByRole("button", { name: "Remove" });
  const search = page.getByLabel("Search addresses");
  const late = await holdRead(page, /\/api\/admin\/subscribers\/search$/);
  await search.fill(second);
  await late.answered;
  // Meanwhile, by keyboard past Export CSV to the first row's Remove.
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await expect(removeOf(email)).toBeFocused();
  await late.release();
  await expect(rows).toHaveCount(1);
  await expect(removeOf(second)).toBeFocused();
  // That row removed while the answer to another search is on its way: none of
  // the rows that were is listed in it, the first it lists takes the focus.
  const removing = await holdRead(page, /\/api\/admin\/subscribers\/search$/);
  await search.fill(third);
  await removing.answered;
  await removeOf(second).press("Enter");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(page.getByText(`Removed ${second}`)).toBeVisible();
  await removing.release();
  await expect(rows).toHaveCount(1);
  await expect(removeOf(third)).toBeFocused();

  const listed = page.getByRole("row", { name: email });
  await search.fill(email);
  await expect(listed).toBeVisible();
  await expect(rows).toHaveCount(1);

  // A narrower search leaves, and the server answers it with the address still there;
  // its answer reaches the page only after the removal, as a slow network would deliver it.
  const read = await holdRead(page, /\/api\/admin\/subscribers\/search$/);
  await search.fill(email.replace(/\.com$/, ""));
  await read.answered;
  await listed.getByRole("button", { name: "Remove" }).click();
  await page
    .getByRole("alertdialog", { name: `Remove ${email}?` })
    .getByRole("button", { name: "Remove" })
    .click();
  await expect(page.getByText(`Removed ${email}`)).toBeVisible();
  await read.release();
  await expect(listed).toHaveCount(0);
  await expect(page.getByText("No addresses match.")).toBeVisible();

  // A search typed again is answered at once from what the screen read before:
  // the focus moved into the list meanwhile, on a row that answer does not
  // list, passes to the nearest row it lists.
  await search.fill("reader-");
  await expect(page.getByText("No addresses match.")).toHaveCount(0);
  const [shown = "", next = ""] = await rows.getByRole("rowheader").allTextContents();
  await search.fill(next);
  await expect(rows).toHaveCount(1);
  await search.fill("reader-");
  await expect(rows.getByRole("rowheader").first()).toHaveText(shown);
  // Within the quarter-second a search rests for, by keyboard to the first row's Remove.
  await page.clock.install();
  await page.clock.pauseAt(Date.now() + 1000);
  await search.fill(next);
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await expect(removeOf(shown)).toBeFocused();
  await page.clock.runFor(500);
  await expect(rows).toHaveCount(1);
  await expect(removeOf(next)).toBeFocused();
  // A search typed, then the page clicked away from before it rests: its answer,
  // read before, changes the list and leaves the focus where the owner put it.
  await search.fill("reader-");
  await page.clock.runFor(500);
  await expect(rows.getByRole("rowheader").first()).toHaveText(shown);
  await page.waitForLoadState("networkidle");
  await search.fill(next);
  await page.getByRole("heading", { name: "Subscribers", level: 1 }).click();
  await expect(page.locator("body")).toBeFocused();
  await page.clock.runFor(500);
  await expect(rows).toHaveCount(1);
  await expect(page.locator("body")).toBeFocused();
});

/** Runs `statement` once with each of `rows` on the site's database, behind its back. */
function writeRows(statement: string, rows: string[][]) {
  const db = new DatabaseSync(path.join(own.dataDir, "engage.sqlite"));
  db.exec("pragma busy_timeout = 5000");
  const prepared = db.prepare(statement);
  for (const row of rows) prepared.run(...row);
  db.close();
}

/** 55 rows: a page of 50 and five more. */
const fiftyFive = (row: (i: number) => string[]) => Array.from({ length: 55 }, (_, i) => row(i));
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

test("suppressed addresses a page at a time: Next and Previous by keyboard, the page's number said, one address found in any letter case and lifted, the screen axe clean", async ({
  visitor,
}) => {
  // 55 addresses the outbox suppressed a minute apart: more than a page of 50, each
  // still a (pending) subscriber's, so that the list can show it.
  const bounced = (i: number) => `bounced-${String(i).padStart(2, "0")}@example.org`;
  const key = siteAddressKey(own.dataDir);
  writeRows(
    "insert into suppressions (email_hash, domain, reason, source, detail, created_at) values (?, 'example.org', 'hard_bounce', 'smtp', null, ?)",
    fiftyFive((i) => [key(bounced(i)), minutesAgo(i + 1)]),
  );
  writeRows(
    "insert into subscribers (email, email_hash, unsubscribe_token, created_at, status) values (?, ?, ?, ?, 'pending')",
    fiftyFive((i) => [
      bounced(i),
      key(bounced(i)),
      `bounced-token-${i}`.padEnd(43, "x"),
      minutesAgo(i + 1),
    ]),
  );
  try {
    const page = await ownerPage(visitor, own, "/admin/subscribers");
    const suppressed = page.getByRole("region", { name: "Suppressed addresses" });
    const rows = suppressed
      .getByRole("table", { name: "Suppressed addresses, newest first" })
      .locator("tbody tr");
    const pager = suppressed.getByRole("navigation", { name: "Pages of suppressed addresses" });
    const previous = pager.getByRole("button", { name: "Previous page" });
    const next = pager.getByRole("button", { name: "Next page" });
    await expect(rows).toHaveCount(50);
    await expect(rows.first().getByRole("rowheader")).toHaveText(bounced(0));
    await expect(pager.getByRole("status")).toHaveText("Page 1");
    await expect(previous).toHaveAttribute("aria-disabled", "true");
    expect(await seriousViolations(page)).toEqual([]);

    // By keyboard, from the last row's Lift: Previous (which leads nowhere yet), then Next.
    await suppressed
      .getByRole("button", { name: `Lift the suppression of ${bounced(49)}` })
      .focus();
    await page.keyboard.press("Tab");
    await expect(previous).toBeFocused();
    await page.keyboard.press("Tab");
    await expect(next).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(pager.getByRole("status")).toHaveText("Page 2");
    await expect(rows).toHaveCount(5);
    await expect(rows.first().getByRole("rowheader")).toHaveText(bounced(50));
    // The last page: Next keeps the focus and says it leads nowhere; pressed, it stays.
    await expect(next).toBeFocused();
    await expect(next).toHaveAttribute("aria-disabled", "true");
    await page.keyboard.press("Enter");
    await expect(pager.getByRole("status")).toHaveText("Page 2");
    await expect(rows).toHaveCount(5);
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press("Shift+Tab");
    await expect(previous).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(pager.getByRole("status")).toHaveText("Page 1");
    await expect(rows).toHaveCount(50);
    await expect(previous).toBeFocused();

    // One address, typed whole in another letter case: it alone, and lifted by keyboard.
    await suppressed
      .getByRole("search", { name: "Search suppressed addresses" })
      .getByLabel("Find an address")
      .fill("Bounced-53@Example.ORG");
    await expect(rows).toHaveCount(1);
    await expect(pager).toHaveCount(0);
    await rows
      .getByRole("button", { name: `Lift the suppression of ${bounced(53)}` })
      .press("Enter");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await expect(page.getByText(`Mail may go to ${bounced(53)} again`)).toBeVisible();
    await expect(suppressed.getByText("Bounced-53@Example.ORG is not suppressed.")).toBeFocused();
    expect(ownerCli(own, "suppressions", "list")).not.toContain(bounced(53));
  } finally {
    writeRows("delete from suppressions where domain = ?", [["example.org"]]);
    writeRows("delete from subscribers where email like ?", [["bounced-%"]]);
  }
});

test("newsletter: warnings, preview, send and progress, the screen axe clean; an edition scheduled in the browser's zone shows its time and is cancelled", async ({
  visitor,
}) => {
  // Two editions, two axe scans and a sending: near the minute on a loaded 2-core machine.
  test.slow();
  // An owner in Kolkata: the console's times are this browser's, the zone named.
  const page = await ownerPage(visitor, own, "/admin/newsletter", { timezoneId: "Asia/Kolkata" });
  const edition = (subject: string) =>
    page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: subject }) });

  // The edition whose link and image lead nowhere is flagged; the sound one is not.
  const lost = edition("Lost links in December");
  const warnings = lost.getByRole("region", { name: "Warnings about 2026-12-lost-links" });
  await expect(warnings).toContainText("2 warnings to read before sending");
  await expect(warnings).toContainText(
    "The link /science/no-such-post leads to /science/no-such-post, which is not on the site.",
  );
  await expect(warnings).toContainText(
    "The image /og/no-such-chart.png leads to /og/no-such-chart.png, which is not on the site.",
  );
  await expect(page.getByText("Loading…")).toHaveCount(0);
  expect(await seriousViolations(page)).toEqual([]);
  await lost.getByRole("button", { name: "Send", exact: true }).click();
  const asked = page.getByRole("alertdialog", { name: 'Send "Lost links in December"?' });
  await expect(asked).toContainText("2 warnings (listed above).");
  await asked.getByRole("button", { name: "Cancel" }).click();
  await expect(asked).toHaveCount(0);
  // Closing gives the focus back to the button that opened the dialog, a task later.
  await expect(lost.getByRole("button", { name: "Send", exact: true })).toBeFocused();

  // What the browser takes and the server refuses (a time past, an address without a
  // domain's dot) marks its field, in words rather than the API's "body.to:", and takes the focus.
  const localOf = (at: Date) => new Date(at.getTime() - at.getTimezoneOffset() * 60_000);
  const sendAt = lost.getByLabel("Send at");
  // The field reads a time in the browser's zone, and says which.
  const zone = "In this browser's zone: India Standard Time, GMT+5:30";
  await expect(sendAt).toHaveAccessibleDescription(zone);
  await sendAt.fill(
    localOf(new Date(Date.now() - 86_400_000))
      .toISOString()
      .slice(0, 16),
  );
  await lost.getByRole("button", { name: "Schedule", exact: true }).click();
  await expect(sendAt).toBeFocused();
  await expect(sendAt).toHaveAttribute("aria-invalid", "true");
  await expect(sendAt).toHaveAccessibleDescription(
    `The time has passed: choose a later one. ${zone}`,
  );
  const testAddress = lost.getByLabel("Test address");
  await testAddress.fill("owner@example");
  await lost.getByRole("button", { name: "Send test" }).click();
  await expect(testAddress).toBeFocused();
  await expect(testAddress).toHaveAttribute("aria-invalid", "true");
  await expect(testAddress).toHaveAccessibleDescription("Enter a valid email address.");
  await expect(lost).not.toContainText("body.");
  expect(await seriousViolations(page)).toEqual([]);
  await testAddress.fill("");
  await expect(testAddress).not.toHaveAttribute("aria-invalid");

  // Scheduled a month ahead, as the browser's datetime-local field takes it (its
  // own zone), then cancelled; checked before the preview puts a frame in the page.
  const month = new Date(Date.now() + 30 * 86_400_000);
  const local = localOf(month);
  // By keyboard: each button, disabled while it runs, keeps the focus (or what takes its place).
  await lost.getByLabel("Send at").fill(`${local.toISOString().slice(0, 11)}07:00`);
  await lost.getByRole("button", { name: "Schedule", exact: true }).press("Enter");
  await expect(lost.getByText("Scheduled for")).toContainText("07:00 GMT+5:30");
  await expect(lost.getByRole("button", { name: "Change time" })).toBeFocused();
  expect(await seriousViolations(page)).toEqual([]);
  await lost.getByRole("button", { name: "Cancel schedule" }).press("Enter");
  await page
    .getByRole("alertdialog", { name: 'Cancel the sending of "Lost links in December"?' })
    .getByRole("button", { name: "Cancel schedule" })
    .press("Enter");
  await expect(lost.getByText("Scheduled for")).toHaveCount(0);
  await expect(lost.getByRole("button", { name: "Schedule", exact: true })).toBeFocused();
  await lost.getByLabel("Test address").fill("owner@example.com");
  await lost.getByRole("button", { name: "Send test" }).press("Enter");
  // This site has no SMTP_URL: the copy is a file, and the owner is told where to look.
  await expect(
    page.getByText(
      "Test copy to owner@example.com written to the outbox folder, not mailed (SMTP_URL is not set): open it in a mail program",
    ),
  ).toBeVisible();
  await expect(lost.getByRole("button", { name: "Send test" })).toBeFocused();

  const fuel = edition("Fuel cells in November");
  await expect(fuel).toBeVisible();
  await expect(fuel.getByRole("region", { name: /^Warnings about/ })).toHaveCount(0);
  await fuel.getByRole("button", { name: "Preview" }).click();
  const preview = page.frameLocator('iframe[title="Preview of Fuel cells in November"]');
  await expect(preview.locator("strong", { hasText: "fuel cell" })).toBeVisible();
  await fuel.getByRole("button", { name: "Send", exact: true }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Send now" }).click();
  await expect(page.getByText(/Queued for [1-9]\d* subscribers?/)).toBeVisible();
  await expect(page.getByText(/[1-9]\d* sent, 0 waiting, 0 failed/)).toBeVisible({
    timeout: 30_000,
  });
  // Its end is said once, where the figures under the bar are not read out.
  await expect(
    page.getByText(/^"Fuel cells in November" has gone out: [1-9]\d* sent$/),
  ).toBeVisible();
});

test("a Send after one whose line failed says how many that one queued", async ({ visitor }) => {
  const page = await ownerPage(visitor, own, "/admin/newsletter");
  const lost = page
    .getByRole("listitem")
    .filter({ has: page.getByRole("heading", { name: "Lost links in December" }) });
  const send = async () => {
    await lost.getByRole("button", { name: "Send", exact: true }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Send now" }).click();
  };
  // The database refuses the send's line of the audit trail: its copies are queued, its line is not.
  const db = new DatabaseSync(path.join(own.dataDir, "engage.sqlite"));
  db.exec("pragma busy_timeout = 5000");
  db.exec(
    "create trigger refuse_send before insert on owner_audit when new.action = 'newsletter send' begin select raise(abort, 'refused'); end",
  );
  try {
    await send();
    await expect(
      page.getByText("Part of it may be done already; doing it again finishes it.", {
        exact: false,
      }),
    ).toBeVisible();
  } finally {
    db.exec("drop trigger refuse_send");
    db.close();
  }
  await send();
  await expect(
    page.getByText(/^Queued for 0 subscribers, after [1-9]\d* queued since its last send$/),
  ).toBeVisible();
  await page.close();
});

test("charts render from the seeded history, the Overview is axe clean, and docs/console.md's screenshot is taken", async ({
  visitor,
}, testInfo) => {
  const page = await ownerPage(visitor, own, "/admin", {
    viewport: { width: 1280, height: 900 },
  });
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
  const activity = page.getByRole("region", { name: "Comments and reactions per day" });
  await expect(activity.locator(".recharts-line-curve")).toHaveCount(2);
  await expect(activity.getByRole("figure")).toContainText(
    /Last 90 days: [1-9]\d* comments and [1-9]\d* reactions/,
  );
  const subscribers = page.getByRole("region", { name: "Subscribers over time" });
  await expect(subscribers.locator(".recharts-area-area")).toHaveCount(2);
  await expect(subscribers.getByRole("figure")).toContainText(
    /Today: [1-9]\d* confirmed, \d+ pending/,
  );
  const engaged = page.getByRole("region", { name: "Most engaged stories and posts" });
  await expect(engaged.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(engaged.getByRole("figure")).toContainText("Garuda: The Son Who Fetched the Amrita");
  // The edition seeded as sent in October (and, in a whole run, November's sent above).
  const editions = page.getByRole("region", { name: "Editions sent and failed" });
  await expect(editions.locator(".recharts-bar-rectangle").first()).toBeVisible();
  await expect(editions.getByRole("figure")).toContainText(
    "2026-10-heat-exchangers: 3 sent, 0 failed, 0 waiting",
  );
  await expect(page.getByText("Loading…")).toHaveCount(0);
  expect(await seriousViolations(page)).toEqual([]);

  const shot = testInfo.outputPath("console.png");
  await page.screenshot({ path: shot });
  // docs/console.md shows this picture; regenerate it with UPDATE_SCREENSHOTS=1.
  if (process.env.UPDATE_SCREENSHOTS === "1")
    copyFileSync(shot, path.join(projectRoot, "docs/console.png"));
});

test("a passkey registered in the console signs in from Chromium's virtual authenticator", async ({
  page,
}) => {
  await withAuthenticator(page);
  await signInWith(page, cliLink());
  await page.getByRole("link", { name: "Sign-in and passkeys" }).click();
  // Sessions are named by browser and device, not by an id.
  const sessions = page.getByRole("region", { name: "Sessions" });
  await expect(sessions).toContainText(/Chrome on \w+ \(this one\)/);
  await expect(sessions).not.toContainText(/[0-9a-f]{18}/);
  const name = page.getByLabel("Passkey name");
  await expect(name).not.toHaveAttribute("placeholder");
  await expect(name).toHaveAccessibleDescription(/such as the device/);
  await name.fill("Test laptop");
  await page.getByRole("button", { name: "Add a passkey" }).click();
  await expect(page.getByText("Passkey added")).toBeVisible();
  await expect(page.getByRole("button", { name: "Remove the passkey Test laptop" })).toBeVisible();
  // Disabled while it ran, the button takes the focus back.
  await expect(page.getByRole("button", { name: "Add a passkey" })).toBeFocused();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(`${site}/admin/sign-in`);
  await page.goto(`${site}/admin`);
  await expect(page).toHaveURL(`${site}/admin/sign-in`);
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
});

test("health shows the settings with secrets masked, and the Fediverse messages given up: the latest, and how many more", async ({
  visitor,
}) => {
  // A storm of failures an hour before the seeded one: more than the screen lists.
  const db = new DatabaseSync(path.join(own.dataDir, "engage.sqlite"));
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  const record = db.prepare(
    "insert into fediverse_given_up (kind, activity, why, given_up_at) values ('inbox', null, 'TypeError', ?)",
  );
  for (let i = 0; i < 60; i++) record.run(hourAgo);
  db.close();
  const page = await ownerPage(visitor, own, "/admin/health");
  await expect(page.getByText("SQLite, answering")).toBeVisible();
  const status = page.getByRole("region", { name: "Status" });
  await expect(status).toContainText(
    `61 messages given up in the last 30 days A delivery to a server (${site}/fediverse/notes/1#delete-1), given up`,
    { useInnerText: true },
  );
  await expect(status.getByRole("listitem")).toHaveCount(50);
  await expect(status.getByRole("listitem").last()).toContainText("An activity received, given up");
  await expect(status).toContainText("and 11 more before these");
  expect(await seriousViolations(page)).toEqual([]);
  // Not set, so generated: the screen says which secret is in use, never the secret.
  await expect(page.getByRole("row", { name: /COOKIE_SECRET/ })).toContainText(
    /generated, kept in .*cookie-secret/,
  );
  await expect(page.getByRole("row", { name: /WEBHOOK_URL/ })).toContainText("(not set)");
  await expect(page.getByRole("row", { name: /SITE_URL/ })).toContainText(site);
});

/** The free times readers are offered now. */
const freeTimes = async () =>
  slotsResponseSchema.parse(await (await fetch(`${site}/api/bookings/slots`)).json()).starts;

/** A reader in Kolkata books the call at `start` as `name`, with `note`. */
async function bookCall(start: string, name: string, note = "") {
  const booked = await fetch(`${site}/api/bookings`, {
    method: "POST",
    headers: { origin: site, "content-type": "application/json" },
    body: JSON.stringify({
      start,
      name,
      email: `${name.split(" ")[0]?.toLowerCase()}@example.org`,
      service: "dfmea",
      note,
      zone: "Asia/Kolkata",
    }),
  });
  expect(booked.status).toBe(201);
}

test("bookings: a call with the reader's note, the availability saved or refused, a cancellation with a message; the screen is axe clean", async ({
  visitor,
}) => {
  const [start = ""] = await freeTimes();
  await bookCall(start, "Meera Iyer", "A second look at the detection ratings of our pump's seal.");
  const page = await ownerPage(visitor, own, "/admin/bookings");
  await expect(page.getByRole("heading", { name: "Bookings", level: 1 })).toBeVisible();
  // The keyboard's first stop skips the nav's links, as on the reading pages: the
  // next Tab reaches the screen's first control, once the calls have loaded.
  await expect(page.getByRole("button", { name: "Upcoming" })).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  await page.keyboard.press("Enter");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("main").locator(":focus")).toHaveText("Upcoming");
  const calls = page.getByRole("list", { name: "Upcoming calls, soonest first" });
  await expect(calls.getByRole("listitem")).toHaveCount(1);
  const card = calls.getByRole("listitem").getByRole("article", { name: "Call with Meera Iyer" });
  await expect(card).toContainText("A second look at the detection ratings of our pump's seal.");
  await expect(card).toContainText("DFMEA");
  expect(await seriousViolations(page)).toEqual([]);

  // After a save the screen reads the saved hours back: that answer is held
  // here until the owner has typed in the next field, which keeps the edit.
  const readBack = Promise.withResolvers<void>();
  await page.route(/\/api\/admin\/bookings(\?|$)/, async (route) => {
    if (route.request().method() === "GET") await readBack.promise;
    await route.continue();
  });
  await page.getByLabel("Saturday", { exact: true }).fill("09:00-12:00");
  await page.getByRole("button", { name: "Save availability" }).click();
  await expect(page.getByText("Availability saved")).toBeVisible();
  const sunday = page.getByLabel("Sunday", { exact: true });
  await sunday.fill("nine till five");
  const readAgain = page.waitForResponse(
    (response) => /\/api\/admin\/bookings(\?|$)/.test(response.url()) && response.ok(),
  );
  readBack.resolve();
  await readAgain;
  await expect(sunday).toHaveValue("nine till five");
  await expect(page.getByLabel("Saturday", { exact: true })).toHaveValue("09:00-12:00");
  await page.getByRole("button", { name: "Save availability" }).click();
  // Refused before it is sent: the day at fault is marked, says why, and has the focus.
  await expect(sunday).toBeFocused();
  await expect(sunday).toHaveAttribute("aria-invalid", "true");
  await expect(sunday).toHaveAccessibleDescription(/^Write hours as 10:00-17:00/);
  // So is a time the clock does not have, rather than the server's refusal under the form.
  await sunday.fill("17:00-25:00");
  await page.getByRole("button", { name: "Save availability" }).click();
  await expect(sunday).toBeFocused();
  await expect(sunday).toHaveAccessibleDescription(
    /^Write times as HH:MM, from 00:00 to 24:00, not "25:00"\./,
  );
  // Dates off and the room are marked as the days are, in the owner's words, not the API's.
  await sunday.fill("");
  const datesOff = page.getByLabel("Dates off");
  await datesOff.fill("2026-12-25\n25/12/2026");
  await page.getByRole("button", { name: "Save availability" }).click();
  await expect(datesOff).toBeFocused();
  await expect(datesOff).toHaveAttribute("aria-invalid", "true");
  await expect(datesOff).toHaveAccessibleDescription(
    /^Write dates as YYYY-MM-DD, not "25\/12\/2026"\. One a line/,
  );
  expect(await seriousViolations(page)).toEqual([]);
  await datesOff.fill("");
  await expect(datesOff).not.toHaveAttribute("aria-invalid");
  const room = page.getByLabel("Room address");
  await room.fill("http://meet.example.org/engineer");
  await page.getByRole("button", { name: "Save availability" }).click();
  await expect(room).toBeFocused();
  await expect(room).toHaveAccessibleDescription(
    /^The meeting address must start with https:\/\/\./,
  );
  await room.fill("");
  await sunday.fill("17:00-25:00");
  // The command line reads what was kept: Saturday's hours, and Sunday still off.
  const hours = ownerCli(own, "bookings", "hours");
  expect(hours).toContain("sat  09:00-12:00");
  expect(hours).toContain("sun  off");
  // Saved by keyboard, the button, disabled while it ran, takes the focus back.
  await sunday.fill("");
  const saved = page.waitForResponse((response) => response.request().method() === "PUT");
  await page.getByRole("button", { name: "Save availability" }).press("Enter");
  expect((await saved).ok()).toBe(true);
  await expect(page.getByRole("button", { name: "Save availability" })).toBeFocused();

  // While the call is under way it can be neither cancelled (it has begun) nor
  // deleted (it has not ended): the card says so rather than offer a button that
  // fails, and changes as the call begins and ends, without a reload.
  const during = await ownerPage(visitor, own, "/admin/bookings");
  await during.clock.install({ time: Date.parse(start) - 60_000 });
  await during.reload();
  const running = during.getByRole("article", { name: "Call with Meera Iyer" });
  await expect(running.getByRole("button", { name: /^Cancel the call/ })).toBeVisible();
  await during.clock.runFor(2 * 60_000);
  await expect(running).toContainText("Under way: it can be deleted once it has ended.");
  await expect(running.getByRole("button")).toHaveCount(0);
  await during.clock.runFor(30 * 60_000);
  await expect(running.getByRole("button", { name: /^Delete the booking/ })).toBeVisible();
  await during.close();

  // A dialog with a form, not an alert: its field takes the focus; Escape gives it back.
  const cancel = card.getByRole("button", { name: "Cancel the call with Meera Iyer" });
  await cancel.click();
  const dialog = page.getByRole("dialog", { name: "Cancel the call with Meera Iyer?" });
  const message = dialog.getByLabel("Message to Meera Iyer");
  await expect(message).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(cancel).toBeFocused();
  await cancel.click();
  // A message the server refuses keeps the dialog open, the field marked and focused.
  await message.fill("I am travelling \u202Ethat week");
  // A click beside the box keeps it open, and what was typed.
  await page.mouse.click(5, 5);
  await expect(message).toHaveValue("I am travelling \u202Ethat week");
  await dialog.getByRole("button", { name: "Cancel the call" }).click();
  await expect(message).toBeFocused();
  await expect(message).toHaveAttribute("aria-invalid", "true");
  await expect(message).toHaveAccessibleDescription(
    "The message cannot contain control or text-direction characters.",
  );
  await expect(dialog).not.toContainText("body.");
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
  await message.fill("I am travelling that week; sorry.");
  await expect(message).not.toHaveAttribute("aria-invalid");
  await dialog.getByRole("button", { name: "Cancel the call" }).click();
  await expect(card).toContainText("Cancelled by you");
  await expect(card).toContainText("I am travelling that week; sorry.");
  // Deleted by keyboard, the last call gives the focus to the line that says none is left.
  await card.getByRole("button", { name: "Delete the booking of Meera Iyer" }).press("Enter");
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).press("Enter");
  await expect(page.getByText("No calls ahead.")).toBeFocused();
});

test("bookings: the owner moves a call by keyboard in a dialog of the free times, day by day in the owner's zone, with a reason; the list shows the new time", async ({
  visitor,
}) => {
  const starts = await freeTimes();
  await bookCall(starts[2] ?? "", "Arjun Rao");
  const page = await ownerPage(visitor, own, "/admin/bookings");
  const { ownerZone, bookings } = bookingsResponseSchema.parse(
    await (await page.request.get(`${site}/api/admin/bookings`)).json(),
  );
  const id = bookings.find((call) => call.name === "Arjun Rao")?.id;
  const { starts: movable } = moveTimesResponseSchema.parse(
    await (await page.request.get(`${site}/api/admin/bookings/${id}/times`)).json(),
  );
  const days = Map.groupBy(movable, (start) => dateKey(Date.parse(start), ownerZone));
  const card = page.getByRole("article", { name: "Call with Arjun Rao" });
  const moveButton = card.getByRole("button", { name: "Move the call with Arjun Rao" });
  await moveButton.focus();
  await page.keyboard.press("Enter");
  // A dialog with a form, not an alert; its first field, the time chosen, takes the focus.
  const dialog = page.getByRole("dialog", { name: "Move the call with Arjun Rao" });
  // The times grouped by day, as the booking page lists them, in the owner's zone, named.
  const times = dialog.getByRole("group", { name: `New time, in ${zoneName(ownerZone)}` });
  await expect(times).toBeVisible();
  await expect(times.getByRole("radio", { checked: true })).toBeFocused();
  // Escape closes it, and the focus goes back to Move; nothing moved.
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(moveButton).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(times).toBeVisible();
  const dayGroups = times.getByRole("group");
  await expect(dayGroups).toHaveCount(Math.min(7, days.size));
  const [firstDay = [], eighthDay = []] = [[...days.values()][0], [...days.values()][7]];
  await expect(dayGroups.first()).toHaveAccessibleName(
    dayLabel(Date.parse(firstDay[0] ?? ""), ownerZone),
  );
  // The first time is chosen; the keyboard reaches the others with the arrows.
  await expect(times.getByRole("radio", { checked: true })).toHaveAccessibleName(
    timeLabel(Date.parse(firstDay[0] ?? ""), ownerZone),
  );
  // The focus stays in the dialog however far the keyboard goes, either way.
  for (const key of ["Tab", "Shift+Tab"]) {
    for (let step = 0; step < 6; step += 1) {
      await page.keyboard.press(key);
      expect(await dialog.evaluate((box) => box.contains(document.activeElement))).toBe(true);
    }
  }
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
  // A day further on: "Show more days" adds a week, and its first time takes the focus.
  expect(eighthDay.length).toBeGreaterThan(0);
  await dialog.getByRole("button", { name: "Show more days" }).press("Enter");
  const target = eighthDay[0] ?? "";
  const chosen = times
    .getByRole("group", { name: dayLabel(Date.parse(target), ownerZone) })
    .getByRole("radio", { name: timeLabel(Date.parse(target), ownerZone) });
  await expect(chosen).toBeFocused();
  await page.keyboard.press("Space");
  await expect(chosen).toBeChecked();
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
  // Enter in the reason submits the form, as its button, "Move the call", does.
  await expect(dialog.getByRole("button", { name: "Move the call" })).toHaveAttribute(
    "type",
    "submit",
  );
  await dialog.getByLabel(/^Why/).fill("A workshop in Pune runs over");
  await dialog.getByLabel(/^Why/).press("Enter");
  await expect(dialog).toBeHidden();
  await expect(page.getByText("Moved the call with Arjun Rao")).toBeVisible();
  await expect(card).toContainText("moved by you once");
  const shown = JSON.parse(ownerCli(own, "bookings", "list", "--json")) as {
    name: string;
    start: string;
  }[];
  expect(shown.find((call) => call.name === "Arjun Rao")?.start).toBe(target);
  await expect(card.getByRole("heading")).toHaveText(
    `${momentLabel(Date.parse(target), ownerZone)} · Arjun Rao`,
  );
  // Without JavaScript the screen names the command line, which moves a call too.
  const plain = await ownerPage(visitor, own, "/admin/bookings", { javaScriptEnabled: false });
  await expect(plain.getByRole("main")).toContainText(
    "The console needs JavaScript. The command line does everything it does: npm run admin -- --help",
  );
  await plain.close();
  expect(ownerCli(own, "--help")).toContain("bookings move");
});

test("a save the server fails says that nothing was changed, and nothing was", async ({
  visitor,
}) => {
  const page = await ownerPage(visitor, own, "/admin/bookings");
  const save = page.getByRole("button", { name: "Save availability" });
  await expect(save).toBeEnabled();
  const before = ownerCli(own, "bookings", "hours");
  // The database refuses the save's line of the audit trail, so the save fails whole.
  const db = new DatabaseSync(path.join(own.dataDir, "engage.sqlite"));
  db.exec("pragma busy_timeout = 5000");
  db.exec(
    "create trigger refuse_availability before insert on owner_audit when new.action = 'bookings availability' begin select raise(abort, 'refused'); end",
  );
  try {
    await page.getByLabel("Monday", { exact: true }).fill("07:00-08:00");
    await save.click();
    await expect(page.getByRole("alert")).toHaveText(
      "Something went wrong on our side. Nothing was changed; try again.",
    );
    expect(ownerCli(own, "bookings", "hours")).toBe(before);
  } finally {
    db.exec("drop trigger refuse_availability");
    db.close();
  }
  await save.click();
  await expect(page.getByText("Availability saved")).toBeVisible();
  expect(ownerCli(own, "bookings", "hours")).toContain("mon  07:00-08:00");
  await page.close();
});

/**
 * Holds the page's zero-delay timers, from its next load on, as a busy
 * browser runs them late: `hold()` starts holding them, `release()` runs the
 * held ones and lets the next run at once; it resolves a task after, once
 * what they started (a render, its layout effects) has run.
 */
async function holdZeroDelayTimers(page: Page) {
  await page.addInitScript(() => {
    const { setTimeout: original, clearTimeout: clear } = window;
    const held = new Map<number, () => void>();
    let holding = false;
    let next = -1;
    window.setTimeout = ((handler: TimerHandler, delay?: number, ...rest: unknown[]) => {
      if (!holding || delay || typeof handler !== "function") {
        return original(handler, delay, ...rest);
      }
      held.set(next, () => handler(...rest));
      return next--;
    }) as typeof window.setTimeout;
    window.clearTimeout = ((id?: number) => {
      if (id === undefined || !held.delete(id)) clear(id);
    }) as typeof window.clearTimeout;
    Object.assign(window, {
      heldTimers: {
        hold: () => {
          holding = true;
        },
        release() {
          holding = false;
          for (const [id, run] of held) {
            held.delete(id);
            run();
          }
          return new Promise((resolve) => original(resolve));
        },
      },
    });
  });
  type Held = { heldTimers: { hold(): void; release(): Promise<void> } };
  return {
    hold: () => page.evaluate(() => (window as unknown as Held).heldTimers.hold()),
    release: () => page.evaluate(() => (window as unknown as Held).heldTimers.release()),
  };
}

test("a save's button takes the focus back though the answer to the save before it reaches the screen while it runs", async ({
  visitor,
}) => {
  const page = await ownerPage(visitor, own, "/admin/bookings");
  const timers = await holdZeroDelayTimers(page);
  await page.reload();
  const save = page.getByRole("button", { name: "Save availability" });
  await expect(save).toBeEnabled();
  // The first save's read of the screen waits until the page's timers are held;
  // the second save waits at the server until they have run.
  const read = Promise.withResolvers<void>();
  await page.route(/\/api\/admin\/bookings\?/, async (route) => {
    await read.promise;
    await route.continue();
  });
  const secondSave = Promise.withResolvers<void>();
  let saves = 0;
  await page.route(/\/api\/admin\/bookings\/availability$/, async (route) => {
    saves += 1;
    if (saves === 2) await secondSave.promise;
    await route.continue();
  });
  await page.getByLabel("Saturday", { exact: true }).fill("08:00-12:00");
  await save.press("Enter");
  await expect(page.getByText("Availability saved")).toBeVisible();
  await timers.hold();
  read.resolve();
  // The first save has run; its answer has not reached the screen when the owner saves again.
  await expect(save).toBeEnabled();
  await page.getByLabel("Sunday", { exact: true }).fill("08:00-12:00");
  await save.press("Enter");
  await expect(page.getByRole("button", { name: "Saving…" })).toBeDisabled();
  await timers.release();
  secondSave.resolve();
  await expect(page.getByText("Availability saved")).toHaveCount(2);
  await expect(save).toBeFocused();
  await page.close();
});

test("a write that runs long holds no other focus: the comment a reader deletes meanwhile gives it to the next one", async ({
  visitor,
}) => {
  const page = await ownerPage(visitor, own, "/admin/comments");
  await expect(page.getByText("Live: new comments appear here")).toBeVisible();
  const reader = await visitor();
  const word = uniqueWord();
  const post = async (userName: string) => {
    const posted = await reader.request.post(`${site}/api/items/science/wifi/comments`, {
      headers: { origin: site },
      data: { content: `${userName} waits for a write ${word}`, userName },
    });
    expect(posted.status()).toBe(201);
    return commentResponseSchema.parse(await posted.json()).comment.id;
  };
  await post("Ada");
  const bo = await post("Bo");
  const cy = await post("Cy");
  await page.getByLabel("Search text or name").fill(word);
  await expect(page.getByRole("article")).toHaveCount(3);
  const card = (name: string) => page.getByRole("article", { name: `Comment by ${name}` });
  const reply = (name: string) => card(name).getByRole("button", { name: "Reply", exact: true });

  // The deletion of Cy's comment waits at the server.
  const reached = Promise.withResolvers<void>();
  const held = Promise.withResolvers<void>();
  await page.route(new RegExp(`/api/admin/comments/${cy}$`), async (route) => {
    reached.resolve();
    await held.promise;
    await route.continue();
  });
  await card("Cy").getByRole("button", { name: "Delete the comment of Cy" }).press("Enter");
  await reached.promise;
  // Meanwhile the owner moves on to Bo's comment, and Bo deletes it.
  await reply("Bo").focus();
  const deleted = await reader.request.delete(`${site}/api/comments/${bo}`, {
    headers: { origin: site },
  });
  expect(deleted.status()).toBe(204);
  await expect(card("Bo")).toHaveCount(0);
  await expect(reply("Ada")).toBeFocused();
  held.resolve();
  await expect(page.getByText("Comment deleted")).toBeVisible();
  await expect(card("Cy")).toHaveCount(0);
  await expect(reply("Ada")).toBeFocused();
  await page.close();
});

test("questions: what readers asked, answered or not, the unanswered grouped, filtered and deleted; the screen is axe clean", async ({
  visitor,
}) => {
  const asked = ["Why does a pressure cooker whistle?", "What is the capital of Australia?"];
  for (const question of asked) {
    const answer = await fetch(`${site}/api/assistant`, {
      method: "POST",
      headers: { origin: site, "content-type": "application/json" },
      body: JSON.stringify({ question }),
    });
    expect(answer.status, question).toBe(200);
    // The reader found the first answer helpful.
    if (question !== asked[0]) continue;
    const { feedback } = assistantResponseSchema.parse(await answer.json());
    const rated = await fetch(`${site}/api/assistant/feedback`, {
      method: "POST",
      headers: { origin: site, "content-type": "application/json" },
      body: JSON.stringify({ ...feedback, helpful: true }),
    });
    expect(rated.status).toBe(200);
  }
  const page = await ownerPage(visitor, own, "/admin/questions");
  await expect(page.getByRole("heading", { name: "Questions", level: 1 })).toBeVisible();
  await expect(
    page.getByText(
      "2 questions in the last 90 days (they are deleted after that), 1 answered from the site; readers found 1 answer helpful and 0 not.",
    ),
  ).toBeVisible();
  const list = page.getByRole("list", { name: "Questions, newest first" });
  const answered = list.getByRole("listitem").filter({ hasText: asked[0] ?? "" });
  await expect(answered).toContainText("answered from /science/pressure-cooker");
  const unanswered = list.getByRole("listitem").filter({ hasText: asked[1] ?? "" });
  await expect(unanswered).toContainText("not found on the site");
  await expect(page.getByRole("list", { name: "Unanswered questions, grouped" })).toContainText(
    asked[1] ?? "",
  );
  expect(await seriousViolations(page)).toEqual([]);

  // The filter's legend names its group for a screen reader and is not shown.
  const show = page.getByRole("group", { name: "Show" });
  await expect(show.getByRole("radio")).toHaveCount(3);
  const legend = await show.locator("legend").boundingBox();
  expect(legend?.width).toBeLessThanOrEqual(1);
  expect(legend?.height).toBeLessThanOrEqual(1);

  await show.getByRole("radio", { name: "Not answered" }).check();
  await expect(answered).toHaveCount(0);
  await expect(unanswered).toHaveCount(1);
  const remove = async () => {
    await unanswered.getByRole("button", { name: `Delete the question “${asked[1]}”` }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  };
  // A deletion the server refuses: the owner reads why, and the list is not read again.
  const refused = await refuseWrite(page, {
    method: "DELETE",
    url: /\/api\/admin\/questions\/\d+$/,
    list: /\/api\/admin\/questions(\?|$)/,
    message: "The database is busy: try again in a moment",
  });
  await remove();
  await expect(page.getByText("The database is busy: try again in a moment")).toBeVisible();
  expect(await refused.reads()).toBe(0);
  await expect(unanswered).toHaveCount(1);
  await refused.accept();
  await remove();
  await expect(page.getByText("Question deleted")).toBeVisible();
  await expect(unanswered).toHaveCount(0);
  // The focus goes from the last question's Delete to the line that says none is left
  // unanswered (the answered one is not shown, not gone).
  await expect(
    page.getByText("Every question in the last 90 days was answered from the site."),
  ).toBeFocused();
});

test("followers: a follower and a waiting webmention, the screen axe clean; a Fediverse reply shows its writer's picture from this site and links to their post; erasing the account takes its follow and its reply and blocks it", async ({
  visitor,
}) => {
  const page = await ownerPage(visitor, own, "/admin/followers");
  await expect(page.getByRole("heading", { name: "Followers", level: 1 })).toBeVisible();
  await expect(page.getByRole("article", { name: "@ines@fosstodon.org" })).toContainText(
    "Inês Duarte",
  );
  await expect(page.getByRole("article", { name: /^Webmention \d+$/ })).toContainText(
    "A clear account of why the lid must lock.",
  );
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole("button", { name: "Block server fosstodon.org" }).click();
  expect(await seriousViolations(page, '[role="alertdialog"]')).toEqual([]);
  await page.getByRole("button", { name: "Cancel" }).click();

  // A reader's browser asks this site for the picture, and nothing of the writer's server.
  for (const javaScriptEnabled of [true, false]) {
    const reader = await visitor({ javaScriptEnabled });
    const asked: string[] = [];
    reader.on("request", (request) => asked.push(request.url()));
    const pictureAnswers: string[] = [];
    reader.on("requestfinished", async (request) => {
      if (!request.url().includes("/fediverse/avatars/")) return;
      pictureAnswers.push(`${(await request.response())?.status()}`);
    });
    reader.on("requestfailed", (request) => {
      if (request.url().includes("/fediverse/avatars/")) pictureAnswers.push("failed");
    });
    await reader.goto(`${site}/science/pressure-cooker`);
    // The comment as shown: the server's copy, or with JavaScript the live list's, which
    // takes the copy's place once it has arrived (the copy then leaves the page).
    if (javaScriptEnabled) await liveDiscussion(reader);
    const comment = reader.getByRole("listitem").filter({ hasText: "sets the boiling point" });
    await expect(comment.getByText("@ines@fosstodon.org")).toBeVisible();
    const picture = comment.locator("img.comment-avatar");
    await expect(picture).toHaveAttribute("src", /^\/fediverse\/avatars\/\d+$/);
    // Loaded lazily: in view, it loads.
    await expect
      .poll(
        async () => {
          await picture.scrollIntoViewIfNeeded();
          return picture.evaluate((image: HTMLImageElement) => image.naturalWidth);
        },
        { message: "the picture loads" },
      )
      .toBe(1)
      .catch((error: Error) => {
        // Which answers the picture had, so a failure says whether it was asked for at all.
        error.message += `\nJavaScript ${javaScriptEnabled ? "on" : "off"}; the picture's answers: ${pictureAnswers.join(", ") || "none"}`;
        throw error;
      });
    const original = comment.getByRole("link", { name: "Original post" });
    await expect(original).toHaveAttribute("href", "https://fosstodon.org/@ines/1");
    await expect(original).toHaveAttribute("rel", "nofollow ugc noopener");
    expect(asked.filter((url) => !url.startsWith(site))).toEqual([]);
    await reader.close();
  }

  // Erased, on the same screen: her follow and her reply go, and she is blocked.
  // By keyboard, the last follower: the line that says nobody follows takes the focus.
  await page.getByRole("button", { name: "Erase @ines@fosstodon.org" }).press("Enter");
  const dialog = page.getByRole("alertdialog", { name: "Erase @ines@fosstodon.org?" });
  await expect(dialog).toBeVisible();
  // The whole page with a dialog open, the rest of it hidden (the other dialogs alone).
  expect(await seriousViolations(page)).toEqual([]);
  await page.keyboard.press("Tab");
  await expect(dialog.getByRole("button", { name: "Erase and block" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("article", { name: "@ines@fosstodon.org" })).toHaveCount(0);
  await expect(page.getByText(/^Nobody follows the site on the Fediverse yet/)).toBeFocused();
  const blocked = page.getByRole("list", { name: "Blocked accounts and servers" });
  await expect(blocked).toContainText("https://fosstodon.org/users/ines");
  expect(await seriousViolations(page)).toEqual([]);
  // Her reply is gone from the post's page, for every reader.
  const reader = await visitor({ javaScriptEnabled: false });
  await reader.goto(`${site}/science/pressure-cooker`);
  await expect(reader.getByText("sets the boiling point")).toHaveCount(0);
  await reader.close();

  // A block the server cannot read marks its field, in its words, and takes the focus.
  const blocking = page.getByRole("region", { name: "Blocked" });
  const blockField = blocking.getByLabel("Account or server to block");
  await blockField.fill("not a server!");
  await blocking.getByRole("button", { name: "Block", exact: true }).click();
  await expect(blockField).toBeFocused();
  await expect(blockField).toHaveAttribute("aria-invalid", "true");
  // The refusal first, then the line that always says what to write.
  await expect(blockField).toHaveAccessibleDescription(
    /^Give an account's address \(https:\/\/…\) or a server's host name \(mastodon\.social\)\. An account's address, as/,
  );
  expect(await seriousViolations(page)).toEqual([]);
  await blockField.fill("");
  await expect(blockField).not.toHaveAttribute("aria-invalid");
  await blocking.getByRole("button", { name: "Block", exact: true }).click();
  await expect(blockField).toHaveAccessibleDescription(/^Name an account or a server\. An/);
  await expect(blocking).not.toContainText("body.");
  await blockField.fill("");

  // Unblocked by keyboard, the last block: the line that says none is left takes the focus.
  await blocked
    .getByRole("button", { name: "Unblock https://fosstodon.org/users/ines" })
    .press("Enter");
  await expect(page.getByText("Unblocked https://fosstodon.org/users/ines")).toBeVisible();
  await expect(page.getByText("Nothing is blocked.")).toBeFocused();
});

test("followers a page at a time: their number, Next and Previous by keyboard, the screen axe clean", async ({
  visitor,
}) => {
  // 55 accounts that followed a minute apart: more than a page of 50.
  const handle = (i: number) => `@f${String(i).padStart(2, "0")}@social.example`;
  const actor = (i: number) => `https://social.example/users/f${String(i).padStart(2, "0")}`;
  writeRows(
    "insert into fediverse_followers (actor_id, handle, name, inbox, follow_id, created_at) values (?, ?, null, ?, ?, ?)",
    fiftyFive((i) => [
      actor(i),
      handle(i),
      `${actor(i)}/inbox`,
      `${actor(i)}#1`,
      minutesAgo(i + 1),
    ]),
  );
  try {
    const page = await ownerPage(visitor, own, "/admin/followers");
    const followers = page.getByRole("list", { name: "Followers, newest first" });
    await expect(page.getByRole("heading", { name: "Following the site (55)" })).toBeVisible();
    await expect(followers.getByRole("article")).toHaveCount(50);
    await expect(followers.getByRole("article").first()).toHaveAccessibleName(handle(0));
    const pager = page.getByRole("navigation", { name: "Pages of followers" });
    const next = pager.getByRole("button", { name: "Next page" });
    expect(await seriousViolations(page)).toEqual([]);
    // By keyboard from the last follower's Erase, to Previous (nowhere yet) and Next.
    await page.getByRole("button", { name: `Erase ${handle(49)}` }).focus();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await expect(next).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(pager.getByRole("status")).toHaveText("Page 2");
    await expect(followers.getByRole("article")).toHaveCount(5);
    await expect(followers.getByRole("article").first()).toHaveAccessibleName(handle(50));
    await expect(next).toHaveAttribute("aria-disabled", "true");
    await expect(next).toBeFocused();
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Enter");
    await expect(pager.getByRole("status")).toHaveText("Page 1");
    await expect(followers.getByRole("article")).toHaveCount(50);
  } finally {
    writeRows("delete from fediverse_followers where actor_id like ?", [
      ["https://social.example/users/f%"],
    ]);
  }
});

test("sign-in and passkeys: each other session ended by keyboard, the next one's End takes the focus, then the line that says none is left; the other browser is signed out", async ({
  visitor,
  request,
}) => {
  // Two sessions of its own to end, whichever tests ran before: another
  // browser's, and one signed in through the API.
  const other = await visitor();
  await signInWith(other, cliLink());
  const token = new URL(cliLink()).hash.replace(/^#token=/, "");
  const signIn = { data: { token }, headers: { origin: site } };
  expect((await request.post(`${site}/api/admin/sign-in`, signIn)).status()).toBe(200);
  // This one is the session the other tests share: it stays.
  const page = await ownerPage(visitor, own, "/admin/security");
  const sessions = page.getByRole("region", { name: "Sessions" });
  const ends = sessions.getByRole("button", { name: /^End the session of / });
  await expect(ends.nth(1)).toBeVisible();
  let left = await ends.count();
  await ends.first().press("Enter");
  for (; left > 1; left--) {
    await expect(ends).toHaveCount(left - 1);
    await expect(ends.first()).toBeFocused();
    await page.keyboard.press("Enter");
  }
  await expect(ends).toHaveCount(0);
  await expect(sessions.getByText("No other session is signed in.")).toBeFocused();
  await expect(sessions).toContainText(/Chrome on \w+ \(this one\)/);
  await other.goto(`${site}/admin`);
  await expect(other).toHaveURL(`${site}/admin/sign-in`);
  expect((await request.get(`${site}/api/admin/overview`)).status()).toBe(401);
});
