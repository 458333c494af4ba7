import { decodeHtmlEntities } from "../../../contract/html.ts";

/** A piece of an excerpt, and whether it matched the search. */
export type ExcerptPart = { text: string; match: boolean };

/**
 * Pagefind's excerpts are HTML: the page's text, escaped, with each match in
 * <mark>. They are split into text parts here, never inserted as HTML, so
 * whatever an indexed page held can only ever be shown as text.
 */
export function excerptParts(excerpt: string): ExcerptPart[] {
  const parts: ExcerptPart[] = [];
  const pieces = excerpt.split(/<mark>|<\/mark>/);
  pieces.forEach((piece, index) => {
    const text = decodeHtmlText(piece);
    if (text !== "") parts.push({ text, match: index % 2 === 1 });
  });
  return parts;
}

/** Entity-decodes text and drops any stray tag, leaving plain text. */
export function decodeHtmlText(html: string): string {
  return decodeHtmlEntities(html.replace(/<[^>]*>/g, ""));
}
