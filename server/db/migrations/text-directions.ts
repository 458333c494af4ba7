/*
 * How a comment stored before text-direction character references were
 * refused loses them: migration 061 cleans the stored comments with it, 062
 * the live events kept of them, and the import
 * (server/portability/export-comments.ts) an export taken before the
 * upgrade, so that a backup restores as the database was upgraded. Those
 * migrations ran it: it changes only with a rewrite that leaves every
 * comment the same (server/db/migrations.test.ts pins it).
 */

/** The text-direction characters (Unicode's Bidi_Control), as Unicode 16 lists them. */
const directions = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
/**
 * A character reference Markdown renders as one of them: hexadecimal of at
 * most six digits, decimal of at most seven, or `&lrm;` and `&rlm;`.
 */
const references =
  /&#[xX](?=[0-9a-fA-F]{1,6};)0*(?:61[cC]|200[eEfF]|202[a-eA-E]|206[6-9]);|&#(?=[0-9]{1,7};)0*(?:1564|8206|8207|823[4-8]|829[4-7]);|&(?:lrm|rlm);/g;

/** Removes `pattern` until none is left: taking one out can join another (`&&rlm;#x202E;`). */
function removedAll(text: string, pattern: RegExp): string {
  for (let before = text; ; before = text) {
    text = text.replace(pattern, "");
    if (text === before) return text;
  }
}

/** A comment's text and the HTML kept of it (null: older than Markdown, rendered when read). */
export type StoredComment = { content: string; content_html: string | null };

/**
 * The comment without the text-direction characters it shows, or null when
 * it shows none. One shows them when its HTML does (or, with no HTML, when
 * its text would); it then loses them from its HTML, and from its text
 * typed and as references, all of them; one whose HTML shows none, as a
 * reference in code, stays as it is. What is left may be empty: a comment
 * that held nothing else.
 */
export function withoutDirections(row: StoredComment): StoredComment | null {
  const shows =
    row.content_html === null
      ? row.content.search(directions) >= 0 || row.content.search(references) >= 0
      : row.content_html.search(directions) >= 0;
  if (!shows) return null;
  return {
    content: removedAll(removedAll(row.content, directions), references),
    content_html: row.content_html?.replace(directions, "") ?? null,
  };
}
