import { describe, expect, it } from "vitest";
import type { CommentsRepository } from "../comments/repository.ts";
import type { Listener, LiveEvent } from "../events/bus.ts";
import type { ReactionsRepository } from "./reactions-repository.ts";
import { createReadCache } from "./read-cache.ts";

/*
 * A write's own instance forgets what it changed as the write commits, before
 * it answers; the bus brings the same event later (at once on SQLite, through
 * the journal on PostgreSQL). That delivery must not forget what was read
 * since, which is already up to date.
 */
describe("the read cache on the instance that wrote", () => {
  function cacheWithCountedReads() {
    const reads: string[] = [];
    let deliver: Listener = () => {};
    const reactions = {
      get: async () => {
        reads.push("counts");
        return { counts: { like: reads.length, love: 0, dislike: 0, idea: 0 }, mine: [] };
      },
      heldBy: async () => {
        reads.push("mine");
        return ["like" as const];
      },
    } as unknown as ReactionsRepository;
    const cache = createReadCache({
      reactions,
      comments: {} as CommentsRepository,
      bus: {
        healthy: true,
        subscribeAll: (listener) => {
          deliver = listener;
          return () => {};
        },
      },
    });
    return { cache, reads, deliver: (event: LiveEvent) => deliver(event) };
  }
  const reaction = (id: number): LiveEvent => ({
    id,
    topic: "science:pressure-cooker",
    type: "reaction",
    data: "{}",
  });

  it("reads an item again once, when its write commits, not again when the bus delivers it", async () => {
    const { cache, reads, deliver } = cacheWithCountedReads();
    await cache.reactions("science", "pressure-cooker", "asha");
    expect(reads).toEqual(["counts", "mine"]);

    cache.committedHere(reaction(7));
    await cache.reactions("science", "pressure-cooker", "asha");
    expect(reads).toEqual(["counts", "mine", "counts", "mine"]);

    deliver(reaction(7));
    await cache.reactions("science", "pressure-cooker", "asha");
    expect(reads).toHaveLength(4);

    // Another instance's write, heard through the bus, is read again.
    deliver(reaction(8));
    await cache.reactions("science", "pressure-cooker", "asha");
    expect(reads).toEqual(["counts", "mine", "counts", "mine", "counts", "mine"]);
  });
});
