/**
 * A written answer cut at its citations (docs/product.md, "Chat with Me"):
 * "[1]" or "[1, 3]" name the answer's sources by their place, from 1. The
 * island and the page without JavaScript turn each into a link the site
 * builds to that source; every other character stays text, and a number
 * that names no source is left as the model wrote it. No zod here: the
 * island imports it.
 */
type AnswerPart = { text: string } | { source: number };

const citation = /\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\]/g;

export function citedParts(answer: string, sourceCount: number): AnswerPart[] {
  const parts: AnswerPart[] = [];
  let from = 0;
  for (const match of answer.matchAll(citation)) {
    const numbers = (match[1] ?? "").split(",").map((each) => Number(each.trim()));
    if (!numbers.every((n) => n >= 1 && n <= sourceCount)) continue;
    if (match.index > from) parts.push({ text: answer.slice(from, match.index) });
    for (const n of numbers) parts.push({ source: n });
    from = match.index + match[0].length;
  }
  if (from < answer.length) parts.push({ text: answer.slice(from) });
  return parts;
}
