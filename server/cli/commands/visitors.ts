import { plural } from "../../../contract/plural.ts";
import { toTsv } from "../../lib/csv.ts";
import { audited, type Command, exitCodes, parseId, usageError } from "../command.ts";
import { AdminError } from "../sqlite-files.ts";

export const visitorCommands: Command[] = [
  {
    name: "visitor ban",
    usage: "--comment ID [--days N]",
    summary: "refuse the writer of a comment (browser and address) for N days or for good",
    help: `Refuses the visitor who wrote comment ID every new comment, edit and
reaction: their browser's credential, and the address the comment was sent
from (comments written before bans existed name the browser only). They are
told, politely and without detail, that writing is not accepted from their
browser or connection. Their comments stay: "visitor purge" removes them.
Bans hold across restarts and on every instance; "visitor bans" lists them.

  --comment ID   a comment of the visitor (see "comments list")
  --days N       lift the ban by itself after N days (default: until "visitor unban")`,
    options: { comment: { type: "string" }, days: { type: "string" } },
    async run({ values, stdout, moderation, store }) {
      if (typeof values.comment !== "string") throw usageError("--comment ID is required.");
      const id = parseId(values.comment, "--comment");
      let days: number | undefined;
      if (typeof values.days === "string") {
        days = Number(values.days);
        if (!/^\d+$/.test(values.days) || days < 1 || days > 36_500) {
          throw usageError(
            `--days must be a whole number of days from 1 to 36500, not "${values.days}".`,
          );
        }
      }
      const result = await (await moderation()).banVisitorOfComment(id, days);
      if (result === "not_found") {
        throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
      }
      const { ban } = result;
      await audited(store, "visitor ban", `comment ${id}${days ? `, ${plural(days, "day")}` : ""}`);
      stdout.write(
        `Ban ${ban.id}: the writer of comment ${id} (${ban.coversAddress ? "browser and address" : "browser"}) is refused ${ban.expiresAt ? `until ${ban.expiresAt}` : 'until "visitor unban"'}.\n`,
      );
      return exitCodes.ok;
    },
  },
  {
    name: "visitor unban",
    usage: "--comment ID | --ban ID",
    summary: "lift a ban",
    help: `Lifts a ban at once: the one numbered ID (see "visitor bans"), or every ban
in force on the writer of comment ID. Exit code 3 when there was none to lift.

  --ban ID       the ban's number
  --comment ID   a comment of the banned visitor`,
    options: { comment: { type: "string" }, ban: { type: "string" } },
    async run({ values, stdout, moderation, store }) {
      const byComment = typeof values.comment === "string";
      const byBan = typeof values.ban === "string";
      if (byComment === byBan) throw usageError("Give either --comment ID or --ban ID.");
      const lifted = await (await moderation()).unban(
        byBan
          ? { banId: parseId(values.ban as string, "--ban") }
          : { commentId: parseId(values.comment as string, "--comment") },
      );
      if (lifted === 0) throw new AdminError("No ban in force matched.", exitCodes.notFound);
      await audited(
        store,
        "visitor unban",
        byBan ? `ban ${values.ban as string}` : `comment ${values.comment as string}`,
      );
      stdout.write(`Lifted ${plural(lifted, "ban")}.\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "visitor bans",
    usage: "[--json]",
    summary: "the bans in force",
    help: `Lists the bans in force, oldest first, as tab-separated columns: id, comment
(the comment named when banning), created_at, expires_at ("never": until
lifted), covers (browser, or browser+address).

  --json   one JSON array instead, for scripts`,
    options: { json: { type: "boolean" } },
    async run({ values, stdout, moderation }) {
      const bans = await (await moderation()).listBans();
      if (values.json) {
        stdout.write(`${JSON.stringify(bans, null, 2)}\n`);
      } else {
        stdout.write(
          toTsv([
            ["id", "comment", "created_at", "expires_at", "covers"],
            ...bans.map((ban) => [
              String(ban.id),
              ban.commentId === null ? "" : String(ban.commentId),
              ban.createdAt,
              ban.expiresAt ?? "never",
              ban.coversAddress ? "browser+address" : "browser",
            ]),
          ]),
        );
      }
      return exitCodes.ok;
    },
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
    options: { comment: { type: "string" } },
    async run({ values, stdout, engagement, store }) {
      if (typeof values.comment !== "string") throw usageError("--comment ID is required.");
      const id = parseId(values.comment, "--comment");
      const repositories = await engagement();
      const visitorId = await repositories.comments.authorOf(id);
      if (visitorId === null) {
        throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
      }
      const comments = await repositories.comments.removeAllBy(visitorId);
      const reactions = await repositories.reactions.removeAllBy(visitorId);
      await audited(store, "visitor purge", `comment ${id}`);
      stdout.write(
        `Removed ${plural(comments, "comment")} and ${plural(reactions, "reaction")} of the visitor who wrote comment ${id}.\n`,
      );
      return exitCodes.ok;
    },
  },
];
