import { type Command, lazily } from "../command.ts";

const handlers = () => import("../handlers/fediverse.ts");

export const fediverseCommands: Command[] = [
  {
    name: "fediverse followers",
    usage: "[--json]",
    summary: "the Fediverse accounts that follow the site",
    help: `Lists the accounts that follow the site on the Fediverse, newest first, as
tab-separated columns: handle, name, followed_at, actor (the account's address,
which "fediverse block" and "fediverse remove" take).

  --json   one JSON array instead, for scripts`,
    options: { json: { type: "boolean" } },
    run: lazily(handlers, "fediverseFollowers"),
  },
  {
    name: "fediverse remove",
    arguments: ["ACTOR"],
    usage: "ACTOR",
    summary: "stop an account following the site",
    help: `Stops the account at address ACTOR (see "fediverse followers") following the
site: it is sent nothing more. It can follow again; "fediverse block" stops that.
Exit code 3 when it did not follow.`,
    run: lazily(handlers, "fediverseRemove"),
  },
  {
    name: "fediverse block",
    arguments: ["TARGET"],
    usage: "ACTOR | HOST",
    summary: "block an account or a whole server",
    help: `Blocks an account (its address, https://…) or a whole server (its host name,
mastodon.social): whatever it sends is dropped from now on, its replies no
longer become comments, and it no longer follows the site. Exit code 3 when it
was blocked already.`,
    run: lazily(handlers, "fediverseBlock"),
  },
  {
    name: "fediverse unblock",
    arguments: ["TARGET"],
    usage: "ACTOR | HOST",
    summary: "lift a block",
    help: `Lifts the block on an account or a server. Exit code 3 when there was none.`,
    run: lazily(handlers, "fediverseUnblock"),
  },
  {
    name: "fediverse blocks",
    usage: "[--json]",
    summary: "the blocked accounts and servers",
    help: `Lists the blocked accounts and servers, newest first: target, blocked_at.

  --json   one JSON array instead, for scripts`,
    options: { json: { type: "boolean" } },
    run: lazily(handlers, "fediverseBlocks"),
  },
  {
    name: "webmentions list",
    usage: "[--json]",
    summary: "the webmentions other sites sent",
    help: `Lists the webmentions received, newest first: id, status (unverified: not
checked yet; pending: verified, waiting for you; published: shown under the
item), kind (reply, like, repost, mention), item, source, author, received_at.

  --json   one JSON array instead, for scripts`,
    options: { json: { type: "boolean" } },
    run: lazily(handlers, "webmentionsList"),
  },
  {
    name: "webmentions approve",
    arguments: ["ID"],
    usage: "ID",
    summary: "show a verified webmention under its item",
    help: `Shows the verified webmention ID (see "webmentions list") under its item; pages
show it within a minute. Exit code 3 when no verified webmention of that id
waits for approval.`,
    run: lazily(handlers, "webmentionApprove"),
  },
  {
    name: "webmentions remove",
    arguments: ["ID"],
    usage: "ID",
    summary: "delete a webmention",
    help: `Deletes the webmention ID, shown or waiting. Its source can send it again,
and it is checked again. Exit code 3 when there is none.`,
    run: lazily(handlers, "webmentionRemove"),
  },
];
