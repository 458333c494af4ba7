import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { emailSchema } from "../../contract/api.ts";
import { noReactions } from "../../contract/limits.ts";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { createOwnerRepository } from "../console/owner-repository.ts";
import { migrateToLatest, openStore, type Store } from "../db/store.ts";
import { sqliteFileOf, storeOptionsOf } from "../db/store-config.ts";
import { createEngagement, createEventJournal, type Engagement } from "../engagement/index.ts";
import { newToken } from "../engagement/subscribers-repository.ts";
import { resolveCookieSecret } from "../engagement/visitor.ts";
import { createModeration, type Moderation } from "../moderation/service.ts";
import { createSpamStore } from "../moderation/spam/store.ts";
import { EditionError, readEdition } from "../newsletter/editions.ts";
import { createMailer } from "../newsletter/mailer.ts";
import { editionMail } from "../newsletter/messages.ts";
import { createOutboxRepository } from "../newsletter/outbox-repository.ts";
import { formatTable, toCsv, toTsv } from "./format.ts";
import { AdminError, backupDatabase, restoreDatabase } from "./sqlite-files.ts";

/**
 * The owner's command line (`npm run admin -- <command>`): what the site
 * cannot do by itself. It reads the same environment as the server, works on
 * SQLite and PostgreSQL, and may run while the server does. Its writes go
 * through the repositories, so they record live events like the API's do.
 */

export type Output = { write(text: string): unknown };
export type AdminIo = { env: NodeJS.ProcessEnv; stdout: Output; stderr: Output };

export const exitCodes = { ok: 0, failed: 1, usage: 2, notFound: 3 } as const;

type Values = Record<string, string | boolean | undefined>;

type Context = {
  values: Values;
  positionals: string[];
  config: Config;
  stdout: Output;
  stderr: Output;
  /** The repositories on the configured database, opened on first use. */
  engagement(): Promise<Engagement>;
  /** The configured database itself, opened on first use. */
  store(): Promise<Store>;
  /** The owner's moderation on the configured database (server/moderation/service.ts). */
  moderation(): Promise<Moderation>;
};

type Command = {
  name: string;
  /** What follows the name, for the usage line. */
  usage: string;
  summary: string;
  help: string;
  options?: NonNullable<ParseArgsConfig["options"]>;
  /** Names of the positional arguments, all required unless `argumentsOptional`. */
  arguments?: string[];
  argumentsOptional?: boolean;
  run(context: Context): Promise<number>;
};

const program = "npm run admin --";
const maxId = 2_147_483_647;

/** The command line's changes join the console's in the audit trail, without a session. */
async function audited(store: () => Promise<Store>, action: string, object: string) {
  await createOwnerRepository(await store()).audit(null, action, object);
}

function usageError(message: string): AdminError {
  return new AdminError(message, exitCodes.usage);
}

function parseId(value: string | undefined, what: string): number {
  const id = Number(value);
  if (!/^\d+$/.test(value ?? "") || id < 1 || id > maxId) {
    throw usageError(`${what} must be a positive whole number, not "${value ?? ""}".`);
  }
  return id;
}

/** `2025-06-01` (midnight UTC) or a full ISO-8601 time. */
function parseSince(value: string): Date {
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw usageError(`--since must be a date like 2025-06-01 or 2025-06-01T12:00:00Z.`);
  }
  return date;
}

function sqliteOnly(config: Config, what: string): string {
  if (config.databaseKind !== "sqlite") {
    throw usageError(
      `${what} works on the SQLite database; on PostgreSQL use pg_dump and pg_restore (README, Operating).`,
    );
  }
  return sqliteFileOf(config);
}

/** Writes a file only its owner can read, whole or not at all. */
function writePrivateFile(file: string, text: string): void {
  const partial = `${file}.partial-${process.pid}`;
  try {
    writeFileSync(partial, text, { mode: 0o600 });
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw new AdminError(`Cannot write ${file}: ${(error as Error).message}`);
  }
}

export function unsubscribeUrl(siteUrl: string, token: string): string {
  return `${siteUrl}/unsubscribe?token=${encodeURIComponent(token)}`;
}

function editionOf(file: string) {
  try {
    return readEdition(path.resolve(file));
  } catch (error) {
    if (error instanceof EditionError) throw new AdminError(error.message);
    throw error;
  }
}

