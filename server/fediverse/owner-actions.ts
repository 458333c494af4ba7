import type { OwnerActor } from "../lib/owner-actor.ts";
import { type FediverseRepository, serverNamesOf } from "./repository.ts";
import type { Webmentions } from "./webmentions.ts";

/*
 * The owner's actions on the site's Fediverse audience, the same from the
 * console and the command line (docs/architecture.md, "Owner actions"):
 * each acts and writes one line of the audit trail, or none when there was
 * nothing to act on.
 */

/** An account (its actor's https address) or a whole server (its host name). */
export function blockTarget(given: string): string | null {
  const value = given.trim();
  if (/^https?:\/\//i.test(value)) {
    try {
      const url = new URL(value);
      return url.href.length <= 2000 ? url.href : null;
    } catch {
      return null;
    }
  }
  const host = value.toLowerCase().replace(/^@?[^@\s]*@/, "");
  return /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/.test(
    host,
  )
    ? host
    : null;
}

export function fediverseActions({
  repository,
  webmentions,
  followerRemoved = () => {},
}: {
  repository: FediverseRepository;
  /** Mentions from other sites, which the owner lets through or removes. */
  webmentions: Pick<Webmentions, "approve" | "remove">;
  /** Tells the follower's server it no longer follows (a Reject of its Follow). */
  followerRemoved?: (follower: { actorId: string; inbox: string; followId: string }) => void;
}) {
  async function removeFollowers(match: (actorId: string) => boolean): Promise<number> {
    let removed = 0;
    for (const follower of await repository.followers()) {
      if (!match(follower.actorId)) continue;
      const followId = await repository.followIdOf(follower.actorId);
      if (await repository.unfollow(follower.actorId)) {
        removed += 1;
        if (followId)
          followerRemoved({ actorId: follower.actorId, inbox: follower.inbox, followId });
      }
    }
    return removed;
  }

  return {
    /** Stops an account following the site; false when it did not. */
    async removeFollower(by: OwnerActor, actorId: string): Promise<boolean> {
      if ((await removeFollowers((id) => id === actorId)) === 0) return false;
      await by.audit("fediverse follower remove", actorId);
      return true;
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
      const added = await repository.block(target);
      await removeFollowers((actorId) =>
        isServer ? serverNamesOf(actorId).includes(target) : actorId === target,
      );
      if (!added) return false;
      await by.audit("fediverse block", target);
      return true;
    },

    async unblock(by: OwnerActor, given: string): Promise<boolean | "invalid"> {
      const target = blockTarget(given);
      if (!target) return "invalid";
      if (!(await repository.unblock(target))) return false;
      await by.audit("fediverse unblock", target);
      return true;
    },

    /** Shows a verified webmention under its item; false when none waits by that id. */
    async approveMention(by: OwnerActor, id: number): Promise<boolean> {
      if (!(await webmentions.approve(id))) return false;
      await by.audit("webmention approve", String(id));
      return true;
    },

    /** Deletes a webmention, shown or waiting; false when there is none by that id. */
    async removeMention(by: OwnerActor, id: number): Promise<boolean> {
      if (!(await webmentions.remove(id))) return false;
      await by.audit("webmention remove", String(id));
      return true;
    },
  };
}

export type FediverseActions = ReturnType<typeof fediverseActions>;
