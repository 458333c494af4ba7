import type { KvKey, KvStore } from "@fedify/fedify";
import { Temporal } from "@js-temporal/polyfill";
import { tokenDigest } from "../lib/tokens.ts";

/*
 * What a writer took back before it arrived: a post deleted, a like or boost
 * undone. The queue's workers take an activity and the one that takes it back
 * at the same time, and a server retries a delivery that failed after the next
 * one went through; so the second remembers the first's address, under its
 * writer's, in the key-value store (kv-store.ts: pruned hourly, forgotten with
 * the rest of an erased account), before it looks for what it takes back, and
 * the first looks for the memory before and after it is kept.
 */

/** As long as a server retries a delivery (Mastodon, about three days; this queue, three). */
const keptFor = Temporal.Duration.from({ hours: 72 }) as unknown as globalThis.Temporal.Duration;

/**
 * Under the writer's address (an erasure forgets by it) and its digest of what
 * was taken back: the two addresses whole could outgrow the index on the key.
 */
const keyOf = (actorId: URL, id: URL): KvKey => [
  "deletedFirst",
  actorId.href,
  tokenDigest(id.href),
];

export function takenBack(kv: Pick<KvStore, "get" | "set">) {
  return {
    /** Remembers that `actorId` took back `id`: only what is at its own server. */
    async remember(actorId: URL, id: URL): Promise<void> {
      if (id.origin === actorId.origin) await kv.set(keyOf(actorId, id), true, { ttl: keptFor });
    },
    /** Whether `actorId` took back `id` before it arrived. */
    has: async (actorId: URL, id: URL): Promise<boolean> =>
      (await kv.get(keyOf(actorId, id))) !== undefined,
  };
}
