import type { QuestionsResponse } from "../../contract/assistant.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import type { QuestionsRepository } from "./repository.ts";
import { termsOf } from "./terms.ts";

/**
 * The owner's reading of the assistant's questions, and the one action on
 * them, the same from the console and the command line (docs/architecture.md,
 * "Owner actions"). The unanswered questions are grouped by their words, the
 * largest group first: what readers looked for and the site does not say yet.
 */
export function questionActions({
  repository,
  retentionDays,
}: {
  repository: QuestionsRepository;
  retentionDays: number;
}) {
  return {
    async overview({ answered }: { answered?: boolean } = {}): Promise<QuestionsResponse> {
      const [questions, unanswered, totals] = await Promise.all([
        repository.list(answered === undefined ? {} : { answered }),
        repository.list({ answered: false, limit: 2000 }),
        repository.totals(),
      ]);
      return {
        questions,
        unanswered: groups(unanswered.map((q) => q.question)),
        totals,
        retentionDays,
      };
    },

    /** Deletes one question (a reader typed something personal into it, say). */
    remove: (by: OwnerActor, id: number): Promise<boolean> =>
      by.act(
        (trx) => repository.remove(id, trx),
        (done) => done && ["question delete", `question ${id}`],
      ),
  };
}

/**
 * What of a question groups it: the words of its first 200 characters, 24 at most. A
 * reader's question says what it is about in a dozen; one of 500 characters of short
 * words has 160, each to be read as the assistant reads words and looked up.
 */
const groupingCharsMax = 200;
const groupingWordsMax = 24;

/**
 * Questions put together when they share their rarest words: each question
 * joins the group of the first before it with which it shares at least half
 * of its words (as the assistant reads them), else starts one. Each group is
 * found through the words it holds, not by comparing every group: the questions
 * are anyone's, and 2,000 of them, each of words of its own, compared every
 * question with every group for ten seconds of the one thread every reader shares.
 */
function groups(questions: string[]): QuestionsResponse["unanswered"] {
  const found: {
    words: Set<string>;
    examples: string[];
    count: number;
    named: Map<string, number>;
  }[] = [];
  /** Each word, with the groups (by their place in `found`, in order) whose words hold it. */
  const holding = new Map<string, number[]>();
  for (const question of questions) {
    const words = new Set(
      [...termsOf(question.slice(0, groupingCharsMax))].slice(0, groupingWordsMax),
    );
    if (words.size === 0) continue;
    /** The words each group holding one of the question's shares with it, by its place. */
    const shared = new Map<number, number>();
    for (const word of words) {
      for (const at of holding.get(word) ?? []) shared.set(at, (shared.get(at) ?? 0) + 1);
    }
    let joined: number | undefined;
    for (const [at, count] of shared) {
      const size = found[at]?.words.size ?? 0;
      if (count * 2 >= Math.min(words.size, size) && (joined === undefined || at < joined)) {
        joined = at;
      }
    }
    const group = joined === undefined ? undefined : found[joined];
    if (group) {
      group.count += 1;
      if (group.examples.length < 3 && !group.examples.includes(question))
        group.examples.push(question);
      for (const word of words) group.named.set(word, (group.named.get(word) ?? 0) + 1);
    } else {
      for (const word of words) {
        const groups = holding.get(word);
        if (groups) groups.push(found.length);
        else holding.set(word, [found.length]);
      }
      found.push({
        words,
        examples: [question],
        count: 1,
        named: new Map([...words].map((word) => [word, 1])),
      });
    }
  }
  return found
    .sort((a, b) => b.count - a.count)
    .slice(0, 50)
    .map((group) => ({
      words: [...group.named]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([word]) => word)
        .join(", "),
      count: group.count,
      examples: group.examples,
    }));
}
