import { group } from "../command.ts";

const handlers = () => import("../handlers/comments.ts");

export const commentCommands = group(handlers, [
  {
    name: "comments list",
    usage: "[--post ID] [--since DATE] [--json]",
    summary: "comments, oldest first",
    help: `Lists comments, oldest first, as tab-separated columns: id, post, created_at,
name, comment (line breaks shown as \\n), status (published; pending: waiting for
your approval; spam: caught by the honeypot, seen by its sender alone and
forgotten after 30 days), reply_to (for a reply, the id of the comment whose
thread it answers; empty for a comment that starts a thread). A name or comment that starts with
= + - or @ gets a leading ' so that a spreadsheet shows it as text; --json
gives them verbatim.

  --post ID      only the comments of this science post (e.g. wifi)
  --since DATE   only comments written at or after DATE: 2025-06-01 (UTC) or
                 an ISO-8601 time such as 2025-06-01T12:00:00Z
  --json         one JSON array instead, for scripts`,
  },
  {
    name: "comments delete",
    usage: "ID",
    summary: "delete a comment; open pages see it disappear",
    help: `Deletes the comment with this id (see "comments list"), whoever wrote it.
Readers who have the post open see it disappear: on PostgreSQL at once, on
SQLite within about a second (the server reads the events other processes
record). Exit code 3 when there is no such comment.`,
  },
  {
    name: "comments pending",
    usage: "[--json]",
    summary: "comments waiting for your approval (held by MODERATION, links or the filter)",
    help: `Lists the comments that wait for your approval, oldest first, as
tab-separated columns: id, post, created_at, name, comment, reply_to (the
comment a reply answers). Only their writers
see them, marked "Awaiting approval", until you approve or reject them.

  --json   one JSON array instead, for scripts`,
  },
  {
    name: "comments approve",
    usage: "ID",
    summary: "publish a held comment; open pages show it",
    help: `Publishes a comment that waits for approval (see "comments pending"), or one
the honeypot caught that you judge a person's. Readers who have the post open
see it appear. Its writer is approved too: under MODERATION=first their later
comments are published at once. Exit code 3 when there is no such comment.`,
  },
  {
    name: "comments reject",
    usage: "ID",
    summary: "remove a held comment, for its writer too",
    help: `Removes a comment that waits for approval: it disappears from its writer's
page too, live. (On a published comment it does what "comments delete" does.)
Exit code 3 when there is no such comment.`,
  },
  {
    name: "comments spam",
    usage: "ID",
    summary: "mark a comment as spam; the spam filter learns from it",
    help: `Marks a comment as spam: it disappears from every reader's page, live, and
only its writer still sees it, as with what the honeypot catches. The spam
filter learns from it at once, on every instance: after three comments marked
so that name the same new product or site, the next one that names it is held
for you. Exit code 3 when there is no such comment.`,
  },
]);
