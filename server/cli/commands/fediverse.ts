import { group } from "../command.ts";

const handlers = () => import("../handlers/fediverse.ts");

export const fediverseCommands = group(handlers, [
  {
    name: "fediverse followers",
    usage: "[--json]",
    summary: "the Fediverse accounts that follow the site",
    help: `Lists the accounts that follow the site on the Fediverse, newest first, as
tab-separated columns: handle, name, followed_at, actor (the account's address,
which "fediverse block" and "fediverse remove" take).

  --json   one JSON array instead, for scripts`,
  },
  {
    name: "fediverse remove",
    usage: "ACTOR",
    summary: "stop an account following the site",
    help: `Stops the account at address ACTOR (see "fediverse followers") following the
site: it is sent nothing more. It can follow again; "fediverse block" stops that.
Exit code 3 when it did not follow.`,
  },
  {
    name: "fediverse block",
    usage: "ACTOR | HOST",
    summary: "block an account or a whole server",
    help: `Blocks an account (its address, https://…) or a whole server (its host name,
mastodon.social): whatever it sends is dropped from now on, its replies no
longer become comments, and it no longer follows the site. Exit code 3 when it
was blocked already.`,
  },
  {
    name: "fediverse erase",
    usage: "ACTOR | --comment ID",
    summary: "erase a Fediverse account from the site, and block it",
    help: `Erases everything the site holds of one Fediverse account, for someone who
asks to be forgotten or a spammer: named by its address (https://…, see
"fediverse followers") or by a comment it wrote (see "comments list"). The
account is blocked first, so nothing it sent that is still on its way
brings anything back; then its comments and replies are deleted as a
reader's own deletion does (open pages update live, a comment with others'
replies under it keeps its place as "Comment deleted"), with their pictures
and handles, and its follow, likes, boosts, webmentions and the copy of its
profile and keys. Your answers to it stay here and leave the Fediverse, a
Delete of each naming nobody: the command queues them, and a running server
sends them within a minute, or the next to start does. The block stays
until "fediverse unblock". Exit code 3 when the comment did not come from
the Fediverse, or when nothing was left and the account was blocked already.

  --comment ID   a comment the account wrote`,
  },
  {
    name: "fediverse rotate-keys",
    usage: "",
    summary: "throw the site's Fediverse keys away, for new ones at the next start",
    help: `Deletes the key pairs that sign what the site sends on the Fediverse, as after
a leak of the database or a backup. Restart the server (every instance, since
each keeps the keys it loaded): the first to start makes new ones and sends the
account, with its new public key, to every follower's server as an Update, so
they check what it sends against the new key. Exit code 3 when there were no
keys yet.`,
  },
  {
    name: "fediverse unblock",
    usage: "ACTOR | HOST",
    summary: "lift a block",
    help: `Lifts the block on an account or a server. Exit code 3 when there was none.`,
  },
  {
    name: "fediverse blocks",
    usage: "[--json]",
    summary: "the blocked accounts and servers",
    help: `Lists the blocked accounts and servers, newest first: target, blocked_at.

  --json   one JSON array instead, for scripts`,
  },
  {
    name: "webmentions list",
    usage: "[--json]",
    summary: "the webmentions other sites sent",
    help: `Lists the webmentions received, newest first: id, status (unverified: not
checked yet; pending: verified, waiting for you; published: shown under the
item), kind (reply, like, repost, mention), item, source, author, received_at.

  --json   one JSON array instead, for scripts`,
  },
  {
    name: "webmentions approve",
    usage: "ID",
    summary: "show a verified webmention under its item",
    help: `Shows the verified webmention ID (see "webmentions list") under its item; pages
show it within a minute. Exit code 3 when no verified webmention of that id
waits for approval.`,
  },
  {
    name: "webmentions remove",
    usage: "ID",
    summary: "delete a webmention",
    help: `Deletes the webmention ID, shown or waiting. Its source can send it again,
and it is checked again. Exit code 3 when there is none.`,
  },
]);
