import type { InboxContext } from "@fedify/fedify";
import type { Actor } from "@fedify/fedify/vocab";
import type { CommentsRepository } from "../comments/repository.ts";
import type { RemoteFetch } from "../lib/safe-fetch.ts";
import type { CommentDefences } from "../moderation/defences.ts";
import type { Logger } from "./logging.ts";
import { handleOf, remoteName } from "./note-text.ts";
import { writerPicture } from "./pictures.ts";
import { type FediverseRepository, visitorOfActor } from "./repository.ts";

/** What an account's changes touch (the inbox's deps, inbox.ts). */
type AccountDeps = {
  repository: Pick<
    FediverseRepository,
    "renameFollower" | "repliesByActor" | "forgetActor" | "forgetReply"
  >;
  comments: Pick<CommentsRepository, "getForOwner" | "remove" | "renameRemoteWriter">;
  defences: Pick<CommentDefences, "nameRefusal">;
  remoteFetch: RemoteFetch;
  log: Pick<Logger, "info" | "warn">;
  changed: (itemPath: string) => void;
  forgetCached: (actorId: string) => Promise<void>;
  answersErased: (answers: number[], actorId: null) => Promise<void>;
};

/**
 * What the inbox does with a remote account as a whole: it is renamed on its
 * server (an Update of the account), or deleted there (its Delete, or its key
 * answering 410), or one of its replies goes.
 */
export function remoteAccounts(deps: AccountDeps) {
  const { repository, comments, defences, log } = deps;

  async function removeReply(commentId: number, actorId: string) {
    const comment = await comments.getForOwner(commentId);
    await comments.remove({ id: commentId, visitorId: visitorOfActor(actorId) });
    await repository.forgetReply(commentId);
    if (comment) deps.changed(`/science/${comment.postId}`);
  }

  return {
    removeReply,

    /**
     * An account as its server now describes it: its follow and its replies here take
     * its name, handle and picture. A name that reads as the owner's goes by the handle,
     * as on arrival; a handle that does too leaves the replies as they were.
     */
    async renameAccount(ctx: InboxContext<void>, actor: Actor & { id: URL }) {
      const handle = handleOf(actor);
      await repository.renameFollower(actor.id.href, {
        handle,
        name: remoteName(actor.name, ""),
      });
      const given = remoteName(actor.name, handle);
      const name = [given, remoteName(handle, handle)].find(
        (one, i) => !defences.nameRefusal(one, { handle: i === 1 }),
      );
      // Its picture is fetched only for replies to show it on.
      if (!name || (await repository.repliesByActor(actor.id.href)).length === 0) return;
      const avatar = await writerPicture(actor, ctx, deps.remoteFetch, log);
      const posts = await comments.renameRemoteWriter(actor.id.href, { handle, name, avatar });
      for (const postId of posts) deps.changed(`/science/${postId}`);
      log.info({ actor: actor.id.href }, "a Fediverse account's new name was taken");
    },

    /**
     * An account deleted on its server: everything of it here goes (its
     * replies, follow, likes, boosts, what Fedify cached of it); the owner's
     * blocks and bans stay, being the owner's.
     */
    async forgetAccount(actorId: string) {
      const replies = await repository.repliesByActor(actorId);
      const { answers } = await repository.forgetActor(actorId);
      // Its inbox went with it: the owner's answers to it are taken back from followers' servers.
      await deps.answersErased(answers, null);
      for (const reply of replies) await removeReply(reply.comment_id, actorId);
      await deps.forgetCached(actorId);
      log.info({ actor: actorId }, "a deleted Fediverse account was forgotten");
    },
  };
}
