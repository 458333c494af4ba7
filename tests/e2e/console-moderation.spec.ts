import type { Locator, Page } from "@playwright/test";
import { commentsResponseSchema } from "../../contract/api.ts";
import { seriousViolations } from "./support/axe.ts";
import { uniqueWord } from "./support/comments.ts";
import { expect, type OpenVisitor, test } from "./support/fixtures.ts";
import { openDiscussion } from "./support/items.ts";
import { type OwnSite, ownerCli, ownerPage, postTo, startOwnSite } from "./support/own-site.ts";
import { refuseWrite } from "./support/refused-write.ts";

/*
 * Moderating in the console as an owner does on a busy morning, in Chromium
 * (docs/console.md): the Overview calls for the held
 * comments and the nav counts them; each held comment is listed once, with
 * names that tell two comments of one writer apart; filters by state; bulk
 * approve and reject; Ban, red and confirmed, then Unban from the ban list;
 * the audit screen; all of it axe clean and within a phone's width.
 */

test.describe.configure({ mode: "serial" });

let own: OwnSite;
test.beforeAll(async () => {
  test.setTimeout(120_000);
  own = await startOwnSite("console-moderation", { host: "localhost", env: { MODERATION: "all" } });
});
test.afterAll(async () => {
  await own?.stop();
});

/** The owner's console at `path`, in a browser of its own, signed in once per worker (`ownerPage`). */
const openConsole = (visitor: OpenVisitor, path = "/admin", width = 1280) =>
  ownerPage(visitor, own, path, { viewport: { width, height: 860 } });

/** Whether the page is wider than its window (a sideways scroll on a phone). */
const overflowsWindow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

test("held comments: the Overview's call, the badge, each listed once, bulk approve (live on a reader's open page) and reject; a new held comment raises the badge live", async ({
  visitor,
}) => {
  const asha = await visitor();
  const first = await postTo(asha.request, own, "soap", {
    content: "Why does soap lather less in hard water?",
    userName: "Asha",
  });
  const second = await postTo(asha.request, own, "wifi", {
    content: "Does Wi-Fi slow down in the rain?",
    userName: "Asha",
  });
  const spammer = await visitor();
  const junk = await postTo(spammer.request, own, "soap", {
    content: "Great post, see my page of offers",
    userName: "Offers",
  });

  const page = await openConsole(visitor);
  const nav = page.getByRole("navigation", { name: "Console" });
  await expect(nav.getByRole("link", { name: /^Comments\s+3\s+awaiting approval$/ })).toBeVisible();
  const call = page.getByRole("link", { name: "3 comments awaiting approval" });
  await call.click();
  await expect(page).toHaveURL(/\/admin\/comments\?status=pending$/);
  await expect(page.getByRole("radio", { name: "Awaiting approval (3)" })).toBeChecked();

  // Each held comment once, and two comments of one name told apart.
  await page.getByRole("radio", { name: "All" }).check();
  await expect(page).toHaveURL(/\/admin\/comments$/);
  const queue = page.getByRole("list", { name: "Comments awaiting approval, oldest first" });
  await expect(queue.getByRole("article")).toHaveCount(3);
  // Below the held ones, the list of the rest is empty: it does not say none match at all.
  await expect(page.getByText("No other comments match.")).toBeVisible();
  await expect(page.getByRole("article", { name: /^Comment by Asha/ })).toHaveCount(2);
  await expect(
    page.getByRole("button", { name: `Approve the comment of Asha (#${first.id})`, exact: true }),
  ).toHaveCount(1);
  await expect(
    page.getByRole("button", { name: `Approve the comment of Asha (#${second.id})`, exact: true }),
  ).toHaveCount(1);

  // A reader has the soap post's page open: held, Asha's comment is not there.
  const reader = await visitor();
  const readerComments = await openDiscussion(reader, `${own.siteUrl}/science/soap`);
  await expect(readerComments.getByText(first.content)).toHaveCount(0);

  // Bulk approve Asha's two: the reader's page shows hers without a reload.
  await page.getByRole("checkbox", { name: `Select the comment of Asha (#${first.id})` }).check();
  await page.getByRole("checkbox", { name: `Select the comment of Asha (#${second.id})` }).check();
  await page.getByRole("button", { name: "Approve selected (2)" }).press("Enter");
  await expect(page.getByText("2 comments approved")).toBeVisible();
  // The button, disabled while it ran, hands the focus to the first comment left, not to the page.
  await expect(
    page.getByRole("button", { name: `Approve the comment of Offers (#${junk.id})`, exact: true }),
  ).toBeFocused();
  await expect(readerComments.getByText(first.content)).toBeVisible({ timeout: 15_000 });
  await expect(queue.getByRole("article")).toHaveCount(1);
  await expect(nav.getByRole("link", { name: /^Comments\s+1\s+awaiting approval$/ })).toBeVisible();
  await page.getByRole("radio", { name: "Published (2)" }).check();
  await expect(
    page.getByRole("list", { name: "Published comments, newest first" }).getByRole("article"),
  ).toHaveCount(2);

  // Bulk reject, after a confirmation.
  await page.getByRole("radio", { name: "Awaiting approval (1)" }).check();
  await page.getByRole("checkbox", { name: "Select all held comments" }).check();
  await page.getByRole("button", { name: "Reject selected (1)" }).click();
  await page
    .getByRole("alertdialog", { name: "Reject 1 comment?" })
    .getByRole("button", {
      name: "Reject them",
    })
    .click();
  await expect(page.getByText("1 comment rejected")).toBeVisible();
  await expect(page.getByText("No comment is awaiting approval.")).toBeFocused();
  await expect(nav.getByRole("link", { name: "Comments", exact: true })).toBeVisible();
  await page.getByRole("link", { name: "Overview" }).click();
  await expect(page.getByText("No comment is awaiting approval.")).toBeVisible();

  const trail = ownerCli(own, "audit");
  for (const line of [
    `comment approve\t${first.id}`,
    `comment approve\t${second.id}`,
    `comment reject\t${junk.id}`,
  ]) {
    expect(trail).toContain(line);
  }

  // On the Overview, with nothing held: a new held comment raises the badge live.
  const kofi = await visitor();
  await postTo(kofi.request, own, "tea-cooling", {
    content: "Does a lid keep tea hot longer?",
    userName: "Kofi",
  });
  await expect(nav.getByRole("link", { name: /^Comments\s+1\s+awaiting approval$/ })).toBeVisible({
    timeout: 15_000,
  });
  await expect(page.getByRole("link", { name: "1 comment awaiting approval" })).toBeVisible();
});

