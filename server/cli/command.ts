import { once } from "node:events";
import { createWriteStream, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import type { ParseArgsConfig } from "node:util";
import type { OwnerProfile } from "../../content/owner.ts";
import { rowIdMax } from "../../contract/api.ts";
import { withControlsShown } from "../../contract/text.ts";
import type { Config } from "../config.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import type { Store } from "../db/store.ts";
import type { Engagement } from "../engagement/index.ts";
import type { ModerationActions } from "../moderation/owner-actions.ts";
import type { Moderation } from "../moderation/service.ts";

/**
 * What one of the owner's commands is (`npm run admin -- <command>`): its name,
 * its arguments and options, its help and its handler, declared together in
 * the file of its group under `commands/`. The handler's code is in a module of
 * its own under `handlers/`, imported when the command runs.
 */

export type Output = { write(text: string): unknown };
export type AdminIo = {
  env: NodeJS.ProcessEnv;
  stdout: Output;
  stderr: Output;
  /**
   * Asks the person at the terminal a yes-or-no question. Absent when nobody
   * can answer (a script, a pipe, cron): commands that ask then need --yes.
   */
  confirm?: (question: string) => Promise<boolean>;
  /** The time the commands read as now: the real one unless a test gives its own. */
  clock?: () => Date;
  /** The private addresses a command may read the owner's calendar from (the tests' stand-in). */
  allowPrivate?: (address: string) => boolean;
  /** The owner's profile, read from content/owner.md unless given (tests read it once, not per command). */
  ownerProfile?: OwnerProfile;
};

/**
 * What the commands write goes to a terminal as text it shows, never obeys: each
 * control character but tab and line break, and each bidi control, as its escape
 * (withControlsShown). Names, comments and notes came from readers and other
 * servers; files written with --out keep them as they are.
 */
export const shownOn = (output: Output): Output => ({
  write: (text) => output.write(withControlsShown(text)),
});

export const exitCodes = { ok: 0, failed: 1, usage: 2, notFound: 3 } as const;

/** A refusal or failure the command line reports as it is, with its exit code. */
export class AdminError extends Error {
  override name = "AdminError";
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

export type Values = Record<string, string | boolean | undefined>;

export type CommandContext = {
  values: Values;
  positionals: string[];
  config: Config;
  stdout: Output;
  stderr: Output;
  /** The repositories on the configured database, opened on first use. */
  engagement(): Promise<Engagement>;
  /**
   * The configured database itself, opened on first use. A SQLite file that
   * is not there is an error (naming DATA_DIR and DATABASE_URL) unless `create`: then it
   * is made and migrated, as the server's first start would.
   */
  store(options?: { create?: boolean }): Promise<Store>;
  /**
   * The site's cookie secret, which signs what a command writes: return paths, an
   * export, writers' keys. On PostgreSQL without COOKIE_SECRET this shell may have
   * none: an error then, or with `throwaway` a key for this command's live events only.
   */
  secret(options?: { throwaway?: boolean }): Promise<string>;
  /** The owner's moderation on the configured database (server/moderation/service.ts). */
  moderation(): Promise<Moderation>;
  /** The owner's actions on comments and writers (server/moderation/owner-actions.ts). */
  moderationActions(): Promise<ModerationActions>;
  /**
   * The command line as the owner's actions take it: its changes join the
   * console's in the audit trail, without a session.
   */
  actor: OwnerActor;
  /** A question to the person at the terminal; null when there is none (see `agreed`). */
  confirm: ((question: string) => Promise<boolean>) | null;
  /** Now, for the commands whose answer depends on the day or the hour (`readers`, `bookings`). */
  clock: () => Date;
  allowPrivate?: AdminIo["allowPrivate"];
};

type Options = NonNullable<ParseArgsConfig["options"]>;

export type Command = {
  name: string;
  /**
   * What follows the name, for the usage line. It declares the options too
   * (optionsOf): `--name VALUE` takes a value, `--name` alone is a flag; and
   * the argument (argumentOf).
   */
  usage: string;
  summary: string;
  help: string;
  /** Options the usage line leaves out, for brevity. */
  options?: Options;
  run: Handler;
};

/** The options of a command: those its usage line names, and those it declares besides. */
export function optionsOf({ usage, options }: Command): Options {
  const named = usage.matchAll(/--([a-z-]+)( [^-|[\s])?/g);
  return {
    ...Object.fromEntries(
      [...named].map(([, name, value]) => [name, { type: value ? "string" : "boolean" }]),
    ),
    ...options,
  };
}

/**
 * The one argument a usage line names, if any: its word in capitals that is no
 * option's value ("ACTOR | HOST" for either). It is optional in brackets
 * ("[SLUG]"), or beside an option that stands for it ("ID | --all").
 */
export function argumentOf({ usage }: Command): { name: string; optional: boolean } | null {
  const unnamed = usage.replaceAll(/--[a-z-]+( [^-|[\s]\S*)?/g, "--");
  const found = /(\[)?\b([A-Z]+(?: \| [A-Z]+)*)\b(\]| \| --)?/.exec(unnamed);
  return found ? { name: found[2] ?? "", optional: Boolean(found[1] || found[3]) } : null;
}

/**
 * What a command does once its arguments are read. Done when it resolves (exit
 * code 0); a refusal or failure is thrown as an AdminError with its exit code.
 */
export type Handler = (context: CommandContext) => Promise<void>;

/**
 * A command that takes one of the owner's actions (docs/architecture.md,
 * "Owner actions"): it reads its input, has the action done as the command
 * line, and prints what `said` makes of the outcome. An action that found
 * nothing to act on ("not_found" or false) exits with 3 and `missing`.
 */
export function ownerAction<Input, Done>(
  read: (context: CommandContext) => Input,
  act: (context: CommandContext, input: Input) => Promise<Done | "not_found" | false>,
  said: (input: Input, done: Done, values: Values) => string,
  missing: (input: Input) => string,
): Handler {
  return async (context) => {
    const input = read(context);
    const done = await act(context, input);
    if (done === "not_found" || done === false) {
      throw new AdminError(missing(input), exitCodes.notFound);
    }
    context.stdout.write(said(input, done, context.values));
  };
}

/**
 * The handler `name` of a group's module, imported only when the command runs:
 * the list of commands and their help stay light, and a command loads what it
 * needs and nothing of the other groups (docs/benchmarks.md, "The owner's export").
 */
export function lazily<Name extends string>(
  load: () => Promise<Record<Name, Handler>>,
  name: Name,
): Handler {
  return async (context) => (await load())[name](context);
}

/** A command's name as its handler's: "bookings list" is bookingsList, "fediverse rotate-keys" fediverseRotateKeys. */
type HandlerName<S extends string> = S extends `${infer A} ${infer B}`
  ? `${A}${Capitalize<HandlerName<B>>}`
  : S extends `${infer A}-${infer B}`
    ? `${A}${Capitalize<HandlerName<B>>}`
    : S;

/** A group's commands, each run by the handler named after it in the group's module (lazily). */
export function group<const Name extends string>(
  load: () => Promise<Record<HandlerName<Name>, Handler>>,
  commands: (Omit<Command, "run"> & { name: Name })[],
): Command[] {
  return commands.map((command) => ({
    ...command,
    run: lazily(
      load,
      command.name.replace(/[ -](\w)/g, (_, c: string) => c.toUpperCase()) as HandlerName<Name>,
    ),
  }));
}

/**
 * Goes on with --yes, or once the person at the terminal says yes to
 * `question`; without either, nothing is done and `what` says what was not.
 */
export async function agreed(
  { values, confirm }: CommandContext,
  what: string,
  question: string,
): Promise<void> {
  if (values.yes) return;
  if (!confirm) {
    throw usageError(
      `${what} Nothing was sent. Add --yes to send it, or run it at a terminal to be asked.`,
    );
  }
  if (!(await confirm(question))) throw new AdminError("Nothing was sent.");
}

export function usageError(message: string): AdminError {
  return new AdminError(message, exitCodes.usage);
}

/**
 * A positive whole number written one way only, as the API reads ids
 * (contract/api.ts): digits, no sign and no leading zero, so that `010`,
 * `0x10` or `1e1` never name row 10 or 16 by accident.
 */
export function parseId(value: string | undefined, what: string): number {
  const id = Number(value);
  if (!/^[1-9]\d{0,15}$/.test(value ?? "") || id > rowIdMax) {
    throw usageError(
      `${what} must be a positive whole number, in digits without a leading zero, not "${value ?? ""}".`,
    );
  }
  return id;
}

/** --days N, from 1 to `max`, in digits (no sign, exponent or space); undefined when not given. */
export function daysOption(values: Values, max: number): number | undefined {
  const given = values.days;
  if (typeof given !== "string") return undefined;
  if (!/^\d+$/.test(given) || Number(given) < 1 || Number(given) > max) {
    throw usageError(`--days must be a whole number of days from 1 to ${max}, not "${given}".`);
  }
  return Number(given);
}

/**
 * Refuses a file to write whose folder is missing, as every --out does: a
 * mistyped path is said, not created. The message names the owner's folder.
 */
export function assertFolderOf(file: string): void {
  const folder = path.dirname(path.resolve(file));
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    throw new AdminError(`There is no folder ${folder}: create it first, or choose another.`);
  }
}

/**
 * Writes a file only its owner can read (exports hold personal data), whole
 * or not at all: `write` streams it under a temporary name, renamed when whole.
 * `write` runs once that name is open, so a folder that is missing or not
 * writable fails before anything is read or recorded. What `write` answers is
 * the answer.
 */
export async function writePrivateFile<T>(
  file: string,
  write: (sink: (text: string) => Promise<void>) => Promise<T>,
): Promise<T> {
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) {
    throw new AdminError(`Cannot write ${file}: it is a folder; name a file in it.`);
  }
  assertFolderOf(file);
  const partial = `${file}.partial-${process.pid}`;
  const stream = createWriteStream(partial, { mode: 0o600 });
  const failed = new Promise<never>((_, reject) => stream.once("error", reject));
  failed.catch(() => {});
  try {
    await Promise.race([once(stream, "open"), failed]);
    const answer = await write(async (text) => {
      if (!stream.write(text)) await Promise.race([once(stream, "drain"), failed]);
    });
    stream.end();
    await Promise.race([once(stream, "finish"), failed]);
    renameSync(partial, file);
    return answer;
  } catch (error) {
    stream.destroy();
    rmSync(partial, { force: true });
    throw new AdminError(`Cannot write ${file}: ${(error as Error).message}`);
  }
}

/**
 * The text `make` answers to the file --out names (and `what` it holds to
 * standard error), else to standard output. `make` runs once the file is open:
 * an export that cannot be written is not made, nor recorded in the audit trail.
 */
export async function writeOut(
  { values, stdout, stderr }: CommandContext,
  make: () => Promise<{ text: string; what: string }>,
): Promise<void> {
  if (typeof values.out !== "string") return void stdout.write((await make()).text);
  const what = await writePrivateFile(values.out, async (sink) => {
    const { text, what } = await make();
    await sink(text);
    return what;
  });
  stderr.write(`Wrote ${what} to ${values.out}.\n`);
}
