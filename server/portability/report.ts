import type { ZodType } from "zod";

/*
 * What an import tells the owner: every problem that stops it (the file is
 * checked whole before anything is written), and every item it leaves out on
 * purpose, each with where in the file it is and why.
 */

/** Something wrong with the input: nothing is imported until it is fixed. */
export type Problem = { where: string; message: string };

/** An item left out on purpose (unknown post, deleted or spam in the source…). */
export type Skipped = { where: string; reason: string };

/** What a zod schema of the contract says of `value` at `where`: its first complaint, or none. */
export function refusedBy(schema: ZodType, value: unknown, where: string): Problem[] {
  const checked = schema.safeParse(value);
  return checked.success ? [] : [{ where, message: checked.error.issues[0]?.message ?? "" }];
}

/**
 * A value from the input as a report's line names it: a JSON string, so that
 * its quotes and control characters read as what they are, cut after 60
 * characters, so that a long one does not fill the screen.
 */
export const quoted = (value: string): string =>
  JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);

/** How many of each kind of row an import added, and how many it found already there. */
export type Tally = Record<string, { added: number; present: number }>;

/** The most problems a report lists, and an import collects. */
const problemsMax = 200;

/**
 * Thrown by a `problemList` that is full: the check stops there. A file of
 * a million bad rows (three bytes each, `{}`) would otherwise hold several
 * problems for each in memory, gigabytes for a few megabytes, and take
 * minutes to list what the first lines already say.
 */
export class TooManyProblems extends Error {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(`more than ${problems.length} problems`);
    this.problems = problems;
  }
}

/** A list for a file's problems, `first` in it, that throws `TooManyProblems` rather than take one past the most a report lists. */
export function problemList(first: readonly Problem[] = []): Problem[] {
  const list: Problem[] = [];
  list.push = (...items: Problem[]) => {
    for (const item of items) {
      if (list.length >= problemsMax) throw new TooManyProblems([...list]);
      Array.prototype.push.call(list, item);
    }
    return list.length;
  };
  list.push(...first);
  return list;
}

export function formatProblems(problems: Problem[], { stopped = false } = {}): string {
  const shown = problems.slice(0, problemsMax).map((p) => `  ${p.where}: ${p.message}\n`);
  const more =
    problems.length > shown.length ? `  … and ${problems.length - shown.length} more\n` : "";
  const count = `${stopped ? "more than " : ""}${problems.length} problem${problems.length === 1 && !stopped ? "" : "s"}`;
  const end = stopped
    ? "  … the check stopped there: correct these and import the file again\n"
    : "";
  return `Nothing was imported: the input has ${count}.\n${shown.join("")}${more}${end}`;
}

export function formatSkipped(skipped: Skipped[]): string {
  if (skipped.length === 0) return "";
  return `Skipped ${skipped.length}:\n${skipped.map((s) => `  ${s.where}: ${s.reason}\n`).join("")}`;
}

export function formatTally(counts: Tally, dryRun: boolean): string {
  const lines = Object.entries(counts).map(
    ([what, { added, present }]) =>
      `  ${what}: ${added} ${dryRun ? "to add" : "added"}${present > 0 ? `, ${present} already there` : ""}\n`,
  );
  return lines.length === 0 ? "  nothing\n" : lines.join("");
}
