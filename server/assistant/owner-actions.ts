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
 * Questions put together when they share their rarest words: each question
 * joins the group of the first before it with which it shares at least half
 * of its words (as the assistant reads them), else starts one.
 */
function groups(questions: string[]): QuestionsResponse["unanswered"] {
  const found: {
    words: Set<string>;
    examples: string[];
    count: number;
    named: Map<string, number>;
  }[] = [];
  for (const question of questions) {
    const words = termsOf(question);
    if (words.size === 0) continue;
    const group = found.find((candidate) => {
      let shared = 0;
      for (const word of words) if (candidate.words.has(word)) shared += 1;
      return shared * 2 >= Math.min(words.size, candidate.words.size);
    });
    if (group) {
      group.count += 1;
      if (group.examples.length < 3 && !group.examples.includes(question))
        group.examples.push(question);
      for (const word of words) group.named.set(word, (group.named.get(word) ?? 0) + 1);
    } else {
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
