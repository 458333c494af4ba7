import type { APIRequest, APIResponse, Page, Response } from "@playwright/test";
import {
  commentResponseSchema,
  errorResponseSchema,
  formTokenResponseSchema,
} from "../../contract/api.ts";
import { unseenJunk, unseenOrdinary } from "../support/spam-samples.ts";
import { seriousViolations } from "./support/axe.ts";
import { uniqueWord } from "./support/comments.ts";
import { expect, type OpenVisitor, test } from "./support/fixtures.ts";
import { openItem } from "./support/items.ts";
import { type OwnSite, ownerCli, startOwnSite } from "./support/own-site.ts";

/*
 * What a reader sees of moderation and the spam defences
 * (docs/product.md, "Spam and moderation"), in Chromium, against servers of
 * this spec's own: one with every default (MODERATION=off, the default limits
 * and blocklist), one with MODERATION=all. The shared browser-test servers run
 * with a shorter comment-form minimum.
 */

/** The real server on the built site, with the default settings plus `env`. */
const startSite = (env: Record<string, string>) =>
  startOwnSite("moderation", { env, defaultLimits: true });

const post = { id: "pressure-cooker", button: /pressure cooker cook faster/i };

/**
 * A new visitor (a browser of its own) on the post's own page, where a reader
 * who follows a link to it lands: the same form as on the list, in a lighter page.
 * These visitors prefer reduced motion: they test the defences, not motion, and
 * the name dialog's fade and blur, drawn in software, cost the 2-core machine
 * more than the writing (docs/decisions/028-how-the-suite-stays-fast.md).
 */
async function newItemReader(visitor: OpenVisitor, site: OwnSite): Promise<Page> {
  const page = await visitor({ baseURL: site.url, reducedMotion: "reduce" });
  await page.goto(`/science/${post.id}`);
  // Below the article: it comes to life when the reader scrolls to it.
  await page.locator(".item-discussion").scrollIntoViewIfNeeded();
  await expect(page.locator(`.item-discussion [data-live="true"]`)).toBeAttached({
    timeout: 30_000,
  });
  return page;
}

/**
 * A new visitor (a browser of its own) with the post open on the list page,
 * for what a reload and the card's toggle bring back there.
 */
async function newReader(visitor: OpenVisitor, site: OwnSite): Promise<Page> {
  const page = await visitor({ baseURL: site.url });
  await openItem(page, "/science", post.button);
  await expect(page.locator(`#${post.id} [data-live="true"]`)).toBeAttached({ timeout: 30_000 });
  return page;
}

async function giveName(page: Page, name: string) {
  await item(page).getByRole("button", { name: "Add a comment" }).click();
  await page.getByPlaceholder("Your name").fill(name);
  await page.getByRole("button", { name: "Continue" }).click();
  await expect(page.getByRole("textbox", { name: "Write a comment" })).toBeVisible();
}

/** Writes and sends a comment as a person would: name given, form open, text typed. */
async function write(page: Page, text: string) {
  const box = page.getByRole("textbox", { name: "Write a comment" });
  await box.pressSequentially(text);
  await page.getByRole("button", { name: "Post comment" }).click();
}

/**
 * The post's live discussion, on the list page or the post's own page (the
 * server's copy of it is hidden once this is there).
 */
const item = (page: Page) => page.locator(`#${post.id} [data-live], .item-discussion [data-live]`);
const refusal = (page: Page) => item(page).locator("form [role=alert]");

/** A comment to send, and the name its new visitor gives. */
type Sample = { kind: string; text: string; name: string };
/** What became of a sample: the answer's status, and a refusal's message or a taken comment's hold. */
type Outcome = Sample & { status: number; refusal: string | null; awaiting: boolean | null };

async function outcomeOf(entry: Sample, answer: APIResponse | Response): Promise<Outcome> {
  const body: unknown = await answer.json();
  const taken = answer.status() < 300;
  return {
    ...entry,
    status: answer.status(),
    refusal: taken ? null : errorResponseSchema.parse(body).error.message,
    awaiting: taken ? commentResponseSchema.parse(body).comment.awaitingApproval : null,
  };
}

