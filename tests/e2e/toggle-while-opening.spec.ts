import type { Locator, Page } from "@playwright/test";
import { reactionsResponseSchema } from "../../contract/api.ts";
import { expect, test } from "./support/fixtures.ts";
import { holdStreamEvents } from "./support/held-read.ts";

/*
 * A reaction toggled while its item's live stream is opening. When the stream
 * opens, the page reads the item again; that read can reach the server before
 * the toggle does, and its answer, landing before or after the toggle's, must
 * never show the reaction as it was before the click, not even for a moment,
 * nor once the stream's events arrive. Nor may another reader's reaction,
 * arriving while the click is on its way. Each test has an item of its own,
 * which no other spec reacts to, so counts compare exactly.
 */

type Shown = { held: boolean; likes: number };
const label = ({ held, likes }: Shown) => `Like ${likes} ${held ? "pressed" : "not pressed"}`;

/** Records what `button` shows from now on, each change once, as `label` writes it. */
async function recordShown(button: Locator) {
  await button.evaluate((element) => {
    const shown = () =>
      `${element.textContent} ${element.getAttribute("aria-pressed") === "true" ? "pressed" : "not pressed"}`;
    const seen = [shown()];
    new MutationObserver(() => {
      if (shown() !== seen.at(-1)) seen.push(shown());
    }).observe(element, { attributes: true, characterData: true, childList: true, subtree: true });
    Object.assign(window, { seen });
  });
  return () => button.page().evaluate(() => (window as unknown as { seen: string[] }).seen);
}

/**
 * Opens `path`, clicks Like as its stream opens and lets the page's reads and
 * the click's request through in the order `order` says: every read the page
 * makes after the click is answered by the server at once (before the click's
 * request reaches it, if the page asks that early) and handed to the page
 * before or after the click's answer. The stream's events are held meanwhile.
 */
async function likeAsStreamOpens(
  page: Page,
  path: string,
  order: "before" | "after",
  from: Shown,
  stream: Awaited<ReturnType<typeof holdStreamEvents>>,
) {
  const api = new RegExp(`/api/items${path}/reactions`);
  const toggle = Promise.withResolvers<void>();
  const reads = Promise.withResolvers<void>();
  const readDelivered = Promise.withResolvers<void>();
  const atServer: Promise<unknown>[] = [];
  let clicked = false;
  await page.route(api, async (route) => {
    if (route.request().method() !== "GET") {
      await toggle.promise;
      // Every read asked for until now reaches the server first.
      await Promise.all(atServer);
      return route.continue();
    }
    if (!clicked) return route.continue();
    const fetched = route.fetch();
    atServer.push(fetched);
    const response = await fetched;
    await reads.promise;
    // The page may have abandoned the read meanwhile: then there is no one to answer.
    await route.fulfill({ response }).catch(() => {});
    readDelivered.resolve();
  });

  await page.goto(path);
  const section = page.getByRole("region", { name: /^Reactions/ });
  await section.scrollIntoViewIfNeeded();
  const like = section
    .getByRole("group", { name: /^Reactions to / })
    .getByRole("button", { name: /^Like \d+$/ });
  // A count, not the dash shown until the first read's answer.
  await expect(like).toHaveText(`Like ${from.likes}`);
  await expect(like).toHaveAttribute("aria-pressed", String(from.held));
  const seen = await recordShown(like);
  const to = { held: !from.held, likes: from.likes + (from.held ? -1 : 1) };
  const showsClick = async () => {
    await expect(like).toHaveText(`Like ${to.likes}`);
    await expect(like).toHaveAttribute("aria-pressed", String(to.held));
  };

  clicked = true;
  const answered = page.waitForResponse(
    (response) => api.test(response.url()) && response.request().method() !== "GET",
  );
  await like.click();
  await showsClick();
  // The stream opens: the page reads the item again.
  await stream.release("ready");
  await expect(section.locator('[data-live="true"]')).toBeAttached();
  await showsClick();
  if (order === "before") reads.resolve();
  toggle.resolve();
  expect((await answered).ok()).toBe(true);
  await afterNextRender(page);
  await showsClick();
  if (order === "after") reads.resolve();
  await readDelivered.promise;
  await afterNextRender(page);
  await showsClick();
  // The click's own event, held until now, arrives.
  await stream.release("reaction");
  await expect.poll(() => stream.delivered("reaction")).toBe(1);
  await afterNextRender(page);
  await showsClick();
  expect(await seen()).toEqual([label(from), label(to)]);
  await page.unroute(api);
  return to;
}

