import { group } from "../command.ts";

const handlers = () => import("../handlers/visitors.ts");

export const visitorCommands = group(handlers, [
  {
    name: "visitor ban",
    usage: "--comment ID [--scope browser|address] [--days N]",
    summary:
      "refuse the writer of a comment (their browser, or their address) for N days or for good",
    help: `Refuses the visitor who wrote comment ID every new comment, reply, edit and
reaction. By default it names their browser's credential, wherever it
connects from; --scope address names that browser and every other at the
address the comment was sent from: an office or a mobile carrier may put
many readers behind one address, so keep it for a writer who keeps coming
back in new browsers. They are told, politely and without detail, that
writing is not accepted from their browser or connection. Their comments
stay: "visitor purge" removes them. Bans hold across restarts and on every
instance; "visitor bans" lists them.

  --comment ID       a comment of the visitor (see "comments list")
  --scope browser    their browser only (the default)
  --scope address    their browser and everyone at the comment's address
                     (comments written before bans existed name none)
  --days N           lift the ban by itself after N days, 1 to 3650 (default: until
                     "visitor unban")`,
  },
  {
    name: "visitor unban",
    usage: "--comment ID | --ban ID",
    summary: "lift a ban",
    help: `Lifts a ban at once: the one numbered ID (see "visitor bans"), or every ban
in force on the writer of comment ID. Exit code 3 when there was none to lift.

  --ban ID       the ban's number
  --comment ID   a comment of the banned visitor`,
  },
  {
    name: "visitor bans",
    usage: "[--json]",
    summary: "the bans in force",
    help: `Lists the bans in force, oldest first, as tab-separated columns: id, comment
(the comment named when banning), created_at, expires_at ("never": until
lifted), covers (browser, or browser+address).

  --json   one JSON array instead, for scripts`,
  },
  {
    name: "visitor purge",
    usage: "--comment ID",
    summary: "remove every comment and reaction of one visitor",
    help: `Abuse clean-up. Visitors are anonymous, so one is named by a comment they
wrote: this removes every comment and every reaction of the visitor (the
browser) that wrote comment ID, under whatever names they used. Open pages
update live. Exit code 3 when there is no such comment.

  --comment ID   a comment of the visitor (see "comments list")`,
  },
]);
