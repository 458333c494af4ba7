/*
 * How a search word finds a page (docs/product.md, "Search"), the same in the
 * search page's index (server/web/site-search.ts) and in the dialog, which
 * keeps of Pagefind's results only the pages these rules find.
 */

/** Words of a search beyond this are not looked for. */
export const searchWordsMax = 10;
/** Below this length a word must match whole; from it on, as the start of a longer one. */
export const prefixFrom = 3;

/**
 * The words of some text as the search compares them: lower case, accents
 * dropped, split at anything but letters and digits (`fuel-cell`: fuel, cell).
 */
export function searchKeys(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((key) => key !== "");
}

/**
 * An English word's other number, which a search word also finds whole:
 * "cookers" finds "cooker", "battery" "batteries" (Pagefind, in the dialog,
 * stems the same words). Null for a short word, or one that is not all letters.
 */
export function otherNumber(term: string): string | null {
  if (term.length <= prefixFrom || term === "news" || /\P{L}/u.test(term)) return null;
  if (term.endsWith("ies")) return `${term.slice(0, -3)}y`;
  if (term.endsWith("y")) return `${term.slice(0, -1)}ies`;
  if (/(?:s|x|z|ch|sh)es$/.test(term)) return term.slice(0, -2);
  if (term.endsWith("s") && !/(?:ss|us|is)$/.test(term)) return term.slice(0, -1);
  return null;
}

/** Whether a search word finds a word of a page: itself, a longer one it begins, or its other number. */
export const finds = (term: string, key: string) =>
  key === term || (term.length >= prefixFrom && key.startsWith(term)) || key === otherNumber(term);

/** Whether a page's text holds every word of a search (its first `searchWordsMax`). */
export function holdsEvery(words: string, text: string): boolean {
  const keys = searchKeys(text);
  return [...new Set(searchKeys(words))]
    .slice(0, searchWordsMax)
    .every((term) => keys.some((key) => finds(term, key)));
}
