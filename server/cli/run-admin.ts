import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { withControlsShown } from "../../contract/text.ts";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import type { Store } from "../db/store.ts";
import { storeOptionsOf } from "../db/store-config.ts";
import type { Engagement } from "../engagement/index.ts";
import { onFirstUse } from "../lib/on-first-use.ts";
import type { Moderation } from "../moderation/service.ts";
import {
  AdminError,
  type AdminIo,
  argumentOf,
  type Command,
  exitCodes,
  optionsOf,
  shownOn,
  type Values,
} from "./command.ts";
import { bookingCommands } from "./commands/bookings.ts";
import { commentCommands } from "./commands/comments.ts";
import { consoleAccessCommands } from "./commands/console-access.ts";
import { databaseCommands } from "./commands/database.ts";
import { enquiryCommands } from "./commands/enquiries.ts";
import { fediverseCommands } from "./commands/fediverse.ts";
import { mailCommands } from "./commands/mail.ts";
import { newsletterCommands } from "./commands/newsletter.ts";
import { portabilityCommands } from "./commands/portability.ts";
import { questionCommands } from "./commands/questions.ts";
import { readerCommands } from "./commands/readers.ts";
import { spamCommands } from "./commands/spam.ts";
import { statsCommands } from "./commands/stats.ts";
import { subscriberCommands } from "./commands/subscribers.ts";
import { visitorCommands } from "./commands/visitors.ts";

/**
 * The owner's command line (`npm run admin -- <command>`): what the site
 * cannot do by itself. It reads the same environment as the server, works on
 * SQLite and PostgreSQL, and may run while the server does. Its writes go
 * through the repositories, so they record live events like the API's do.
 * Each group of commands has its file under `commands/`; this one finds the
 * command, parses its arguments, opens the database and prints the help.
 * What a command needs is imported when it runs, the database and the
 * repositories too, so `--help` and a wrong usage load none of them, and each
 * command loads only its own part of the server (docs/benchmarks.md, "The owner's export").
 */

const program = "npm run admin --";

/** In the order the help lists them. */
const commands: Command[] = [
  ...subscriberCommands,
  ...newsletterCommands,
  ...mailCommands,
  ...commentCommands,
  ...spamCommands,
  ...enquiryCommands,
  ...bookingCommands,
  ...visitorCommands,
  ...fediverseCommands,
  ...statsCommands,
  ...readerCommands,
  ...questionCommands,
  ...consoleAccessCommands,
  ...databaseCommands,
  ...portabilityCommands,
].map((command) => ({ ...command, options: optionsOf(command) }));

/** One line per command: its usage, then what it does. */
function listing(list: Command[]): string {
  const width = Math.max(...list.map((c) => `${c.name} ${c.usage}`.length));
  return list.map((c) => `  ${`${c.name} ${c.usage}`.padEnd(width)}  ${c.summary}`).join("\n");
}

function mainHelp(): string {
  return `Usage: ${program} <command> [options]

The site owner's commands for the engagement data (subscribers, comments,
reactions, enquiries). They read the same environment as the server (DATA_DIR, or
DATABASE_URL with the instances' COOKIE_SECRET, SITE_URL) and may run while it serves.

Commands:
${listing(commands)}

"${program} <command> --help" explains one command.

Exit codes: 0 done, 1 failed, 2 wrong usage, 3 nothing found to act on.
`;
}

function commandHelp(command: Command): string {
  return `Usage: ${program} ${command.name} ${command.usage}\n\n${command.help}\n`;
}

/** The groups of commands ("newsletter", "visitor"…): the first word of the two-word names. */
const groups = new Set(
  commands.flatMap((c) => (c.name.includes(" ") ? [c.name.split(" ")[0] ?? ""] : [])),
);

function groupHelp(group: string): string {
  return `Usage: ${program} ${group} <command> [options]

Commands:
${listing(commands.filter((c) => c.name.startsWith(`${group} `)))}

"${program} ${group} <command> --help" explains one command.
`;
}

const helpWords = new Set(["--help", "-h", "help"]);

/**
 * parseArgs' refusals in the owner's words: it names options with its own
 * phrasing ("argument is ambiguous") and error codes.
 */
function argumentProblem(error: unknown, command: Command): string {
  const { code, message } = error as { code?: string; message: string };
  const option = /'(?:-\w, )?(--[\w-]+)/.exec(message)?.[1] ?? "";
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const given = /'([^']+)'/.exec(message)?.[1] ?? "";
    return `${command.name} has no option ${given}.`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    return command.options?.[option.slice(2)]?.type === "boolean"
      ? `${option} takes no value.`
      : `${option} needs a value.`;
  }
  return message.split("\n")[0] ?? message;
}

