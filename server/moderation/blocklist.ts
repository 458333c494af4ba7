import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { foldLeet, foldLookAlikes } from "./fold.ts";

/**
 * The list of blocked words, links and domains (docs/decisions/010-moderation-and-spam.md):
 * the defaults in blocklist-defaults.txt, plus the owner's file `DATA_DIR/blocklist.txt`, read
 * again whenever it changes on disk. One entry a line:
 *
 *   casino bonus          a word or phrase: whole words, any letter case and
 *                         look-alike spelling ("C@S1NO", "c a s i n o", Cyrillic letters)
 *   example.com           a domain: links to it and to its subdomains
 *   .xyz                  every domain ending so (a top-level domain)
 *   https://example.com/x a link: every link that starts so
 *   !casino               takes a default entry off the list
 *   # …                   a comment
 */

export type BlocklistEntries = {
  /** Folded phrases, as " word word " with spaces around, in three spellings. */
  phrases: { plain: string; leet: string }[];
  domains: string[];
  suffixes: string[];
  links: string[];
};

/** Words of folded text, separated by single spaces, with a space at each end. */
export function wordsOf(folded: string): string {
  return ` ${folded.replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `;
}

/** A link without its scheme and "www.", lower case: how link entries compare. */
export function bareLink(link: string): string {
  return link
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, "")
    .replace(/^www\./, "");
}

function phraseOf(entry: string) {
  const plain = wordsOf(foldLookAlikes(entry));
  return { plain, leet: wordsOf(foldLeet(foldLookAlikes(entry))) };
}

function parse(lines: string[]): { add: string[]; remove: Set<string> } {
  const add: string[] = [];
  const remove = new Set<string>();
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("!")) remove.add(line.slice(1).trim().toLowerCase());
    else add.push(line);
  }
  return { add, remove };
}

function build(entries: string[]): BlocklistEntries {
  const result: BlocklistEntries = { phrases: [], domains: [], suffixes: [], links: [] };
  for (const entry of entries) {
    const lower = entry.toLowerCase();
    if (lower.includes("://")) result.links.push(bareLink(lower));
    else if (/^\.[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(lower)) result.suffixes.push(lower);
    else if (
      /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(lower) &&
      /[a-z]/.test(lower.split(".").pop() ?? "")
    ) {
      result.domains.push(lower.replace(/^www\./, ""));
    } else if (wordsOf(foldLookAlikes(entry)).trim() !== "") result.phrases.push(phraseOf(entry));
  }
  return result;
}

/** The defaults: spam vocabulary, URL shorteners and the top-level domains spam favours. */
const defaultBlocklist: readonly string[] = parse(
  readFileSync(path.join(import.meta.dirname, "blocklist-defaults.txt"), "utf8").split("\n"),
).add;

const fileHeader = `# Blocked words, links and domains for comments (docs/moderation.md, "Your blocklist").
# The site also blocks a built-in list (see docs/moderation.md); this file adds to it
# and is read again whenever it changes, without a restart. One entry a line:
#
#   casino bonus            a word or phrase (whole words, any case or look-alike spelling)
#   example.com             a domain: links to it and its subdomains
#   .xyz                    every domain ending so
#   https://example.com/x   every link that starts so
#   !casino                 takes an entry off the built-in list
#   # a comment
`;

/**
 * The defaults and the owner's file. Reading costs one stat() per comment;
 * the file is parsed again only when its modification time or size changes.
 * A file that cannot be read keeps the last list that could (and the
 * defaults), so a half-saved edit never opens the gates.
 */
export function createBlocklist(dataDir: string, log?: { warn(obj: object, msg: string): void }) {
  const file = path.resolve(dataDir, "blocklist.txt");
  try {
    // On PostgreSQL nothing else may have made DATA_DIR yet.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, fileHeader, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      log?.warn({ err: error, file }, "the blocklist file could not be created");
    }
  }
  let stamp = "";
  // Built at the first comment that is checked, from the file as it is then:
  // a start has no use for it.
  let current: BlocklistEntries | undefined;

  function load() {
    let next: string;
    try {
      const stats = statSync(file);
      next = `${stats.mtimeMs}:${stats.size}`;
      if (next === stamp) return;
      const { add, remove } = parse(readFileSync(file, "utf8").split(/\r?\n/));
      current = build([
        ...defaultBlocklist.filter((entry) => !remove.has(entry.toLowerCase())),
        ...add,
      ]);
      stamp = next;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        if (stamp !== "missing") current = build([...defaultBlocklist]);
        stamp = "missing";
        return;
      }
      log?.warn(
        { err: error, file },
        "the blocklist file could not be read; keeping the last list",
      );
    }
  }

  return {
    file,
    entries(): BlocklistEntries {
      load();
      current ??= build([...defaultBlocklist]);
      return current;
    },
  };
}

export type Blocklist = ReturnType<typeof createBlocklist>;