const commands: Command[] = [
  {
    name: "subscribers list",
    usage: "[--json]",
    summary: "every address with its state: pending or confirmed",
    help: `Lists every address, oldest first, as tab-separated columns: email, status
(pending until its owner follows the confirmation link, then confirmed),
created_at and confirmed_at. Only confirmed addresses receive editions and
appear in "subscribers export". Pending addresses are forgotten a week after
their last confirmation mail.

  --json   one JSON array instead, for scripts`,
    options: { json: { type: "boolean" } },
    async run({ values, stdout, engagement }) {
      const states = await (await engagement()).subscribers.listStates();
      if (values.json) {
        stdout.write(`${JSON.stringify(states, null, 2)}\n`);
      } else {
        stdout.write(
          toTsv([
            ["email", "status", "created_at", "confirmed_at"],
            ...states.map((s) => [s.email, s.status, s.createdAt, s.confirmedAt ?? ""]),
          ]),
        );
      }
      return exitCodes.ok;
    },
  },
  {
    name: "subscribers export",
    usage: "[--out FILE]",
    summary: "the subscribers as CSV, each with an unsubscribe link",
    help: `Prints every confirmed subscriber as CSV (RFC 4180): email, subscribed_at
(when they confirmed, ISO-8601 UTC) and unsubscribe_url, oldest first. Put each subscriber's unsubscribe_url into
the mailings you send them. The links start with SITE_URL.
An address that
starts with + or - is written with a leading ' (so that a spreadsheet does not
take it for a formula): remove it before mailing.

  --out FILE   write to FILE (readable by its owner only) instead of the terminal`,
    options: { out: { type: "string" } },
    async run({ values, config, stdout, stderr, engagement }) {
      const subscribers = await (await engagement()).subscribers.list();
      // The subscribe endpoint refuses addresses with "=", "(" or "|"
      // (tests/server/subscribers.test.ts), but one may start with "+" or "-":
      // toCsv quotes those with a leading ' like every other cell that could
      // start a formula.
      const csv = toCsv([
        ["email", "subscribed_at", "unsubscribe_url"],
        ...subscribers.map((s) => [
          s.email,
          s.subscribedAt,
          unsubscribeUrl(config.siteUrl, s.unsubscribeToken),
        ]),
      ]);
      if (!config.SITE_URL) {
        stderr.write(`Note: SITE_URL is not set, so the links point at ${config.siteUrl}.\n`);
      }
      if (typeof values.out === "string") {
        writePrivateFile(values.out, csv);
        stderr.write(`Wrote ${subscribers.length} subscribers to ${values.out}.\n`);
      } else {
        stdout.write(csv);
      }
      return exitCodes.ok;
    },
  },
  {
    name: "subscribers remove",
    usage: "EMAIL",
    summary: "remove one address from the newsletter",
    help: `Removes the subscriber with this address, in any letter case. Their old
unsubscribe link keeps answering "unsubscribed". Exit code 3 when no
subscriber has the address.`,
    arguments: ["EMAIL"],
    async run({ positionals, stdout, engagement, store }) {
      const [email = ""] = positionals;
      if (!(await (await engagement()).subscribers.remove(email))) {
        throw new AdminError(`No subscriber has the address ${email}.`, exitCodes.notFound);
      }
      await audited(store, "subscriber remove", email);
      stdout.write(`Removed ${email}.\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "newsletter preview",
    usage: "FILE [--out HTML]",
    summary: "render an edition to an HTML file to open in a browser",
    help: `Renders the edition FILE (Markdown with a "subject" in its frontmatter; see
the README, "Newsletter editions") in the mail template and writes the HTML,
by default to DATA_DIR/preview/<name>.html, printing where. The unsubscribe
link in it is a sample.

  --out HTML   write the HTML here instead`,
    arguments: ["FILE"],
    options: { out: { type: "string" } },
    async run({ values, positionals, config, stdout }) {
      const edition = editionOf(positionals[0] ?? "");
      const mail = editionMail(
        edition,
        { to: "preview@example.com", token: "preview" },
        config.siteUrl,
      );
      const out =
        typeof values.out === "string"
          ? path.resolve(values.out)
          : path.resolve(config.DATA_DIR, "preview", `${edition.slug}.html`);
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, mail.html);
      stdout.write(`Subject: ${mail.subject}\nWrote ${out}\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "newsletter test",
    usage: "FILE --to ADDRESS",
    summary: "send one copy of an edition to ADDRESS",
    help: `Sends one copy of the edition FILE to ADDRESS at once, through SMTP_URL (or
into DATA_DIR/outbox/ when it is not set), with "[Test]" before the subject.
Nothing is recorded: the edition can still be sent to everyone. Its
unsubscribe links lead nowhere.

  --to ADDRESS   where to send the copy`,
    arguments: ["FILE"],
    options: { to: { type: "string" } },
    async run({ values, positionals, config, stdout }) {
      const to = emailSchema.safeParse(typeof values.to === "string" ? values.to : "");
      if (!to.success) throw usageError("--to ADDRESS is required and must be an email address.");
      const edition = editionOf(positionals[0] ?? "");
      const mailer = createMailer(
        { smtpUrl: config.SMTP_URL, from: config.mailFrom, dataDir: config.DATA_DIR },
        { info: (_object, message) => stdout.write(`${message}\n`) },
      );
      try {
        const mail = editionMail(edition, { to: to.data, token: newToken() }, config.siteUrl);
        await mailer.send({ ...mail, subject: `[Test] ${mail.subject}` });
      } finally {
        mailer.close();
      }
      stdout.write(`Sent a test copy of ${edition.slug} to ${to.data}.\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "newsletter send",
    usage: "FILE",
    summary: "queue an edition for every confirmed subscriber",
    help: `Queues the edition FILE for every confirmed subscriber. The running server
sends the queue at MAIL_RATE_PER_MINUTE per instance, resuming after a
restart; "newsletter status" shows the progress. An edition is named by its
file name and reaches an address once: sending the same file again queues
only those who confirmed since. A changed file under a used name is refused.`,
    arguments: ["FILE"],
    async run({ positionals, stdout, store }) {
      const edition = editionOf(positionals[0] ?? "");
      const outbox = createOutboxRepository(await store());
      let saved: { id: number; created: boolean };
      try {
        saved = await outbox.saveEdition(edition);
      } catch (error) {
        throw new AdminError((error as Error).message);
      }
      const queued = await outbox.queueEdition(saved.id);
      await audited(store, "newsletter send", `${edition.slug} (${queued} queued)`);
      stdout.write(
        `Queued ${edition.slug} ("${edition.subject}") for ${queued} subscriber${queued === 1 ? "" : "s"}${saved.created ? "" : " (sent before: only new subscribers)"}.\n`,
      );
      return exitCodes.ok;
    },
  },
  {
    name: "newsletter status",
    usage: "[--json]",
    summary: "progress of each edition: queued, sent, failed",
    help: `Shows every edition queued so far with the number of its messages still
queued, sent, failed (the SMTP server refused them for good, or temporary
failures went on for hours) and cancelled (the address unsubscribed first),
then each failure with the server's answer.

  --json   the same as JSON, for scripts`,
    options: { json: { type: "boolean" } },
    async run({ values, stdout, store }) {
      const outbox = createOutboxRepository(await store());
      const editions = await outbox.progress();
      const failures = await Promise.all(
        editions.map(async (e) => ({ slug: e.slug, failed: await outbox.failures(e.slug) })),
      );
      if (values.json) {
        stdout.write(`${JSON.stringify({ editions, failures }, null, 2)}\n`);
        return exitCodes.ok;
      }
      if (editions.length === 0) {
        stdout.write("No edition has been queued yet.\n");
        return exitCodes.ok;
      }
      stdout.write(
        formatTable(
          ["edition", "subject", "queued", "sent", "failed", "cancelled"],
          editions.map((e) => [
            e.slug,
            e.subject,
            String(e.queued),
            String(e.sent),
            String(e.failed),
            String(e.cancelled),
          ]),
        ),
      );
      for (const { slug, failed } of failures) {
        for (const failure of failed) {
          stdout.write(`${slug}\t${failure.email}\t${failure.last_error ?? ""}\n`);
        }
      }
      return exitCodes.ok;
    },
  },
  {
    name: "comments list",
    usage: "[--post ID] [--since DATE] [--json]",
    summary: "comments, oldest first",
    help: `Lists comments, oldest first, as tab-separated columns: id, post, created_at,
name, comment (line breaks shown as \\n), status (published; pending: waiting for
your approval; spam: caught by the honeypot, seen by its sender alone and
forgotten after 30 days). A name or comment that starts with
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
      if (values.json) {
        stdout.write(`${JSON.stringify(comments, null, 2)}\n`);
      } else {
        stdout.write(
          toTsv([
            ["id", "post", "created_at", "name", "comment", "status"],
            ...comments.map((c) => [
              String(c.id),
              c.postId,
              c.createdAt,
              c.userName,
              c.content,
              c.status,
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
tab-separated columns: id, post, created_at, name, comment. Only their writers
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
            ["id", "post", "created_at", "name", "comment"],
            ...pending.map((c) => [String(c.id), c.postId, c.createdAt, c.userName, c.content]),
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
    async run({ positionals, stdout, moderation }) {
      const id = parseId(positionals[0], "The comment id");
      const outcome = await (await moderation()).approveComment(id);
      if (outcome === "not_found") {
        throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
      }
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
    async run({ positionals, stdout, moderation }) {
      const id = parseId(positionals[0], "The comment id");
      if ((await (await moderation()).rejectComment(id)) === "not_found") {
        throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
      }
      stdout.write(`Rejected comment ${id}.\n`);
      return exitCodes.ok;
    },
  },
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
    async run({ values, stdout, moderation }) {
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
    async run({ values, stdout, moderation }) {
      const byComment = typeof values.comment === "string";
      const byBan = typeof values.ban === "string";
      if (byComment === byBan) throw usageError("Give either --comment ID or --ban ID.");
      const lifted = await (await moderation()).unban(
        byBan
          ? { banId: parseId(values.ban as string, "--ban") }
          : { commentId: parseId(values.comment as string, "--comment") },
      );
      if (lifted === 0) throw new AdminError("No ban in force matched.", exitCodes.notFound);
      stdout.write(`Lifted ${lifted} ban${lifted === 1 ? "" : "s"}.\n`);
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
        `Removed ${comments} comment${comments === 1 ? "" : "s"} and ${reactions} reaction${reactions === 1 ? "" : "s"} of the visitor who wrote comment ${id}.\n`,
      );
      return exitCodes.ok;
    },
  },
  {
    name: "stats",
    usage: "[--json]",
    summary: "subscribers, and reactions and comments per item",
    help: `Prints the number of subscribers, then every story and science post that has
reactions or comments, with its counts per reaction type and its comments.

  --json   the same as JSON, for scripts`,
    options: { json: { type: "boolean" } },
    async run({ values, stdout, engagement }) {
      const repositories = await engagement();
      const subscribers = await repositories.subscribers.count();
      const reactions = await repositories.reactions.countsByItem();
      const comments = await repositories.comments.countsByPost();
      const items = reactions.map(({ kind, itemId, counts }) => ({
        kind,
        id: itemId,
        reactions: counts,
        comments: kind === "science" ? (comments.get(itemId) ?? 0) : null,
      }));
      for (const [postId, count] of comments) {
        if (!items.some((item) => item.kind === "science" && item.id === postId)) {
          items.push({
            kind: "science",
            id: postId,
            reactions: noReactions(),
            comments: count,
          });
        }
      }
      items.sort((a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));
      if (values.json) {
        stdout.write(`${JSON.stringify({ subscribers, items }, null, 2)}\n`);
        return exitCodes.ok;
      }
      const sum = (pick: (item: (typeof items)[number]) => number) =>
        String(items.reduce((total, item) => total + pick(item), 0));
      stdout.write(`Subscribers: ${subscribers}\n\n`);
      stdout.write(
        formatTable(
          ["kind", "item", "like", "love", "dislike", "idea", "comments"],
          [
            ...items.map((item) => [
              item.kind,
              item.id,
              String(item.reactions.like),
              String(item.reactions.love),
              String(item.reactions.dislike),
              String(item.reactions.idea),
              item.comments === null ? "-" : String(item.comments),
            ]),
            [
              "total",
              "",
              sum((item) => item.reactions.like),
              sum((item) => item.reactions.love),
              sum((item) => item.reactions.dislike),
              sum((item) => item.reactions.idea),
              sum((item) => item.comments ?? 0),
            ],
          ],
        ),
      );
      return exitCodes.ok;
    },
  },
  {
    name: "login",
    usage: "",
    summary: "print a one-time sign-in link to the console (10 minutes)",
    help: `Prints a link to the owner's console (SITE_URL/admin/sign-in#token=…). Open it
within 10 minutes and press "Sign in": the link then opens a session of the
browser that used it and works no more. Anyone holding the link before then
can sign in with it: do not paste it anywhere else. Each link is recorded in
the audit trail ("audit").`,
    async run({ config, stdout, stderr, store }) {
      const owner = createOwnerRepository(await store());
      const token = await owner.createLink("cli");
      await owner.audit(null, "sign-in link", "command line");
      if (!config.SITE_URL) {
        stderr.write(`Note: SITE_URL is not set, so the link points at ${config.siteUrl}.\n`);
      }
      stdout.write(`${config.siteUrl}/admin/sign-in#token=${token}\n`);
      stderr.write("Valid for 10 minutes, once.\n");
      return exitCodes.ok;
    },
  },
  {
    name: "sessions list",
    usage: "[--json]",
    summary: "the console sessions that can still be used",
    help: `Lists the console's sessions that have not ended, newest first: id, how it
signed in (link or passkey), when, and its last request. A session ends after
12 hours without a request, on "Sign out", or with "sessions revoke".

  --json   one JSON array instead, for scripts`,
    options: { json: { type: "boolean" } },
    async run({ values, stdout, store }) {
      const sessions = await createOwnerRepository(await store()).listSessions();
      if (values.json) {
        stdout.write(
          `${JSON.stringify(
            sessions.map(({ current: _, ...s }) => s),
            null,
            2,
          )}\n`,
        );
      } else if (sessions.length === 0) {
        stdout.write("No console session is open.\n");
      } else {
        stdout.write(
          formatTable(
            ["id", "method", "created_at", "last_seen_at"],
            sessions.map((s) => [s.id, s.method, s.createdAt, s.lastSeenAt]),
          ),
        );
      }
      return exitCodes.ok;
    },
  },
  {
    name: "sessions revoke",
    usage: "ID | --all",
    summary: "end one console session, or all of them",
    help: `Ends the console session ID (see "sessions list") at once: its next request
is refused and the browser is sent to sign in again. --all ends every session,
for example after losing a laptop. Exit code 3 when no open session has ID.

  --all   end every session`,
    arguments: ["ID"],
    argumentsOptional: true,
    options: { all: { type: "boolean" } },
    async run({ values, positionals, stdout, store }) {
      const [id] = positionals;
      if (Boolean(values.all) === (id !== undefined)) {
        throw usageError("Give a session ID or --all.");
      }
      const owner = createOwnerRepository(await store());
      const ended = await owner.revoke(id === undefined ? "all" : { id });
      if (id !== undefined && ended === 0) {
        throw new AdminError(`No open session has the id ${id}.`, exitCodes.notFound);
      }
      await owner.audit(null, "session revoke", id ?? "all");
      stdout.write(`Ended ${ended} session${ended === 1 ? "" : "s"}.\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "audit",
    usage: "[--limit N] [--json]",
    summary: "what was done in the console and by these commands, newest first",
    help: `Prints the audit trail, newest first, tab-separated: when, the console session
("none" for this command line and mailed links), the action and its object (a comment id, an
address, an edition). Objects that start with = + - or @ get a leading '.

  --limit N   at most N entries (default 200)
  --json      one JSON array instead, verbatim`,
    options: { limit: { type: "string" }, json: { type: "boolean" } },
    async run({ values, stdout, store }) {
      const limit = typeof values.limit === "string" ? parseId(values.limit, "--limit") : 200;
      const entries = await createOwnerRepository(await store()).auditTrail(limit);
      if (values.json) {
        stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
      } else {
        stdout.write(
          toTsv([
            ["at", "session", "action", "object"],
            ...entries.map((e) => [e.at, e.sessionId ?? "none", e.action, e.object ?? ""]),
          ]),
        );
      }
      return exitCodes.ok;
    },
  },
  {
    name: "backup",
    usage: "--out FILE",
    summary: "copy the SQLite database, while the site runs",
    help: `Writes a consistent copy of the SQLite database (DATA_DIR/engage.sqlite) to
FILE while the server goes on serving: one snapshot, checked after writing,
readable by its owner only. FILE must not exist. On PostgreSQL use pg_dump.

  --out FILE   where to write the copy`,
    options: { out: { type: "string" } },
    async run({ values, config, stdout }) {
      const databaseFile = sqliteOnly(config, "backup");
      if (typeof values.out !== "string") throw usageError("--out FILE is required.");
      const { bytes } = backupDatabase(databaseFile, path.resolve(values.out));
      stdout.write(`Backed up ${databaseFile} to ${values.out} (${bytes} bytes).\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "restore",
    usage: "--from FILE",
    summary: "replace the SQLite database with a backup (server stopped)",
    help: `Replaces the SQLite database (DATA_DIR/engage.sqlite) with a backup made by
"backup". Stop the server first: the command refuses while any process has
the database open. The database it replaces is kept beside it as
engage.sqlite.before-restore-<time>. On PostgreSQL use pg_restore.

  --from FILE   the backup to restore`,
    options: { from: { type: "string" } },
    async run({ values, config, stdout }) {
      const databaseFile = sqliteOnly(config, "restore");
      if (typeof values.from !== "string") throw usageError("--from FILE is required.");
      const { previousKeptAs } = restoreDatabase(databaseFile, path.resolve(values.from));
      stdout.write(`Restored ${databaseFile} from ${values.from}.\n`);
      if (previousKeptAs) stdout.write(`The database it replaced is kept as ${previousKeptAs}.\n`);
      return exitCodes.ok;
    },
  },
];

function mainHelp(): string {
  const width = Math.max(...commands.map((c) => `${c.name} ${c.usage}`.length));
  const lines = commands.map((c) => `  ${`${c.name} ${c.usage}`.padEnd(width)}  ${c.summary}`);
  return `Usage: ${program} <command> [options]

The site owner's commands for the engagement data (subscribers, comments,
reactions). They read the same environment as the server (DATA_DIR or
DATABASE_URL, SITE_URL) and may run while it serves.

Commands:
${lines.join("\n")}

"${program} <command> --help" explains one command.

Exit codes: 0 done, 1 failed, 2 wrong usage, 3 nothing found to act on.
`;
}

function commandHelp(command: Command): string {
  return `Usage: ${program} ${command.name} ${command.usage}\n\n${command.help}\n`;
}

function findCommand(argv: string[]): { command: Command; rest: string[] } | null {
  for (const words of [2, 1]) {
    const name = argv.slice(0, words).join(" ");
    const command = commands.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(words) };
  }
  return null;
}

/** Runs one command; resolves to the process exit code. */
export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  const { stdout, stderr } = io;
  const [first] = argv;
  if (first === undefined) {
    stderr.write(mainHelp());
    return exitCodes.usage;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    const topic = argv.length > 1 ? findCommand(argv.slice(1)) : null;
    stdout.write(topic ? commandHelp(topic.command) : mainHelp());
    return exitCodes.ok;
  }
  const found = findCommand(argv);
  if (!found) {
    stderr.write(
      `Unknown command "${argv.slice(0, 2).join(" ")}". Commands: ${commands.map((c) => c.name).join(", ")}.\nRun "${program} --help" for details.\n`,
    );
    return exitCodes.usage;
  }
  const { command, rest } = found;

  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: rest,
      options: { help: { type: "boolean", short: "h" }, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    stderr.write(`${(error as Error).message}\n\n${commandHelp(command)}`);
    return exitCodes.usage;
  }
  if (parsed.values.help) {
    stdout.write(commandHelp(command));
    return exitCodes.ok;
  }
  const expected = command.arguments ?? [];
  if (
    parsed.positionals.length > expected.length ||
    (!command.argumentsOptional && parsed.positionals.length !== expected.length)
  ) {
    stderr.write(
      `${command.name} takes ${expected.length === 0 ? "no arguments" : expected.join(" ")}.\n\n${commandHelp(command)}`,
    );
    return exitCodes.usage;
  }

  let config: Config;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    stderr.write(`${error.message}\n`);
    return exitCodes.failed;
  }

  const opened: Store[] = [];
  let opening: Promise<Store> | undefined;
  const store = (): Promise<Store> => {
    opening ??= (async () => {
      const options = storeOptionsOf(config);
      if (options.kind === "sqlite" && !existsSync(options.file)) {
        throw new AdminError(
          `There is no database at ${options.file}: is DATA_DIR right? The server creates it on its first start.`,
        );
      }
      const opened_ = await openStore(options);
      opened.push(opened_);
      await migrateToLatest(opened_);
      return opened_;
    })();
    return opening;
  };
  const engagement = async (): Promise<Engagement> => {
    const db = await store();
    // No bus: other processes learn of these writes from the events table
    // (PostgreSQL notifies them in the transaction; a SQLite server polls it).
    return createEngagement(
      db,
      createEventJournal(db),
      { committed() {} },
      resolveCookieSecret(config),
    );
  };

  const moderation = async (): Promise<Moderation> =>
    createModeration({
      store: await store(),
      comments: (await engagement()).comments,
      mode: config.MODERATION,
      spam: createSpamStore(await store()),
    });

  try {
    return await command.run({ ...parsed, config, stdout, stderr, engagement, store, moderation });
  } catch (error) {
    if (error instanceof AdminError) {
      stderr.write(`${error.message}\n`);
      return error.exitCode;
    }
    stderr.write(`Failed: ${error instanceof Error ? error.message : String(error)}\n`);
    return exitCodes.failed;
  } finally {
    for (const store of opened) await store.close();
  }
}
