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

const entities: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

/** Entity-decodes text and drops any stray tag, leaving plain text. */
export function decodeHtmlText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === "#") {
        const code =
          name[1] === "x" || name[1] === "X"
            ? Number.parseInt(name.slice(2), 16)
            : Number(name.slice(1));
        return Number.isFinite(code) && code >= 0 && code <= 0x10ffff
          ? String.fromCodePoint(code)
          : whole;
      }
      return entities[name.toLowerCase()] ?? whole;
    });
}
