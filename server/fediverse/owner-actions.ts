import type { Transaction } from "kysely";
import { indexedBytes } from "../db/columns.ts";
import { inParts, type OwnerActor } from "../db/owner-actor.ts";
import type { Database } from "../db/schema.ts";
import { serverNamesOf } from "./blocks.ts";
import type { FediverseRepository, Follower } from "./repository.ts";
import type { Webmentions } from "./webmentions.ts";

/*
 * The owner's actions on the site's Fediverse audience, the same from the
 * console and the command line (docs/architecture.md, "Owner actions"):
 * each acts and writes one line of the audit trail, or none when there was
 * nothing to act on.
 */

/** A host name's label: letters, digits and inner hyphens. */
const label = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";

/**
 * An account (its actor's https address) or a whole server (its host name, with a dot:
 * "mastodon" alone, a slip for "mastodon.social", would block nothing). `dotless` takes
 * one without, to lift a block made before names needed a dot.
 */
function blockTarget(given: string, dotless = false): string | null {
  const value = given.trim();
  if (/^https?:\/\//i.test(value)) {
    const url = URL.parse(value);
    return url && url.href.length <= indexedBytes.link ? url.href : null;
  }
  const host = value.toLowerCase().replace(/^@?[^@\s]*@/, "");
  const labels = dotless ? "*" : "+";
  return new RegExp(`^(?=.{1,253}$)${label}(\\.${label})${labels}(:\\d{1,5})?$`).test(host)
    ? host
    : null;
}

/** What erasing an account took away. */
export type Erased = {
  actorId: string;
  comments: number;
  followed: boolean;
  reactions: number;
  mentions: number;
};

/**
 * The addresses an account's webmentions would name it by, and the prefixes
 * of its posts' pages: its actor address, and for each handle it went by on
 * its own server, the profile page Mastodon and most others give it.
 */
function addressesOf(actorId: string, handles: string[]) {
  const { origin, host } = new URL(actorId);
  const profiles = handles
    .map((handle) => /^@([^@\s/]+)@([^@\s/]+)$/.exec(handle))
    .filter((match) => match !== null && match[2]?.toLowerCase() === host.toLowerCase())
    .map((match) => `${origin}/@${match?.[1]}`);
  const authors = [...new Set([actorId, ...profiles])];
  return { authors, sources: authors.map((address) => `${address}/`) };
}