/**
 * Each sample from a new visitor through the post's form, one after another:
 * what the writer sees is their comment, or the form's refusal, and an
 * ordinary comment shows at once without "Awaiting approval".
 */
async function postThroughForms(
  visitor: OpenVisitor,
  site: OwnSite,
  entries: Sample[],
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const entry of entries) {
    const page = await newItemReader(visitor, site);
    await giveName(page, entry.name);
    const sent = page.waitForResponse(
      (response) => response.request().method() === "POST" && /\/comments$/.test(response.url()),
    );
    // Filled, not typed: the form itself waits out its minimum time before sending.
    await page.getByRole("textbox", { name: "Write a comment" }).fill(entry.text);
    await page.getByRole("button", { name: "Post comment" }).click();
    const answer = await sent;
    const mine = item(page).locator("li", { hasText: entry.text });
    await expect(refusal(page).or(mine)).toBeVisible({ timeout: 30_000 });
    if (entry.kind === "ordinary") {
      await expect(mine).toBeVisible();
      await expect(mine.getByText("Awaiting approval")).toHaveCount(0);
    }
    outcomes.push(await outcomeOf(entry, answer));
    // Closed at once: the browsers must not pile up until the test ends.
    await page.context().close();
  }
  return outcomes;
}

/**
 * One sample from a new visitor, as the comment form sends it
 * (app/features/comments/comment-composer.tsx): the form's signed time, sent
 * once the minimum time the server named has passed since its answer, the
 * empty hidden field, and the site's Origin; no cookie, as from a new browser.
 */
async function postAsNewVisitor(
  clients: APIRequest,
  site: OwnSite,
  entry: Sample,
): Promise<Outcome> {
  const client = await clients.newContext({ baseURL: site.url });
  try {
    const token = await client.get("/api/comments/form-token");
    expect(token.status()).toBe(200);
    const { formToken, minimumMs } = formTokenResponseSchema.parse(await token.json());
    // The form's own wait (useFormGuard in app/lib/form-guard.tsx).
    await new Promise((resolve) => setTimeout(resolve, minimumMs + 100));
    const answer = await client.post(`/api/items/science/${post.id}/comments`, {
      headers: { origin: site.siteUrl },
      data: { content: entry.text, userName: entry.name, formToken, website: "" },
    });
    return await outcomeOf(entry, answer);
  } finally {
    await client.dispose();
  }
}

