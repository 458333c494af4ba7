import { loadEngagementCatalog } from "../../../content/catalog.ts";
import { toTsv } from "../../lib/csv.ts";
import { audited, type Command, exitCodes, parseId, usageError } from "../command.ts";
import { AdminError } from "../sqlite-files.ts";

/** `2025-06-01` (midnight UTC) or a full ISO-8601 time. */
function parseSince(value: string): Date {
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw usageError(`--since must be a date like 2025-06-01 or 2025-06-01T12:00:00Z.`);
  }
  return date;
}

export const commentCommands: Command[] = [
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
    options: {
      post: { type: "string" },
      since: { type: "string" },
      json: { type: "boolean" },
    },
    async run({ values, stdout, engagement }) {
      const since = typeof values.since === "string" ? parseSince(values.since) : undefined;
      const comments = await (await engagement()).comments.listForOwner({
        ...(typeof values.post === "string" ? { postId: values.post } : {}),
        ...(since ? { since } : {}),
      });
      // A post removed from the content keeps its comments; a mistyped id has none.
      const post = values.post;
      if (
        typeof post === "string" &&
        comments.length === 0 &&
        !loadEngagementCatalog().science.has(post)
      ) {
        throw new AdminError(
          `There is no science post "${post}". Its id is the last part of its address: /science/<id>.`,
          exitCodes.notFound,
        );
      }
      if (values.json) {
        stdout.write(`${JSON.stringify(comments, null, 2)}\n`);
      } else {
        stdout.write(
          toTsv([
            ["id", "post", "created_at", "name", "comment", "status", "reply_to"],
            ...comments.map((c) => [
              String(c.id),
              c.postId,
              c.createdAt,
              c.userName,
              c.content,
              c.status,
              c.parentId === null ? "" : String(c.parentId),
            ]),
          ]),
        );
      }
      return exitCodes.ok;
    },
  },
  {
    name: "comments delete",
    usage: "ID",
    summary: "delete a comment; open pages see it disappear",
    help: `Deletes the comment with this id (see "comments list"), whoever wrote it.
Readers who have the post open see it disappear: on PostgreSQL at once, on
SQLite within about a second (the server reads the events other processes
record). Exit code 3 when there is no such comment.`,
    arguments: ["ID"],
    async run({ positionals, stdout, engagement, store }) {
      const id = parseId(positionals[0], "The comment id");
      if (!(await (await engagement()).comments.removeAsOwner(id))) {
        throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
      }
      await audited(store, "comment delete", String(id));
      stdout.write(`Deleted comment ${id}.\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "comments pending",
    usage: "[--json]",
    summary: "comments waiting for your approval (MODERATION=first or all)",
    help: `Lists the comments that wait for your approval, oldest first, as
tab-separated columns: id, post, created_at, name, comment, reply_to (the
comment a reply answers). Only their writers
see them, marked "Awaiting approval", until you approve or reject them.

  --json   one JSON array instead, for scripts`,
    options: { json: { type: "boolean" } },
    async run({ values, stdout, moderation }) {
      const pending = await (await moderation()).listPending();
      if (values.json) {
        stdout.write(`${JSON.stringify(pending, null, 2)}\n`);
      } else {
        stdout.write(
          toTsv([
            ["id", "post", "created_at", "name", "comment", "reply_to"],
            ...pending.map((c) => [
              String(c.id),
              c.postId,
              c.createdAt,
              c.userName,
              c.content,
              c.parentId === null ? "" : String(c.parentId),
            ]),
          ]),
        );
      }
      return exitCodes.ok;
    },
  },
  {
    name: "comments approve",
    usage: "ID",
    summary: "publish a held comment; open pages show it",
    help: `Publishes a comment that waits for approval (see "comments pending"), or one
the honeypot caught that you judge a person's. Readers who have the post open
see it appear. Its writer is approved too: under MODERATION=first their later
comments are published at once. Exit code 3 when there is no such comment.`,
    arguments: ["ID"],
    async run({ positionals, stdout, moderation, store }) {
      const id = parseId(positionals[0], "The comment id");
      const outcome = await (await moderation()).approveComment(id);
      if (outcome === "not_found") {
        throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
      }
      if (outcome === "approved") await audited(store, "comment approve", String(id));
      stdout.write(
        outcome === "approved"
          ? `Approved comment ${id}: every reader sees it now.\n`
          : `Comment ${id} was already published.\n`,
      );
      return exitCodes.ok;
    },
  },
  {
    name: "comments reject",
    usage: "ID",
    summary: "remove a held comment, for its writer too",
    help: `Removes a comment that waits for approval: it disappears from its writer's
page too, live. (On a published comment it does what "comments delete" does.)
Exit code 3 when there is no such comment.`,
    arguments: ["ID"],
    async run({ positionals, stdout, moderation, store }) {
      const id = parseId(positionals[0], "The comment id");
      if ((await (await moderation()).rejectComment(id)) === "not_found") {
        throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
      }
      await audited(store, "comment reject", String(id));
      stdout.write(`Rejected comment ${id}.\n`);
      return exitCodes.ok;
    },
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
    arguments: ["ID"],
    async run({ positionals, stdout, moderation, store }) {
      const id = parseId(positionals[0], "The comment id");
      const outcome = await (await moderation()).markSpam(id);
      if (outcome === "not_found") {
        throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
      }
      if (outcome === "marked") await audited(store, "comment spam", String(id));
      stdout.write(
        outcome === "marked"
          ? `Marked comment ${id} as spam: readers no longer see it, and the filter learnt from it.\n`
          : `Comment ${id} was already marked as spam.\n`,
      );
      return exitCodes.ok;
    },
  },
];