export function fediverseActions({
  repository,
  webmentions,
  comments,
  forgetCached,
  answersErased,
  changed = () => {},
  followerRemoved = () => {},
  blocksChanged = async () => {},
}: {
  repository: FediverseRepository;
  /** Mentions from other sites, which the owner lets through or removes. */
  webmentions: Pick<Webmentions, "approve" | "remove" | "removeFrom">;
  /** The comments' removal, as a reader's own deletion (server/comments/removal.ts). */
  comments: { removeAllBy(visitorId: string): Promise<number> };
  /** Forgets what Fedify cached of an account: its documents and keys (kv-store.ts). */
  forgetCached: (actorId: string) => Promise<void>;
  /**
   * Queues the owner's answers to an erased account (their comments' ids) to
   * be taken back from the Fediverse, by a server (message-queue.ts, `TakeBack`).
   */
  answersErased: (answers: number[], actorId: string) => Promise<void>;
  /** What an item shows changed: its likes, boosts or webmentions. */
  changed?: (itemPath: string) => void;
  /** Tells the follower's server it no longer follows (a Reject of its Follow). */
  followerRemoved?: (follower: { actorId: string; inbox: string; followId: string }) => void;
  /** A block or unblock committed: this instance's inbox reads the blocks again (blocks.ts). */
  blocksChanged?: () => Promise<void>;
}) {
  /**
   * The followers `match` names, removed in `trx` (the whole store's when
   * none); their servers are told by `told` once it has committed.
   */
  async function removeFollowers(match: (actorId: string) => boolean, trx?: Transaction<Database>) {
    const removed: Follower[] = [];
    for (const follower of await repository.followers(trx)) {
      if (match(follower.actorId) && (await repository.unfollow(follower.actorId, undefined, trx)))
        removed.push(follower);
    }
    return removed;
  }

  /** Tells each removed follower's server (a remote call, after the commit); how many. */
  function told(removed: Follower[]): number {
    for (const follower of removed) followerRemoved(follower);
    return removed.length;
  }

  /** Whether the owner's block or erasure of `actorId` is in the audit trail. */
  const isInTrail = async (by: OwnerActor, actorId: string) =>
    (await by.wrote("fediverse erase", actorId)) || (await by.wrote("fediverse block", actorId));

  return {
    /** Stops an account following the site; false when it did not. */
    async removeFollower(by: OwnerActor, actorId: string): Promise<boolean> {
      const removed = await by.act(
        (trx) => removeFollowers((id) => id === actorId, trx),
        (gone) => gone.length > 0 && ["fediverse follower remove", actorId],
      );
      return told(removed) > 0;
    },

    /**
     * Blocks an account or a server: whatever it sends is dropped from now
     * on, and it no longer follows the site. "invalid" for something that
     * is neither; false when it was blocked already.
     */
    async block(by: OwnerActor, given: string): Promise<boolean | "invalid"> {
      const target = blockTarget(given);
      if (!target) return "invalid";
      const isServer = !target.includes("/");
      const { added, removed } = await by.act(
        async (trx) => ({
          added: await repository.block(target, trx),
          removed: await removeFollowers(
            (actorId) => (isServer ? serverNamesOf(actorId).includes(target) : actorId === target),
            trx,
          ),
        }),
        (done) => done.added && ["fediverse block", target],
      );
      if (added) await blocksChanged();
      told(removed);
      return added;
    },

    /**
     * Erases a Fediverse account from the site in one step, for someone who
     * asks to be forgotten or a spammer: named by its address or by one of
     * its comments. Blocked first, so nothing it sent that is still on its
     * way brings anything back; then its comments and replies go as a
     * reader's own deletion does (live events, the journal, the outbox,
     * caches, pictures), and its follow, likes, boosts, webmentions and
     * what Fedify cached of it; the owner's answers to it are taken back
     * from the Fediverse. The block stays until the owner lifts it.
     * "invalid" for something that is not an account's address; "not_found"
     * for a comment that did not come from the Fediverse; false when there
     * was nothing left to erase and it was blocked already, by a block or an
     * erasure in the audit trail. Its parts commit one by one (the comments'
     * live events, the queue, Fedify's cache), so the line follows the last:
     * run again after a failure, it finishes and writes it.
     */
    erase: inParts(
      async (
        by: OwnerActor,
        given: { actor: string } | { commentId: number },
      ): Promise<Erased | "invalid" | "not_found" | false> => {
        let actorId: string | null;
        if ("commentId" in given) {
          actorId = await repository.actorOfComment(given.commentId);
          if (!actorId) return "not_found";
        } else {
          actorId = blockTarget(given.actor);
          if (!actorId?.includes("/")) return "invalid";
        }
        const { authors, sources } = addressesOf(actorId, await repository.handlesOf(actorId));
        const blocked = await repository.block(actorId);
        if (blocked) await blocksChanged();
        const target = actorId;
        const followed = told(await removeFollowers((id) => id === target)) > 0;
        // Before the comments, whose writers' records find the owner's answers to them.
        const forgotten = await repository.forgetActor(actorId);
        await answersErased(forgotten.answers, actorId);
        let removed = 0;
        for (const writer of await repository.writersOf(actorId)) {
          removed += await comments.removeAllBy(writer);
        }
        for (const path of forgotten.paths) changed(path);
        const mentions = await webmentions.removeFrom(authors, sources);
        await forgetCached(actorId);
        // An erasure whose line failed left its block and no line: this one finishes it.
        const left = blocked || followed || removed + forgotten.reactions + mentions > 0;
        if (!left && (await isInTrail(by, actorId))) return false;
        await by.audit("fediverse erase", actorId);
        return { actorId, comments: removed, followed, reactions: forgotten.reactions, mentions };
      },
    ),

    /**
     * Throws the account's key pairs away, as after a leak: the next start
     * makes new ones and sends the account to followers' servers with them
     * (publishing.ts, sendAccountUpdate). False when it had none yet.
     */
    rotateKeys: async (by: OwnerActor): Promise<boolean> =>
      (await by.act(
        (trx) => repository.forgetKeys(trx),
        (forgotten) => forgotten > 0 && ["fediverse rotate-keys"],
      )) > 0,

    async unblock(by: OwnerActor, given: string): Promise<boolean | "invalid"> {
      const target = blockTarget(given, true);
      if (!target) return "invalid";
      const done = await by.act(
        (trx) => repository.unblock(target, trx),
        (unblocked) => unblocked && ["fediverse unblock", target],
      );
      if (done) await blocksChanged();
      return done;
    },

    /**
     * Shows a verified webmention under its item, with its line; the item's
     * page is refreshed once both have committed. False when none waits by
     * that id.
     */
    async approveMention(by: OwnerActor, id: number): Promise<boolean> {
      const path = await by.act(
        (trx) => webmentions.approve(id, trx),
        (shownOn) => shownOn !== undefined && ["webmention approve", String(id)],
      );
      if (path !== undefined) changed(path);
      return path !== undefined;
    },

    /** Deletes a webmention, shown or waiting, as approveMention; false when there is none by that id. */
    async removeMention(by: OwnerActor, id: number): Promise<boolean> {
      const gone = await by.act(
        (trx) => webmentions.remove(id, trx),
        (row) => row !== undefined && ["webmention remove", String(id)],
      );
      if (gone?.status === "published") changed(gone.path);
      return gone !== undefined;
    },
  };
}