test.describe("with the default defences", () => {
  // In one worker, in order, on one server: a second worker would start a
  // second server for the same checks. A failure does not skip the others.
  test.describe.configure({ mode: "default" });
  let site: OwnSite;
  test.beforeAll(async () => {
    // The samples' writers, each a reader of their own address in life, all write from
    // 127.0.0.1 here, at once: more than an address's second's share of writes.
    site = await startSite({ SITE_OWNER_NAME: "Ravi Kumar", RATE_LIMIT_WRITES_PER_IP: "1000000" });
  });
  // Several browsers and a server of its own on a shared 2-core machine.
  test.beforeEach(() => test.slow());
  test.afterAll(async () => {
    await site?.stop();
  });

  test("junk the fixed rules let through leaves nothing for other readers; ordinary comments are published at once", async ({
    visitor,
    playwright,
  }) => {
    // The fixed rules' own samples (tests/support/comment-samples.ts) are
    // posted through the API in tests/server/spam-defences.test.ts; these are
    // words the classifier never learnt from (tests/support/spam-samples.ts).
    // Each is sent by a new visitor, as a new browser sends it: one junk and
    // one ordinary comment through the post's form in Chromium, the rest with
    // what that form sends (its token, its hidden field, the page's Origin),
    // from a client with no cookie yet, which is all a new browser has. What
    // other readers see is then read in a reader's browser.
    const samples: Sample[] = [
      ...unseenJunk,
      ...unseenOrdinary.map((text) => ({ kind: "ordinary", text })),
    ].map((sample, index) => ({ ...sample, name: `Visitor ${index + 1}` }));
    const [formJunk, ...apiJunk] = samples.filter((sample) => sample.kind !== "ordinary");
    const [formOrdinary, ...apiOrdinary] = samples.filter((sample) => sample.kind === "ordinary");
    const outcomes: Outcome[] = await Promise.all([
      postThroughForms(visitor, site, [formJunk!, formOrdinary!]),
      ...[...apiJunk, ...apiOrdinary].map((entry) =>
        postAsNewVisitor(playwright.request, site, entry),
      ),
    ]).then((all) => all.flat());
    expect(outcomes).toHaveLength(unseenJunk.length + unseenOrdinary.length);
    // Each writer was answered: taken, or refused by a rule on the text, with
    // its reason; never turned away as a form sent too fast or altered, which
    // would leave nothing to see for no reason worth testing.
    expect(outcomes.filter((o) => o.status !== 201 && !(o.status === 422 && o.refusal))).toEqual(
      [],
    );

    // Every ordinary comment published at once: not refused, not held.
    expect(
      outcomes.filter((o) => o.kind === "ordinary" && (o.status !== 201 || o.awaiting !== false)),
    ).toEqual([]);
    const reader = await newItemReader(visitor, site);
    await expect(item(reader).locator("li")).toHaveCount(unseenOrdinary.length, {
      timeout: 30_000,
    });
    for (const { text } of unseenJunk) {
      await expect(item(reader).getByText(text)).toHaveCount(0);
    }
    const html = await (await reader.request.get("/science")).text();
    for (const { text } of unseenJunk) expect(html).not.toContain(text);
  });

  test("a reader who trips a defence is told why, in the form, and nothing is posted", async ({
    visitor,
  }) => {
    const page = await newItemReader(visitor, site);
    await giveName(page, "Nisha");
    await write(page, "Sources: https://a.example/1 https://b.example/2 https://c.example/3");
    await expect(refusal(page)).toHaveText(/at most 2 links; this one has 3/);
    await expect(page.getByRole("textbox", { name: "Write a comment" })).toHaveValue(/a\.example/);
    expect(await seriousViolations(page, ".item-discussion")).toEqual([]);

    await page.getByRole("textbox", { name: "Write a comment" }).fill("");
    await write(page, "Only https://en.wikipedia.org/wiki/Pressure_cooking then.");
    await expect(
      item(page).locator("li", { hasText: "Only https://en.wikipedia.org" }),
    ).toBeVisible();
    await expect(refusal(page)).toHaveCount(0);
  });

  test("the owner's name cannot be borrowed, in any spelling", async ({ visitor }) => {
    const page = await newItemReader(visitor, site);
    await giveName(page, "R4vi KUMAR");
    await write(page, "Official announcement: free gifts");
    await expect(refusal(page)).toHaveText(/site owner's name/);
    await expect(item(page).locator("li", { hasText: "Official announcement" })).toHaveCount(0);
  });

  test("a name cannot carry a link: the form says so and nothing is posted", async ({
    visitor,
  }) => {
    const page = await newItemReader(visitor, site);
    await giveName(page, "deals at bit.ly/x7");
    await write(page, "Thanks for the clear explanation of the valve.");
    await expect(refusal(page)).toHaveText(/Names cannot hold a link/);
    await expect(
      item(page).locator("li", { hasText: "clear explanation of the valve" }),
    ).toHaveCount(0);
  });

  test("two readers of one name get different avatars, on the page and in its HTML", async ({
    visitor,
    request,
  }) => {
    const avatars: string[] = [];
    for (const text of ["Same name, first browser", "Same name, second browser"]) {
      const page = await newItemReader(visitor, site);
      await giveName(page, "Sam");
      await write(page, text);
      const row = item(page).locator("li", { hasText: text });
      await expect(row).toBeVisible();
      const avatar = row.locator("svg.comment-avatar");
      await expect(avatar).toBeVisible();
      avatars.push((await avatar.getAttribute("data-avatar")) ?? "");
    }
    expect(avatars[0]).toMatch(/^[0-9a-f]{16}$/);
    expect(avatars[1]).toMatch(/^[0-9a-f]{16}$/);
    expect(avatars[0]).not.toBe(avatars[1]);
    // The page as served to a new reader, who has no cookie yet.
    const html = await (await request.get(`${site.url}/science`)).text();
    for (const seed of avatars) expect(html).toContain(`data-avatar="${seed}"`);
  });
});

test.describe("with MODERATION=all", () => {
  let site: OwnSite;
  test.beforeAll(async () => {
    site = await startSite({ MODERATION: "all" });
  });
  test.beforeEach(() => test.slow());
  test.afterAll(async () => {
    await site?.stop();
  });

  test("a held comment is its writer's alone until approved, then reaches everyone live", async ({
    visitor,
  }) => {
    const writer = await newReader(visitor, site);
    const other = await newReader(visitor, site);
    await giveName(writer, "Asha");
    const text = `Does altitude change this? ${uniqueWord()}`;
    const sent = writer.waitForResponse((response) => response.request().method() === "POST");
    await write(writer, text);
    const { comment } = await (await sent).json();

    const mine = item(writer).locator("li", { hasText: text });
    await expect(mine.getByText("Awaiting approval")).toBeVisible();
    await expect(item(writer).getByRole("status")).toContainText("once the site owner approves it");
    expect(await seriousViolations(writer, `#${post.id}`)).toEqual([]);

    // Another reader: not in their list (now or after a reload), nor in the page's HTML.
    await expect(item(other).getByText("No comments yet")).toBeVisible();
    await other.reload();
    const toggle = other.getByRole("button", { name: post.button }).first();
    await toggle.click();
    await expect(other.locator(`#${post.id} [data-live="true"]`)).toBeAttached({ timeout: 30_000 });
    await expect(item(other).getByText("No comments yet")).toBeVisible();
    expect(await (await other.request.get("/science")).text()).not.toContain(text);

    expect(ownerCli(site, "comments", "approve", String(comment.id))).toContain("Approved");
    await expect(item(other).locator("li", { hasText: text })).toBeVisible({ timeout: 10_000 });
    await expect(mine.getByText("Awaiting approval")).toHaveCount(0, { timeout: 10_000 });
    await expect(mine).toBeVisible();

    // Rejected: gone for its writer too, live.
    const second = `And at sea level? ${uniqueWord()}`;
    const sentSecond = writer.waitForResponse((response) => response.request().method() === "POST");
    await write(writer, second);
    const { comment: held } = await (await sentSecond).json();
    await expect(item(writer).locator("li", { hasText: second })).toBeVisible();
    ownerCli(site, "comments", "reject", String(held.id));
    await expect(item(writer).locator("li", { hasText: second })).toHaveCount(0, {
      timeout: 10_000,
    });

    // Banned: a polite refusal in the form.
    ownerCli(site, "visitor", "ban", "--comment", String(comment.id));
    // The panel's own word on the refusal leaves by itself after 5 s: on the page's
    // clock, moved on below rather than waited out (its time runs as ever meanwhile).
    await writer.clock.install();
    await write(writer, "One more thing");
    await expect(refusal(writer)).toHaveText(/not accepted at the moment/);
    // A reaction too is refused with the reason, not silently: a second alert, beside the form's.
    const saidSo = item(writer)
      .getByRole("alert")
      .filter({ hasText: /not accepted/ });
    await writer.clock.runFor(5_000);
    await expect(saidSo).toHaveCount(1);
    await item(writer)
      .getByRole("button", { name: /^Like \d+$/ })
      .click();
    await expect(saidSo).toHaveCount(2);
    // So are an edit and a reply, each in its own form.
    const formOf = (name: string) =>
      item(writer).locator("form", { has: writer.getByRole("textbox", { name }) });
    await mine.getByRole("button", { name: "Edit" }).click();
    await formOf("Edit comment").getByRole("textbox").fill("Does altitude change it at all?");
    await formOf("Edit comment").getByRole("button", { name: "Update" }).click();
    await expect(formOf("Edit comment").getByRole("alert")).toHaveText(/not accepted/);
    await formOf("Edit comment").getByRole("button", { name: "Cancel" }).click();
    await mine.getByRole("button", { name: "Reply" }).first().click();
    await formOf("Write a reply").getByRole("textbox").fill("And at sea level?");
    await formOf("Write a reply").getByRole("button", { name: "Post reply" }).click();
    await expect(formOf("Write a reply").getByRole("alert")).toHaveText(/not accepted/);
  });
});