test("Ban is red and confirmed without a command to run; the ban list lifts it", async ({
  visitor,
}) => {
  const page = await openConsole(visitor, "/admin/comments");
  const ban = page.getByRole("button", { name: /^Ban the writer of the comment of Kofi/ });
  const approveColour = await page
    .getByRole("button", { name: /^Approve the comment of Kofi/ })
    .evaluate((button) => getComputedStyle(button).backgroundColor);
  expect(await ban.evaluate((button) => getComputedStyle(button).backgroundColor)).not.toBe(
    approveColour,
  );
  await ban.click();
  // A choice to make: a dialog with a form, not an alert; the choice takes the focus.
  const dialog = page.getByRole("dialog", { name: "Ban Kofi?" });
  await expect(dialog).toContainText("You can lift the ban at any time under Bans.");
  // Their browser unless the owner chooses the address, which others may share.
  const scope = dialog.getByRole("group", { name: "Whom to ban" });
  await expect(scope.getByRole("radio", { name: "This browser" })).toBeChecked();
  await expect(scope.getByRole("radio", { name: "This browser" })).toBeFocused();
  await scope.getByRole("radio", { name: "This address" }).check();
  await expect(dialog).not.toContainText("npm run");
  await expect(dialog).not.toContainText(/\bID\b/);
  const confirm = dialog.getByRole("button", { name: "Ban for 30 days" });
  expect(await confirm.evaluate((button) => getComputedStyle(button).backgroundColor)).not.toBe(
    approveColour,
  );
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
  await confirm.press("Enter");
  await expect(page.getByText("Kofi is banned for 30 days")).toBeVisible();
  // Ban, disabled while the ban is made, takes the focus back from the dialog.
  await expect(ban).toBeFocused();

  await page.getByRole("link", { name: "Bans" }).click();
  const bans = page.getByRole("list", { name: "Bans in force, oldest first" });
  await expect(bans).toContainText("Kofi");
  await expect(bans).toContainText("Does a lid keep tea hot longer?");
  await expect(bans).toContainText("their browser and address");
  // An unban the server refuses: the owner reads why, and the list is not read again.
  const refused = await refuseWrite(page, {
    method: "DELETE",
    url: /\/api\/admin\/bans\/\d+$/,
    list: /\/api\/admin\/bans(\?|$)/,
    message: "The database is busy: try again in a moment",
  });
  const unban = bans.getByRole("button", { name: /^Unban Kofi/ });
  await unban.press("Enter");
  await expect(page.getByText("The database is busy: try again in a moment")).toBeVisible();
  expect(await refused.reads()).toBe(0);
  await expect(bans).toContainText("Kofi");
  await expect(unban).toBeFocused();
  await refused.accept();
  // By keyboard, the last ban: the line that says none is in force takes the focus.
  await page.keyboard.press("Enter");
  await expect(page.getByText("The ban on Kofi is lifted")).toBeVisible();
  await expect(page.getByText(/^No bans in force\./)).toBeFocused();

  await page.getByRole("link", { name: "Audit trail" }).click();
  const trail = page.getByRole("list", { name: "Audit trail, newest first" });
  await expect(trail.getByRole("listitem").first()).toContainText("visitor unban");
  await expect(trail.getByRole("listitem").first()).toContainText("in the console, Chrome");
  await expect(trail).toContainText("visitor ban");
  await expect(trail).toContainText("from the command line or a mailed link");
  // Fewer than the screen's 200: every entry is there, and the screen says so.
  await expect(page.getByText("Every entry, newest first.")).toBeVisible();
});

