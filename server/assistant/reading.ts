import type { Passage } from "./passages.ts";
import { sentencesOf } from "./quote.ts";
import { processTerm, termsOf, tokenizeWithAbbreviations } from "./terms.ts";

/** A text's words, each as the terms it is indexed under (an abbreviation has several). */
export const wordsOf = (text: string) =>
  tokenizeWithAbbreviations(text)
    .map((word) => processTerm(word))
    .filter((terms): terms is string[] => terms !== null && terms.length > 0);

/**
 * The names a text defines: the words before brackets, a colon or "is", back to a
 * common word ("a DC series motor:" names the DC series motor), unless they end a list
 * ("heat sinks and cooling towers:" is what the list shares).
 */
function definedNames(text: string): string[] {
  return [...text.matchAll(/(?=\s*\(|:|\s+(?:is|are|means)\b)/gu)].flatMap(({ index }) => {
    const before = text.slice(Math.max(0, index - 80), index).split(/([,;.!?()]|\s+)/);
    const name: string[] = [];
    for (let at = before.length - 1; at >= 0; at--) {
      const word = before[at] as string;
      if (/^\s*$/.test(word)) continue;
      if (!/^[\p{L}\p{N}-]+$/u.test(word) || processTerm(word) === null) {
        return name.length === 0 || /^(,|and|or)$/i.test(word) ? [] : [name.join(" ")];
      }
      name.unshift(word);
    }
    return name.length === 0 ? [] : [name.join(" ")];
  });
}

/** A memo of one value a passage, made once asked for. */
function perPassage<T>(passages: Passage[], make: (passage: Passage) => T) {
  const made = new Map<number, T>();
  return (id: number): T => {
    let value = made.get(id);
    if (value === undefined) {
      value = make(passages[id] as Passage);
      made.set(id, value);
    }
    return value;
  };
}

/**
 * How retrieval.ts reads the passages it judges, each once asked for: its words
 * in order as they are indexed, and its sentences (its page's title, its heading,
 * then its text's).
 */
export function passageReader(passages: Passage[]) {
  const words = perPassage(passages, (passage) =>
    wordsOf(`${passage.title}. ${passage.heading ?? ""}. ${passage.text}`),
  );
  const sentences = perPassage(passages, (passage) =>
    [passage.title, passage.heading ?? "", ...sentencesOf(passage.text)].map(termsOf),
  );
  const defined = perPassage(passages, (passage) =>
    wordsOf(definedNames(`${passage.heading ?? ""}. ${passage.text}`).join(" ")),
  );
  return {
    words,
    /** How many of the question's pairs of neighbouring words are neighbours in the passage. */
    pairsHeld(pairs: [string[], string[]][], id: number) {
      const held = words(id);
      const next = (at: number, second: string[]) =>
        held[at + 1]?.some((term) => second.includes(term)) ?? false;
      return pairs.filter(([first, second]) =>
        held.some((terms, at) => terms.some((term) => first.includes(term)) && next(at, second)),
      ).length;
    },
    /**
     * Whether the passage holds one of `terms` more than in passing: in two of its
     * sentences or more ("permanent-magnet motors … magnet-free designs" is one mention).
     */
    dwellsOn(id: number, terms: string[]) {
      return terms.some((term) => sentences(id).filter((held) => held.has(term)).length >= 2);
    },
    /**
     * Whether the passage defines one of `terms` where it names it: the name, every
     * word of it, followed by its long form in brackets, a colon or "is" ("OFDM
     * (orthogonal frequency division multiplexing)", "a DC series motor: the field
     * winding…"). A list before a colon is not defined by it: "radiator fins, heat
     * sinks and cooling towers: spread the hot fluid thin" is what they share.
     */
    defines(id: number, terms: string[]) {
      return defined(id).some((word) => word.some((term) => terms.includes(term)));
    },
    /** Whether the passage's page title or heading holds one of `terms`: the passage is about it. */
    about(id: number, terms: string[]) {
      return sentences(id)
        .slice(0, 2)
        .some((held) => terms.some((term) => held.has(term)));
    },
    /**
     * Whether a passage is on each of `on` (holds it under its heading, not only in
     * its page's title) and never says what is done without it.
     */
    onAndNotWithout(id: number, on: string[][]) {
      const passage = passages[id] as Passage;
      const own = sentences(id).slice(1);
      return (
        on.every((terms) => own.some((held) => terms.some((term) => held.has(term)))) &&
        !/\bwithout\b/i.test(`${passage.heading ?? ""} ${passage.text}`)
      );
    },
  };
}
