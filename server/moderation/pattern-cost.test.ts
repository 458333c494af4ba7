import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { limits } from "../../contract/limits.ts";
import { renderComment } from "../comments/markdown.ts";
import { createBlocklist } from "./blocklist.ts";
import { checkContent } from "./content-rules.ts";
import { checkEnquiryContent } from "./enquiry-rules.ts";
import { contactsIn } from "./spam/contacts.ts";
import { featuresOf } from "./spam/model.ts";

/*
 * What the worst text a client may send costs the only thread: every pattern
 * that reads a comment or an enquiry must take time in proportion to the
 * text, never to its square. A pattern that tries a long run of letters from
 * each of its positions ("w.w.w.…", "aaaa…", a row of spaces) took 90 ms on a
 * 2,000-character comment and 260 ms on a 4,000-character enquiry; as
 * written now each costs well under a millisecond a function.
 */

const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-pattern-cost-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const blocklist = createBlocklist(dataDir).entries();

/** Shapes that made a pattern retry from every position, found by timing every pair of these pieces. */
const units = [
  "w",
  " ",
  "\n",
  "w.",
  "ww.",
  "w ",
  "w_",
  ".www.",
  "-www.",
  "x.www.",
  "a@",
  "a.",
  "1 ",
  "1a",
  "é1",
  "+.",
  "+-",
  "at ",
  "x at ",
  "at [",
  "at dot ",
  "dot ",
  "c dot ",
  "one ",
  ":one ",
  "telegram ",
  "c telegram ",
  "<a ",
  "<a %",
  "[url ",
  "[",
  "( ",
  "c )",
  "*w",
  "_-",
  "-\n",
  "#a ",
  "@a",
];

function filled(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Runs of one thing between two others: the tail of a pattern fails after each long middle. */
const runs = (length: number) => [
  `telegram${" ".repeat(length - 10)}x`,
  `${"a".repeat(length - 10)} at x.com`,
  `x@${filled("a.", length - 4)}1`,
  `${"\n".repeat(length - 20)}[x]: https://x`,
  `<a ${"x".repeat(length - 4)}`,
  `${filled("one ", length - 4)}x`,
];

/**
 * The least of a few runs, in milliseconds of this thread's CPU time: what the
 * work costs, without the time a busy machine gives to other processes, nor
 * the CPU that other test files' threads in this process use meanwhile.
 */
function cost(run: () => unknown): number {
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 9; i++) {
    const started = process.threadCpuUsage();
    run();
    const used = process.threadCpuUsage(started);
    least = Math.min(least, (used.user + used.system) / 1000);
  }
  return least;
}

const checks: [name: string, maxLength: number, check: (text: string) => unknown][] = [
  [
    "the comment rules",
    limits.commentMax,
    (text) => checkContent(text, { maxLinks: 2, blocklist }),
  ],
  ["the comment's Markdown", limits.commentMax, renderComment],
  ["the enquiry rules", limits.enquiryMessageMax, (text) => checkEnquiryContent(text, blocklist)],
  ["links and contact details", limits.enquiryMessageMax, contactsIn],
  ["the spam filter's features", limits.enquiryMessageMax, featuresOf],
];

describe("the cost of the worst text", () => {
  it.each(checks)("%s take under 5 ms on the longest text a client may send", (_, max, check) => {
    // Compiled before it is timed, as it is on a server that has read a comment.
    check("An ordinary comment about fuel injectors, with https://example.org in it.");
    const inputs = [...units.map((unit) => filled(unit, max)), ...runs(max)];
    const costs = inputs.map((text) => ({ text: text.slice(0, 24), ms: cost(() => check(text)) }));
    const worst = costs.reduce((a, b) => (b.ms > a.ms ? b : a));
    expect(worst.ms, `the worst input began ${JSON.stringify(worst.text)}`).toBeLessThan(5);
  });
});