test("a comment kept as spam is listed under the Spam filter, with its count", async ({
  visitor,
}) => {
  // Junk the spam filter is sure of: kept as spam, looking posted to its writer alone.
  const promoter = await visitor();
  const junk = await postTo(promoter.request, own, "wifi", {
    content:
      "Earn ₹40,000 every week from your phone with our trading app, no experience needed, join the group today.",
    userName: "Promo Desk",
  });
  const page = await openConsole(visitor, "/admin/comments");
  // No other test here keeps a comment as spam.
  const spam = page.getByRole("radio", { name: "Spam (1)" });
  await spam.check();
  await expect(page).toHaveURL(/\/admin\/comments\?status=spam$/);
  const listed = page.getByRole("list", { name: "Spam, newest first" }).getByRole("article");
  await expect(listed).toHaveCount(1);
  const card = page.getByRole("article", { name: `Comment by Promo Desk (#${junk.id})` });
  await expect(card).toContainText("Kept as spam");
  await expect(card).toContainText("Earn ₹40,000 every week");
  await expect(card).toContainText(/Why: /);
  await expect(
    card.getByRole("button", { name: `Publish the comment of Promo Desk (#${junk.id})` }),
  ).toBeVisible();
  // Nowhere else: the other filters leave it out.
  await page.getByRole("radio", { name: /^Published \(\d+\)$/ }).check();
  await expect(page.getByRole("list", { name: "Published comments, newest first" })).toBeVisible();
  await expect(card).toHaveCount(0);
});

test("the comment filter is a row of pills, the chosen one filled; the arrow keys choose, with the focus shown", async ({
  visitor,
}) => {
  const page = await openConsole(visitor, "/admin/comments");
  const filter = page.getByRole("group", { name: "Show" });
  const all = filter.getByRole("radio", { name: "All" });
  const held = filter.getByRole("radio", { name: /^Awaiting approval/ });
  await expect(all).toBeChecked();
  /** How a choice's pill is drawn: its label's fill, corners and ring. */
  const pill = (radio: Locator) =>
    radio.evaluate((input) => {
      const style = getComputedStyle(input.closest("label") ?? input);
      return {
        fill: style.backgroundColor,
        corner: Number.parseFloat(style.borderTopLeftRadius),
        ring: style.boxShadow,
      };
    });
  const none = "rgba(0, 0, 0, 0)";
  for (const radio of [all, held]) {
    const { corner, ring } = await pill(radio);
    expect(corner).toBeGreaterThan(0);
    expect(ring).not.toBe("none");
  }
  expect((await pill(all)).fill).not.toBe(none);
  expect((await pill(held)).fill).toBe(none);

  // From the field before it, Tab reaches the chosen pill; an arrow chooses the next.
  await page.getByLabel("Post").focus();
  await page.keyboard.press("Tab");
  await expect(all).toBeFocused();
  await page.keyboard.press("ArrowRight");
  await expect(held).toBeChecked();
  await expect(held).toBeFocused();
  await expect(page).toHaveURL(/\/admin\/comments\?status=pending$/);
  expect((await pill(held)).fill).not.toBe(none);
  expect((await pill(all)).fill).toBe(none);
  expect(
    await held.evaluate(
      (input) => input.matches(":focus-visible") && getComputedStyle(input).outlineStyle,
    ),
  ).toBe("solid");
  expect(await seriousViolations(page, '[aria-label="Search comments"]')).toEqual([]);
});

