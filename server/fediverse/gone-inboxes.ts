import type { RemoteFetch } from "../lib/safe-fetch.ts";
import type { FediverseRepository } from "./repository.ts";

/*
 * An inbox that answered 410 Gone. An account's own inbox gone means the
 * account is: it leaves the followers. A shared inbox speaks for a whole
 * server, where one mistake would take every follower there; so each account
 * behind it is asked for its own document, and only those that answer 410
 * too leave. An account that answers anything else, or cannot be reached,
 * stays: its server may come back.
 */

/** How many accounts behind one shared inbox are asked at a time. */
const asked = 4;
/**
 * How many are asked at one 410: each may take its ten seconds, so forty fit
 * in the queue's run of two minutes (message-queue.ts), however many accounts
 * a server made follow the site. The others stay, asked at its next 410.
 */
const askedAtMost = 40;

export async function removeGoneFollowers(
  { inbox, actorIds }: { inbox: URL; actorIds: readonly URL[] },
  { repository, remoteFetch }: { repository: FediverseRepository; remoteFetch: RemoteFetch },
): Promise<string> {
  const ownInbox = await repository.inboxesOf(actorIds.map((actor) => actor.href));
  let fetched = 0;
  let unasked = 0;
  const gone = async (actor: string) => {
    if (ownInbox.get(actor) === inbox.href) return true;
    if (fetched === askedAtMost) {
      unasked++;
      return false;
    }
    fetched++;
    const answer = await remoteFetch(actor, {
      headers: { accept: "application/activity+json" },
      timeoutMs: 10_000,
      maxBytes: 64 * 1024,
      maxRedirects: 0,
    }).catch(() => null);
    return answer?.status === 410;
  };
  let removed = 0;
  const queue = actorIds.map((actor) => actor.href);
  const worker = async () => {
    for (let actor = queue.shift(); actor; actor = queue.shift()) {
      if ((await gone(actor)) && (await repository.unfollow(actor))) removed++;
    }
  };
  await Promise.all(Array.from({ length: asked }, worker));
  const shared = actorIds.some((actor) => ownInbox.get(actor.href) !== inbox.href);
  return shared
    ? `the shared inbox answered 410; of the ${actorIds.length} accounts behind it, ${removed} answered 410 too and left the followers${unasked ? `; ${unasked} more were not asked and stay until its next 410` : ""}`
    : "the inbox answered 410, so its followers were removed";
}
