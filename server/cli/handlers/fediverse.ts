import { plural } from "../../../contract/plural.ts";
import { createKvStore } from "../../fediverse/kv-store.ts";
import { enqueueMessages, type TakeBack } from "../../fediverse/message-queue.ts";
import { type Erased, fediverseActions } from "../../fediverse/owner-actions.ts";
import { createFediverseRepository } from "../../fediverse/repository.ts";
import { mentionRecords } from "../../fediverse/webmention-records.ts";
import { type CommandContext, ownerAction, parseId, usageError } from "../command.ts";
import { listed, listedPages } from "../table.ts";

/*
 * The owner's Fediverse audience from the command line (docs/fediverse.md,
 * "Blocking"). The command line sends nothing itself: a removed or blocked
 * follower is simply sent nothing more, and an erasure's Deletes are queued
 * for a server to send.
 */

const repositoryOf = async (context: CommandContext) =>
  createFediverseRepository(await context.store());
const actionsOf = async (context: CommandContext) => {
  const store = await context.store();
  const kv = createKvStore(store);
  return fediverseActions({
    repository: createFediverseRepository(store),
    webmentions: mentionRecords(store),
    comments: (await context.engagement()).comments,
    forgetCached: (actorId) => kv.forgetAbout(actorId),
    answersErased: async (answers, writer) => {
      if (answers.length === 0) return;
      const takeBack: TakeBack = { type: "ewe:take-back", answers, writer };
      await enqueueMessages(store.db, [takeBack]);
    },
  });
};

const argument = ({ positionals }: CommandContext) => ({ target: positionals[0] ?? "" });

function valid<T>(done: T | "invalid"): T {
  if (done === "invalid") {
    throw usageError(
      "Give an account's address (https://…) or a server's host name (mastodon.social).",
    );
  }
  return done;
}

export const fediverseFollowers = listedPages(
  async (context, page) => (await repositoryOf(context)).followersPage(page),
  ["handle", "name", "followed_at", "actor"],
  (f) => [f.handle, f.name ?? "", f.followedAt, f.actorId],
);

export const fediverseBlocks = listed(
  async (context) => (await repositoryOf(context)).blocks(),
  ["target", "blocked_at"],
  (b) => [b.target, b.blockedAt],
);

export const fediverseRemove = ownerAction(
  argument,
  async (context, { target }) => (await actionsOf(context)).removeFollower(context.actor, target),
  ({ target }) => `${target} no longer follows the site.\n`,
  ({ target }) => `${target} does not follow the site.`,
);

export const fediverseBlock = ownerAction(
  argument,
  async (context, { target }) =>
    valid(await (await actionsOf(context)).block(context.actor, target)),
  ({ target }) =>
    `Blocked ${target}: what it sends is dropped, and it no longer follows the site.\n`,
  ({ target }) => `${target} was blocked already.`,
);

export const fediverseErase = ownerAction(
  ({ positionals, values }) => {
    const byComment = typeof values.comment === "string";
    if (byComment === positionals.length > 0) {
      throw usageError("Give either an account's address (https://…) or --comment ID.");
    }
    return byComment
      ? { commentId: parseId(values.comment as string, "--comment") }
      : { actor: positionals[0] ?? "" };
  },
  async (context, given) => {
    const done = await (await actionsOf(context)).erase(context.actor, given);
    if (done === "invalid") throw usageError("Give an account's address (https://…).");
    return done;
  },
  (_given, erased: Erased) =>
    `Erased ${erased.actorId}: ${plural(erased.comments, "comment")}, ${erased.followed ? "its follow, " : ""}${plural(erased.reactions, "like or boost", "likes and boosts")} and ${plural(erased.mentions, "webmention")} deleted; it stays blocked until "fediverse unblock".\n`,
  (given) =>
    "commentId" in given
      ? `Comment ${given.commentId} did not come from the Fediverse.`
      : `There was nothing of ${given.actor} left to erase, and it was blocked already.`,
);

export const fediverseRotateKeys = ownerAction(
  () => ({}),
  async (context) => (await actionsOf(context)).rotateKeys(context.actor),
  () =>
    "The site's Fediverse keys are gone. Restart the server (every instance): it makes new ones and sends them to its followers' servers.\n",
  () => "The site has no Fediverse keys yet: they are made when it is first followed.",
);

export const fediverseUnblock = ownerAction(
  argument,
  async (context, { target }) =>
    valid(await (await actionsOf(context)).unblock(context.actor, target)),
  ({ target }) => `Unblocked ${target}.\n`,
  ({ target }) => `${target} was not blocked.`,
);

export const webmentionsList = listed(
  async ({ store }) => mentionRecords(await store()).list(),
  ["id", "status", "kind", "item", "source", "author", "received_at"],
  (m) => [
    m.id,
    m.status,
    m.kind,
    m.path,
    m.source,
    m.authorName ?? m.authorUrl ?? "",
    m.receivedAt,
  ],
);

const mentionId = ({ positionals }: CommandContext) => {
  const given = positionals[0] ?? "";
  if (!/^\d{1,10}$/.test(given))
    throw usageError('Give a webmention\'s id (see "webmentions list").');
  return { id: Number(given) };
};

export const webmentionsApprove = ownerAction(
  mentionId,
  async (context, { id }) => (await actionsOf(context)).approveMention(context.actor, id),
  ({ id }) => `Webmention ${id} shows under its item.\n`,
  ({ id }) => `No verified webmention ${id} waits for approval.`,
);

export const webmentionsRemove = ownerAction(
  mentionId,
  async (context, { id }) => (await actionsOf(context)).removeMention(context.actor, id),
  ({ id }) => `Webmention ${id} is deleted.\n`,
  ({ id }) => `There is no webmention ${id}.`,
);