test("the moderation screens, and Comments with a comment selected and filtered to Published and to Spam, are axe clean and fit the window at 1280 and at 390 px", async ({
  visitor,
}) => {
  // Seven states of five screens at two widths: minutes on a loaded machine.
  test.slow();
  const reader = await visitor();
  const held = await postTo(reader.request, own, "ironing", {
    content: `A held question: why does steam help an iron? https://example.com/${"a".repeat(60)}`,
    userName: "Meera Krishnamurthy-Oyelaran",
  });
  ownerCli(own, "visitor", "ban", "--comment", String(held.id), "--days", "2");
  const page = await openConsole(visitor, "/admin");
  // Each width in the same browser, every screen loaded at that width. At a
  // phone's width axe reads the Overview and the states of Comments, whose
  // cards hold the most controls; the other screens are the same console
  // around other text, which axe reads at the desktop's width, and each is
  // still checked to fit (docs/decisions/028-how-the-suite-stays-fast.md).
  for (const width of [1280, 390]) {
    if (width !== 1280) await page.setViewportSize({ width, height: 860 });
    /** Checks the screen as it is now; `state` names it in a failure. */
    const check = async (state: string, axe = true) => {
      if (axe) expect(await seriousViolations(page), `${state} at ${width} px`).toEqual([]);
      expect(await overflowsWindow(page), `${state} is wider than ${width} px`).toBe(false);
    };
    for (const [path, heading] of [
      ["/admin", "Overview"],
      ["/admin/comments", "Comments"],
      ["/admin/bans", "Bans"],
      ["/admin/audit", "Audit trail"],
      ["/admin/security", "Sign-in and passkeys"],
      ["/admin/health", "Health"],
    ] as const) {
      if (width !== 1280 || path !== "/admin") await page.goto(`${own.siteUrl}${path}`);
      await expect(page.getByRole("heading", { name: heading, level: 1 })).toBeVisible();
      await expect(page.getByText("Loading…")).toHaveCount(0);
      if (path !== "/admin/comments") {
        await check(path, width === 1280 || path === "/admin");
        continue;
      }
      // Comments, with the held comment selected: its card and the bulk actions.
      await expect(page.getByRole("article", { name: /^Comment by Meera/ })).toBeVisible();
      await page
        .getByRole("checkbox", {
          name: `Select the comment of Meera Krishnamurthy-Oyelaran (#${held.id})`,
        })
        .check();
      await expect(page.getByRole("button", { name: "Approve selected (1)" })).toBeEnabled();
      await expect(page.getByRole("button", { name: "Reject selected (1)" })).toBeEnabled();
      await check(`${path} with a comment selected`);
      for (const [filter, list] of [
        [/^Published \(\d+\)$/, "Published comments, newest first"],
        [/^Spam \(\d+\)$/, "Spam, newest first"],
      ] as const) {
        await page.getByRole("radio", { name: filter }).check();
        await expect(
          page.getByRole("list", { name: list }).getByRole("article").first(),
        ).toBeVisible();
        await check(list);
      }
    }
  }
  ownerCli(own, "visitor", "unban", "--comment", String(held.id));
  ownerCli(own, "comments", "reject", String(held.id));
});

