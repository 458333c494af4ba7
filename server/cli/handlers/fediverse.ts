import { fediverseActions } from "../../fediverse/owner-actions.ts";
import { createFediverseRepository } from "../../fediverse/repository.ts";
import { toTsv } from "../../lib/csv.ts";
import { type CommandContext, exitCodes, ownerAction, usageError } from "../command.ts";

/*
 * The owner's Fediverse audience from the command line (docs/fediverse.md,
 * "Blocking"). The command line sends nothing itself: a removed or blocked
 * follower is simply sent nothing more.
 */

const repositoryOf = async (context: CommandContext) =>
  createFediverseRepository(await context.store());
const actionsOf = async (context: CommandContext) =>
  fediverseActions({ repository: await repositoryOf(context) });

const argument = ({ positionals }: CommandContext) => ({ target: positionals[0] ?? "" });

function valid<T>(done: T | "invalid"): T {
  if (done === "invalid") {
    throw usageError(
      "Give an account's address (https://…) or a server's host name (mastodon.social).",
    );
  }
  return done;
}

/** `fediverse followers` (commands/fediverse.ts). */
export async function fediverseFollowers(context: CommandContext): Promise<number> {
  const followers = await (await repositoryOf(context)).followers();
  if (context.values.json) {
    context.stdout.write(`${JSON.stringify(followers, null, 2)}\n`);
  } else {
    context.stdout.write(
      toTsv([
        ["handle", "name", "followed_at", "actor"],
        ...followers.map((f) => [f.handle, f.name ?? "", f.followedAt, f.actorId]),
      ]),
    );
  }
  return exitCodes.ok;
}

/** `fediverse blocks` (commands/fediverse.ts). */
export async function fediverseBlocks(context: CommandContext): Promise<number> {
  const blocks = await (await repositoryOf(context)).blocks();
  if (context.values.json) {
    context.stdout.write(`${JSON.stringify(blocks, null, 2)}\n`);
  } else {
    context.stdout.write(
      toTsv([["target", "blocked_at"], ...blocks.map((b) => [b.target, b.blockedAt])]),
    );
  }
  return exitCodes.ok;
}

/** `fediverse remove` (commands/fediverse.ts). */
export const fediverseRemove = ownerAction(
  argument,
  async (context, { target }) => (await actionsOf(context)).removeFollower(context.actor, target),
  ({ target }) => `${target} no longer follows the site.\n`,
  ({ target }) => `${target} does not follow the site.`,
);

/** `fediverse block` (commands/fediverse.ts). */
export const fediverseBlock = ownerAction(
  argument,
  async (context, { target }) =>
    valid(await (await actionsOf(context)).block(context.actor, target)),
  ({ target }) =>
    `Blocked ${target}: what it sends is dropped, and it no longer follows the site.\n`,
  ({ target }) => `${target} was blocked already.`,
);

/** `fediverse unblock` (commands/fediverse.ts). */
export const fediverseUnblock = ownerAction(
  argument,
  async (context, { target }) =>
    valid(await (await actionsOf(context)).unblock(context.actor, target)),
  ({ target }) => `Unblocked ${target}.\n`,
  ({ target }) => `${target} was not blocked.`,
);
