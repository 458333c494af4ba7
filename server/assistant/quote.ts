import { termsOf } from "./terms.ts";

/** An answer's quote (retrieval.ts): the sentences of its passage that hold the question. */

export const sentencesOf = (text: string) => text.split(/(?<=[.!?…])\s+(?=["“(]?[\p{Lu}\p{N}])/u);

/**
 * The sentences of `text` that answer: the one holding most of the question's
 * words (those of the question itself counting double those of the one before),
 * with its neighbour when it is short or the neighbour adds words asked about.
 */
export function quoteOf(text: string, asked: Set<string>, before: Set<string>): string {
  const sentences = sentencesOf(text);
  const weigh = (sentence: string) => {
    let weight = 0;
    for (const term of termsOf(sentence)) {
      if (asked.has(term)) weight += 2;
      else if (before.has(term)) weight += 1;
    }
    return weight;
  };
  const weights = sentences.map(weigh);
  let best = 0;
  weights.forEach((weight, at) => {
    if (weight > (weights[best] ?? 0)) best = at;
  });
  const words = (at: number) => (sentences[at] ?? "").split(/\s+/).length;
  let start = best;
  let end = best + 1;
  const next = end < sentences.length ? end : -1;
  if (next >= 0 && (words(best) < 18 || (weights[next] ?? 0) > 0)) end += 1;
  // A sentence that opens with "It", "This" or "They" needs the one before it, and an
  // answer its "Yes." or "No.".
  if (
    start > 0 &&
    (/^(it|this|that|these|they|its|their)\b/i.test(sentences[start] ?? "") ||
      /^(yes|no)\b[^ ]*$/i.test(sentences[start - 1] ?? ""))
  ) {
    start -= 1;
  }
  while (end - start > 3) end -= 1;
  return sentences.slice(start, end).join(" ");
}