/** Waits until the page has run its pending tasks and drawn two frames. */
const afterNextRender = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        requestAnimationFrame(() => setTimeout(() => requestAnimationFrame(() => resolve()), 0)),
      ),
  );

for (const { order, path } of [
  { order: "before", path: "/science/gps-navigation" },
  { order: "after", path: "/mythology/bharata-righteousness" },
] as const) {
  test(`Like and un-like clicked as the stream opens stay as clicked when a read that left before the click lands ${order} its answer`, async ({
    visitor,
    request,
  }) => {
    const held = await request.get(`/api/items${path}/reactions`);
    const likes = reactionsResponseSchema.parse(await held.json()).counts.like;
    const page = await visitor("Lata");
    const stream = await holdStreamEvents(page);
    const liked = await likeAsStreamOpens(page, path, order, { held: false, likes }, stream);
    const unliked = await likeAsStreamOpens(page, path, order, liked, stream);
    // What the server holds, read by a fresh page.
    await page.goto(path);
    const section = page.getByRole("region", { name: /^Reactions/ });
    await section.scrollIntoViewIfNeeded();
    const like = section.getByRole("button", { name: /^Like \d+$/ });
    await expect(like).toHaveText(`Like ${unliked.likes}`);
    await expect(like).toHaveAttribute("aria-pressed", "false");
  });
}

test("a Like on its way stays counted when another reader's reaction arrives before its answer, and theirs shows once it has", async ({
  visitor,
  baseURL,
}) => {
  const path = "/science/differential-gear";
  const api = new RegExp(`/api/items${path}/reactions`);
  const page = await visitor("Lata");
  const stream = await holdStreamEvents(page);
  await page.goto(path);
  const section = page.getByRole("region", { name: /^Reactions/ });
  const group = section.getByRole("group", { name: /^Reactions to / });
  await section.scrollIntoViewIfNeeded();
  await stream.release("ready");
  await stream.release("reaction");
  await expect(section.locator('[data-live="true"]')).toBeAttached();
  const like = group.getByRole("button", { name: /^Like \d+$/ });
  const love = group.getByRole("button", { name: /^Love \d+$/ });
  const countOf = async (button: Locator) =>
    Number((await button.textContent())?.match(/\d+/)?.[0]);
  await expect(like).toHaveAttribute("aria-pressed", "false");
  const likes = await countOf(like);
  const loves = await countOf(love);
  const seen = await recordShown(like);

  // The Like leaves only when the test lets it: the server does not have it yet.
  const toggle = Promise.withResolvers<void>();
  await page.route(api, async (route) => {
    if (route.request().method() !== "GET") await toggle.promise;
    return route.continue();
  });
  await like.click();
  await expect(like).toHaveText(`Like ${likes + 1}`);

  // Another reader's Love commits first; its event's counts lack Lata's Like.
  const ravi = await visitor("Ravi");
  const loved = await ravi.request.post(`/api/items${path}/reactions`, {
    headers: { Origin: baseURL ?? "" },
    data: { type: "love", userName: "Ravi" },
  });
  expect(loved.ok()).toBe(true);
  await expect.poll(() => stream.delivered("reaction")).toBe(1);
  await afterNextRender(page);
  await expect(like).toHaveText(`Like ${likes + 1}`);
  await expect(like).toHaveAttribute("aria-pressed", "true");

  const answered = page.waitForResponse(
    (response) => api.test(response.url()) && response.request().method() === "POST",
  );
  toggle.resolve();
  expect((await answered).ok()).toBe(true);
  // Once the Like has its answer, the page learns of Ravi's Love too.
  await expect(love).toHaveText(`Love ${loves + 1}`);
  await expect(like).toHaveText(`Like ${likes + 1}`);
  expect(await seen()).toEqual([
    label({ held: false, likes }),
    label({ held: true, likes: likes + 1 }),
  ]);
});
