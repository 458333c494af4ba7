import MarkdownIt from "markdown-it";
import { decodeHtmlEntities } from "../contract/html.ts";
import { withoutSampleVoiceMarkers } from "./sample-voice-marker.ts";

/* The Markdown of content bodies, rendered for the pages (content/load.ts), and its text. */

/**
 * CommonMark with tables and strikethrough; an address written with its scheme
 * is a link. Content is ours, but raw HTML would bypass the design: it shows
 * as text, and so does a link to anything but a web page (no `javascript:`).
 */
export const contentMarkdown = new MarkdownIt({ linkify: true });

/*
 * A table wider than a phone's column (four columns of words) scrolls sideways
 * in a box of its own, as wide as the text, rather than pushing the whole page
 * wider than the screen. The box is the table's: its rows and headers stay a
 * table to a screen reader, which a table made a block would not. A keyboard
 * reaches it (a region, named, in the tab order) to scroll it with the arrows.
 */
contentMarkdown.renderer.rules.table_open = () =>
  '<section class="table-scroll" aria-label="Table, scrolls sideways" tabindex="0"><table>\n';
contentMarkdown.renderer.rules.table_close = () => "</table>\n</section>\n";

/**
 * Headings in a body sit below the card or page title that holds them. On a
 * page of its own (`headingIds`), each heading carries an id made from its
 * words, so a part of the page can be linked to (the assistant's sources,
 * docs/product.md, "Chat with Me"); a card's copy has none, since a list page
 * holds many bodies and their headings would share ids.
 */
export function renderMarkdown(
  markdown: string,
  headingOffset: number,
  { headingIds = false }: { headingIds?: boolean } = {},
): string {
  const { options, renderer } = contentMarkdown;
  const tokens = contentMarkdown.parse(withoutSampleVoiceMarkers(markdown), {});
  const taken = new Set<string>();
  for (const [index, token] of tokens.entries()) {
    if (!token.type.startsWith("heading_")) continue;
    token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + headingOffset)}`;
    if (headingIds && token.nesting === 1) {
      const inner = renderer.renderInline(tokens[index + 1]?.children ?? [], options, {});
      const base = anchorId(plainText(inner)) || "part";
      let id = base;
      for (let n = 2; taken.has(id); n += 1) id = `${base}-${n}`;
      taken.add(id);
      token.attrSet("id", id);
    }
  }
  return renderer.render(tokens, options, {});
}

export function countWords(markdown: string): number {
  const plain = withoutSampleVoiceMarkers(markdown)
    .replace(/[#*_>`|[\]()-]+/g, " ")
    .trim();
  return plain === "" ? 0 : plain.split(/\s+/).length;
}

/** "Attention to Details" → "attention-to-details". */
export function anchorId(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** The text of some rendered HTML (ours, from Markdown), without its tags. */
export function plainText(html: string): string {
  return decodeHtmlEntities(html.replace(/<[^>]+>/g, " "))
    .replace(/\s+/g, " ")
    .trim();
}

/** Cuts text to at most `max` characters at a word boundary, with an ellipsis when cut. */
export function clip(text: string, max = 160): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.–-]+$/, "")}…`;
}

export function firstParagraph(html: string): string {
  const match = /<p>([\s\S]*?)<\/p>/.exec(html);
  return plainText(match?.[1] ?? html);
}
