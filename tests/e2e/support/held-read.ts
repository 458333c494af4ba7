import type { Page } from "@playwright/test";

/**
 * Holds the page's `nth` request whose URL matches `url` (1 = the first): the
 * server answers it at once, with what it holds then, and that answer reaches
 * the page only when `release` is called, as a slow network would deliver it.
 * So a test can make a read that left before a write land after the write's
 * live event. `answered` resolves once the server has answered.
 */
export async function holdRead(page: Page, url: RegExp, nth = 1) {
  const answered = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const delivered = Promise.withResolvers<void>();
  let seen = 0;
  await page.route(url, async (route) => {
    seen += 1;
    if (seen !== nth) return route.continue();
    const response = await route.fetch();
    answered.resolve();
    await gate.promise;
    // The page may have abandoned the read meanwhile: then there is no one to answer.
    await route.fulfill({ response }).catch(() => {});
    delivered.resolve();
  });
  return {
    answered: answered.promise,
    /** Lets the held answer through; resolves once the page has it. */
    release() {
      gate.resolve();
      return delivered.promise;
    },
  };
}

/**
 * Holds the events of the page's live streams before the page handles them,
 * from its next load on, as a slow connection would deliver them late: the
 * stream itself is open. `release(name)` hands the page those of that name,
 * held and to come, in order; `delivered(name)` counts those it has handled.
 */
export async function holdStreamEvents(page: Page) {
  await page.addInitScript(() => {
    type Held = { name: string; deliver: () => void };
    const held: Held[] = [];
    const open = new Set<string>();
    const delivered = new Map<string, number>();
    const add = EventSource.prototype.addEventListener as EventTarget["addEventListener"];
    EventSource.prototype.addEventListener = function (
      this: EventSource,
      name: string,
      listener: EventListenerOrEventListenerObject | null,
      options?: boolean | AddEventListenerOptions,
    ) {
      const wrapped = (event: Event) => {
        const deliver = () => {
          delivered.set(name, (delivered.get(name) ?? 0) + 1);
          if (typeof listener === "function") listener.call(this, event);
          else listener?.handleEvent(event);
        };
        if (open.has(name)) deliver();
        else held.push({ name, deliver });
      };
      add.call(this, name, wrapped, options);
    } as EventSource["addEventListener"];
    Object.assign(window, {
      heldStream: {
        release(name: string) {
          open.add(name);
          for (const each of held.filter((one) => one.name === name)) {
            held.splice(held.indexOf(each), 1);
            each.deliver();
          }
        },
        delivered: (name: string) => delivered.get(name) ?? 0,
      },
    });
  });
  type Stream = { heldStream: { release(name: string): void; delivered(name: string): number } };
  return {
    release: (name: string) =>
      page.evaluate((n) => (window as unknown as Stream).heldStream.release(n), name),
    delivered: (name: string) =>
      page.evaluate((n) => (window as unknown as Stream).heldStream.delivered(n), name),
  };
}
