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

/** Whether a search word finds a word of a page: itself, or a longer one it begins. */
export const finds = (term: string, key: string) =>
  key === term || (term.length >= prefixFrom && key.startsWith(term));

/** Whether a page's text holds every word of a search (its first `searchWordsMax`). */
export function holdsEvery(words: string, text: string): boolean {
  const keys = searchKeys(text);
  return [...new Set(searchKeys(words))]
    .slice(0, searchWordsMax)
    .every((term) => keys.some((key) => finds(term, key)));
}
