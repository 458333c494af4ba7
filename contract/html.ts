/*
 * HTML text, both ways, for every side that writes or reads HTML as text:
 * the server's pages and mails, the content's build, the feeds and the
 * search's excerpts (which are shown as text, never inserted as HTML), and
 * the pages' JSON-LD, written by the build and again by the server.
 * Kept here, the lowest folder all of them may import (docs/architecture.md,
 * "Layers").
 */

/**
 * How every page and mail the server writes starts: as Astro writes the built pages, and as
 * html-validate's doctype-style asks (the Nu checker takes either).
 */
export const doctype = "<!DOCTYPE html>";

/** Text made safe to place in HTML (or XML), in an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const named: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

/** A character reference's code point, when it names a character HTML allows. */
function character(code: number): string | undefined {
  const surrogate = code >= 0xd800 && code <= 0xdfff;
  return code > 0 && code <= 0x10ffff && !surrogate ? String.fromCodePoint(code) : undefined;
}

/**
 * The text an escaped HTML string stands for: the named references escaping
 * produces (and `&apos;`, `&nbsp;`) and every numeric one (`&#39;`, `&#x27;`).
 * A reference it does not know stays as written.
 */
export function decodeHtmlEntities(html: string): string {
  return html.replace(
    /&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/g,
    (entity, name: string) => {
      if (!name.startsWith("#")) return named[name] ?? entity;
      const hex = name[1] === "x" || name[1] === "X";
      return character(hex ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1))) ?? entity;
    },
  );
}

/** JSON for a <script> element: nothing in it can close the element. */
export const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028|\u2029/g, "");

/** A search result's address as the site's path: the canonical URLs have no trailing slash, Pagefind's do. */
export const sitePath = (url: string) => url.replace(/(.)\/(?=$|#|\?)/, "$1");