/**
 * What parseArgs should read. An ID is base64url and may begin with "-"
 * (`passkeys remove -_x4…`, `suppressions lift --id -Qk…`), and `--days -3` is a
 * number, both of which it reads as short options. The only short option is -h,
 * so any other word that begins with one "-" is a value: after an option that
 * takes one, it is given to it (for the command's own check to say what it
 * accepts); elsewhere it is an argument, and goes after the "--" that ends the
 * options.
 */
const dashed = (word: string | undefined) =>
  word !== undefined && /^-[^-]/.test(word) && word !== "-h";

function asParsed(args: string[], command: Command): string[] {
  const out: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    const next = args[i + 1];
    const name = arg.startsWith("--") ? arg.slice(2) : "";
    if (command.options?.[name]?.type === "string" && dashed(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else if (arg === "--") {
      positional.push(...args.slice(i + 1));
      break;
    } else if (dashed(arg)) {
      positional.push(arg);
    } else {
      out.push(arg);
    }
  }
  return positional.length > 0 ? [...out, "--", ...positional] : out;
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
  const [stdout, stderr] = [shownOn(io.stdout), shownOn(io.stderr)];
  const [first] = argv;
  if (first === undefined) {
    stderr.write(mainHelp());
    return exitCodes.usage;
  }
  if (helpWords.has(first)) {
    const topic = argv.length > 1 ? findCommand(argv.slice(1)) : null;
    const group = argv.length === 2 && groups.has(argv[1] ?? "") ? (argv[1] ?? "") : null;
    stdout.write(topic ? commandHelp(topic.command) : group ? groupHelp(group) : mainHelp());
    return exitCodes.ok;
  }
  // A group's name alone (a wrong usage), or with --help: its commands.
  if (groups.has(first) && (argv.length === 1 || helpWords.has(argv[1] ?? ""))) {
    (argv.length === 1 ? stderr : stdout).write(groupHelp(first));
    return argv.length === 1 ? exitCodes.usage : exitCodes.ok;
  }
  const found = findCommand(argv);
  if (!found && groups.has(first)) {
    stderr.write(`Unknown command "${argv.slice(0, 2).join(" ")}".\n\n${groupHelp(first)}`);
    return exitCodes.usage;
  }
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
      args: asParsed(rest, command),
      options: { help: { type: "boolean", short: "h" }, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    stderr.write(`${argumentProblem(error, command)}\n\n${commandHelp(command)}`);
    return exitCodes.usage;
  }
  if (parsed.values.help) {
    stdout.write(commandHelp(command));
    return exitCodes.ok;
  }
  const argument = argumentOf(command);
  const given = parsed.positionals.length;
  if (given > (argument ? 1 : 0) || (argument && !argument.optional && given === 0)) {
    stderr.write(
      `${command.name} takes ${argument?.name ?? "no arguments"}.\n\n${commandHelp(command)}`,
    );
    return exitCodes.usage;
  }

  let config: Config;
  try {
    config = loadConfig(io.env, io.ownerProfile ? { ownerProfile: io.ownerProfile } : {});
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    stderr.write(`${error.message}\n`);
    return exitCodes.failed;
  }

  const opened: Store[] = [];
  const openConfiguredStore = async (create: boolean): Promise<Store> => {
    // A write waits for the server's for up to a minute, not the server's five seconds.
    const options = { ...storeOptionsOf(config), busyTimeoutMs: 60_000 };
    if (options.kind === "sqlite" && !create && !existsSync(options.file)) {
      throw new AdminError(
        `There is no database at ${options.file}: give the command the server's DATA_DIR, or its DATABASE_URL for a site on PostgreSQL. The server creates the database on its first start.`,
      );
    }
    const { migrateToLatest, openStore, tightenDataDir } = await import("../db/store.ts");
    const say = (_: unknown, message: string) => stderr.write(`${message}\n`);
    tightenDataDir(config.DATA_DIR, { info: say, warn: say });
    const { withMailFiles } = await import("../outbox/mail-files.ts");
    const { cookieSecretFileOf, migrationAddressKey } = await import("../engagement/visitor.ts");
    const db = withMailFiles(await openStore(options), config);
    opened.push(db);
    // Without the site's secret at hand, a database holding suppressed addresses is refused.
    const keyed =
      !config.DATABASE_URL || config.COOKIE_SECRET || existsSync(cookieSecretFileOf(config));
    await migrateToLatest(db, keyed ? migrationAddressKey(config) : undefined);
    return db;
  };
  let storing: Promise<Store> | undefined;
  // Made by the first call: `create` counts there (import --from export's).
  const store = ({ create = false } = {}) => (storing ??= openConfiguredStore(create));
  // On PostgreSQL without COOKIE_SECRET this shell may hold none of the site's secret: one
  // made up here would not match the site's (return paths, exports, stopped reply mails).
  const secretOrNull = onFirstUse(async () => {
    const { cookieSecretFileOf, resolveCookieSecret } = await import("../engagement/visitor.ts");
    const missing =
      config.DATABASE_URL && !config.COOKIE_SECRET && !existsSync(cookieSecretFileOf(config));
    return missing ? null : resolveCookieSecret(config);
  });
  const noSecret = () =>
    new AdminError(
      "Set COOKIE_SECRET to the secret your instances share: on PostgreSQL a secret made here would not match the site's (return paths, exports, stopped reply mails).",
    );
  const secret = async ({ throwaway = false } = {}) => {
    const found = await secretOrNull();
    if (found === null && throwaway) return randomBytes(32).toString("hex");
    if (found === null) throw noSecret();
    return found;
  };
  const engagement = onFirstUse(async (): Promise<Engagement> => {
    const db = await store();
    const [
      { createEngagement, createEventJournal },
      { createWriterKeys },
      { forgetExamples },
      { replyKeys },
      { suppressionKey },
    ] = await Promise.all([
      import("../engagement/index.ts"),
      import("../engagement/writer-keys.ts"),
      import("../moderation/spam/store.ts"),
      import("../comments/reply-watches.ts"),
      import("../lib/mailbox.ts"),
    ]);
    // No bus: other processes learn of these writes from the events table
    // (PostgreSQL notifies them in the transaction; a SQLite server polls it).
    const found = await secretOrNull();
    // Without the site's secret, a write that keeps an address's digest (a
    // reply's watcher, a stopped mailbox) is refused in its transaction: a
    // made-up key would write digests that match nothing of the site's.
    const refused = () => {
      throw noSecret();
    };
    return createEngagement(
      db,
      createEventJournal(db),
      { committed() {} },
      createWriterKeys(found ?? (await secret({ throwaway: true }))),
      forgetExamples,
      undefined,
      // A reply approved here is mailed to its thread's followers: the
      // server's outbox worker finds the rows (docs/product.md, "Reply mails").
      {
        clock: () => new Date(),
        maxPerIpPerHour: config.SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR,
        ...(found === null
          ? { mailboxKey: refused, links: { tokenOf: refused, seedsOf: refused } }
          : replyKeys(found)),
        addressKey: found === null ? refused : suppressionKey(found),
      },
    );
  });
  const moderation = onFirstUse(async (): Promise<Moderation> => {
    const [{ createModeration }, { createSpamStore }] = await Promise.all([
      import("../moderation/service.ts"),
      import("../moderation/spam/store.ts"),
    ]);
    return createModeration({
      store: await store(),
      comments: (await engagement()).comments,
      mode: config.MODERATION,
      spam: createSpamStore(await store()),
    });
  });
  const moderationActions = async () =>
    (await import("../moderation/owner-actions.ts")).moderationActions(
      await moderation(),
      await engagement(),
    );
  const commandLine = onFirstUse(async () =>
    (await import("../console/owner-repository.ts"))
      .createOwnerRepository(await store())
      .actor(null),
  );
  const actor: OwnerActor = {
    act: async (change, line) => (await commandLine()).act(change, line),
    audit: async (action, object, within) => (await commandLine()).audit(action, object, within),
    wrote: async (action, object) => (await commandLine()).wrote(action, object),
    lastWrote: async (actions, about) => (await commandLine()).lastWrote(actions, about),
  };

  const ask = io.confirm;
  try {
    await command.run({
      ...parsed,
      config,
      stdout,
      stderr,
      engagement,
      store,
      secret,
      moderation,
      moderationActions,
      actor,
      confirm: ask ? (question) => ask(withControlsShown(question)) : null,
      clock: io.clock ?? (() => new Date()),
      ...(io.allowPrivate ? { allowPrivate: io.allowPrivate } : {}),
    });
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof AdminError) {
      stderr.write(`${error.message}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    // What an owner action's failure left of it, when known (loaded already by the action).
    const { leftBy, leftSaid, storeFailureSaid } = await import("../db/owner-actor.ts");
    const { storeFailureOf } = await import("../db/errors.ts");
    const failure = storeFailureOf(error);
    const left = leftBy(error);
    // The database's failure in the API's words first, then the driver's own.
    const said = failure
      ? `${storeFailureSaid(failure, error)} (${message.replace(/\.$/, "")})`
      : left
        ? `${message.replace(/\.?$/, ".")} ${leftSaid(left, error)}`
        : message;
    stderr.write(`Failed: ${said}\n`);
    return exitCodes.failed;
  } finally {
    for (const store of opened) await store.close();
  }
}
