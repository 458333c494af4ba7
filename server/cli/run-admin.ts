import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { migrateToLatest, openStore, type Store } from "../db/store.ts";
import { createEngagement, createEventsRepository, type Engagement } from "../engagement/index.ts";
import { sqliteFileOf, storeOptionsOf } from "../engagement/service.ts";
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
};

type Command = {
  name: string;
  /** What follows the name, for the usage line. */
  usage: string;
  summary: string;
  help: string;
  options?: NonNullable<ParseArgsConfig["options"]>;
  /** Names of the required positional arguments. */
  arguments?: string[];
  run(context: Context): Promise<number>;
};

const program = "npm run admin --";
const maxId = 2_147_483_647;

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

const commands: Command[] = [
  {
    name: "subscribers export",
    usage: "[--out FILE]",
    summary: "the subscribers as CSV, each with an unsubscribe link",
    help: `Prints every subscriber as CSV (RFC 4180): email, subscribed_at (ISO-8601 UTC)
and unsubscribe_url, oldest first. Put each subscriber's unsubscribe_url into
the mailings you send them. The links start with SITE_URL. An address that
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
    async run({ positionals, stdout, engagement }) {
      const [email = ""] = positionals;
      if (!(await (await engagement()).subscribers.remove(email))) {
        throw new AdminError(`No subscriber has the address ${email}.`, exitCodes.notFound);
      }
      stdout.write(`Removed ${email}.\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "comments list",
    usage: "[--post ID] [--since DATE] [--json]",
    summary: "comments, oldest first",
    help: `Lists comments, oldest first, as tab-separated columns: id, post, created_at,
name, comment (line breaks shown as \\n). A name or comment that starts with
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
            ["id", "post", "created_at", "name", "comment"],
            ...comments.map((c) => [String(c.id), c.postId, c.createdAt, c.userName, c.content]),
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
    async run({ positionals, stdout, engagement }) {
      const id = parseId(positionals[0], "The comment id");
      if (!(await (await engagement()).comments.removeAsOwner(id))) {
        throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
      }
      stdout.write(`Deleted comment ${id}.\n`);
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
    async run({ values, stdout, engagement }) {
      if (typeof values.comment !== "string") throw usageError("--comment ID is required.");
      const id = parseId(values.comment, "--comment");
      const repositories = await engagement();
      const visitorId = await repositories.comments.authorOf(id);
      if (visitorId === null) {
        throw new AdminError(`There is no comment ${id}.`, exitCodes.notFound);
      }
      const comments = await repositories.comments.removeAllBy(visitorId);
      const reactions = await repositories.reactions.removeAllBy(visitorId);
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
            reactions: { like: 0, love: 0, dislike: 0, idea: 0 },
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
  if (parsed.positionals.length !== expected.length) {
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
  const engagement = async (): Promise<Engagement> => {
    const options = storeOptionsOf(config);
    if (options.kind === "sqlite" && !existsSync(options.file)) {
      throw new AdminError(
        `There is no database at ${options.file}: is DATA_DIR right? The server creates it on its first start.`,
      );
    }
    const store = await openStore(options);
    opened.push(store);
    await migrateToLatest(store);
    // No bus: other processes learn of these writes from the events table
    // (PostgreSQL notifies them in the transaction; a SQLite server polls it).
    return createEngagement(store, createEventsRepository(store), { committed() {} });
  };

  try {
    return await command.run({ ...parsed, config, stdout, stderr, engagement });
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
