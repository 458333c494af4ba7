import { Temporal } from "@js-temporal/polyfill";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/store.ts";
import { createMessageQueue } from "../../server/fediverse/message-queue.ts";
import { waitFor } from "../support/wait-for.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { backends } from "./support/test-app.ts";

describe.each(backends)("the Fediverse queue's depth, on %s", (backend) => {
  let scratch: Awaited<ReturnType<typeof scratchStore>>;
  beforeAll(async () => {
    scratch = await scratchStore(backend);
    await migrateToLatest(scratch.store);
  });
  afterAll(() => scratch.drop());

  it("counts the messages waiting, due or delayed, not one a worker has in hand", async () => {
    const log = { error: () => {} };
    const queue = createMessageQueue(scratch.store, log, async () => {}, { pollMs: 20 });
    const stop = new AbortController();
    let release = () => {};
    const handled: unknown[] = [];
    const listening = queue.listen(
      async (message) => {
        handled.push(message);
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      },
      { signal: stop.signal },
    );
    try {
      await queue.enqueue({ id: "now" }, {});
      await queue.enqueue(
        { id: "later" },
        { delay: Temporal.Duration.from({ hours: 1 }) as never },
      );
      await waitFor(async () => handled.length === 1, { what: "the due message taken" });
      expect(await queue.getDepth()).toEqual({ queued: 1 });
      release();
      await waitFor(
        async () =>
          (await scratch.store.db.selectFrom("fediverse_queue").select("id").execute()).length ===
          1,
        { what: "the handled message gone" },
      );
      expect(await queue.getDepth()).toEqual({ queued: 1 });
    } finally {
      stop.abort();
      release();
      await listening;
    }
  });
});