test("the spam lists: why a comment is held, Mark as spam, and Publish from the Spam list", async ({
  visitor,
}) => {
  // The spam filter in the console (docs/decisions/025-spam-that-learns.md).
  const reader = await visitor();
  const link = "https://brake-notes.in/fade-log";
  const linked = await postTo(reader.request, own, "soap", {
    content: `My log of brake fade on the ghats: ${link}`,
    userName: "Dina",
  });
  const other = await visitor();
  const plain = await postTo(other.request, own, "soap", {
    content: "Why do disc brakes fade on a long descent but recover after a stop?",
    userName: "Emeka",
  });

  const page = await openConsole(visitor, "/admin/comments?status=pending");
  const held = page.getByRole("article", { name: /^Comment by Dina/ });
  await expect(
    held.getByText(/^Why: A link or contact details from a browser not yet trusted/),
  ).toContainText(link);

  const markAsSpam = page.getByRole("button", {
    name: `Mark as spam: the comment of Emeka (#${plain.id})`,
    exact: true,
  });
  // Refused, the button, disabled while it ran, takes the focus back to be pressed again.
  const refused = await refuseWrite(page, {
    method: "POST",
    url: /\/api\/admin\/comments\/\d+\/spam$/,
    list: /\/api\/admin\/comments\?/,
    message: "The database is busy: try again in a moment",
  });
  await markAsSpam.press("Enter");
  await expect(page.getByText("The database is busy: try again in a moment")).toBeVisible();
  await expect(markAsSpam).toBeFocused();
  await refused.accept();
  await page.keyboard.press("Enter");
  await expect(page.getByText("Marked as spam: the filter learnt from it")).toBeVisible();
  await page.getByRole("radio", { name: /^Spam/ }).check();
  const spamList = page.getByRole("list", { name: "Spam, newest first" });
  await expect(spamList.getByRole("article", { name: /^Comment by Emeka/ })).toContainText(
    plain.content,
  );

  await spamList
    .getByRole("button", { name: `Publish the comment of Emeka (#${plain.id})`, exact: true })
    .click();
  await expect(spamList.getByRole("article", { name: /^Comment by Emeka/ })).toHaveCount(0);
  await page.getByRole("radio", { name: /^Published/ }).check();
  await expect(
    page
      .getByRole("list", { name: "Published comments, newest first" })
      .getByRole("article", { name: /^Comment by Emeka/ }),
  ).toContainText(plain.content);
  // Published for every reader; the one held for its link still waits.
  const shown = await (await visitor()).request.get(`${own.url}/api/items/science/soap/comments`);
  const texts = commentsResponseSchema.parse(await shown.json()).comments.map((c) => c.content);
  expect(texts).toContain(plain.content);
  expect(texts).not.toContain(linked.content);
});

test("at a phone's width, Approve gives the focus to the next held comment's Approve, and the last to the line that says none is left", async ({
  visitor,
}) => {
  const stamp = uniqueWord();
  const held = [];
  for (const userName of ["Lena", "Tomasz"]) {
    const reader = await visitor();
    held.push(
      await postTo(reader.request, own, "tea-cooling", {
        content: `${userName} asks: does milk cool tea faster? ${stamp}`,
        userName,
      }),
    );
  }
  const page = await openConsole(visitor, "/admin/comments", 375);
  await page.getByRole("searchbox", { name: "Search text or name" }).fill(stamp);
  const queue = page.getByRole("list", { name: "Comments awaiting approval, oldest first" });
  await expect(queue.getByRole("article")).toHaveCount(2);
  const approve = (name: string, id: number) =>
    page.getByRole("button", { name: `Approve the comment of ${name} (#${id})`, exact: true });
  /** The focused element's tag, `BODY` when the focus fell to the page. */
  const focused = () => page.evaluate(() => document.activeElement?.tagName);

  await approve("Lena", held[0]!.id).focus();
  await page.keyboard.press("Enter");
  await expect(queue.getByRole("article")).toHaveCount(1);
  await expect(approve("Tomasz", held[1]!.id)).toBeFocused();
  expect(await focused()).toBe("BUTTON");

  await page.keyboard.press("Enter");
  await expect(queue).toHaveCount(0);
  await expect(page.getByText("No comment is awaiting approval.")).toBeFocused();
  expect(await focused()).toBe("P");
  expect(await seriousViolations(page, "main")).toEqual([]);
});
