import { Marked } from "marked";
import { decodeHtmlEntities, escapeHtml } from "../contract/html.ts";
import { withoutSampleVoiceMarkers } from "./sample-voice-marker.ts";

/* The Markdown of content bodies, rendered for the pages (content/load.ts), and its text. */

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
  const taken = new Set<string>();
  const idOf = (text: string) => {
    const base = anchorId(text) || "part";
    let id = base;
    for (let n = 2; taken.has(id); n += 1) id = `${base}-${n}`;
    taken.add(id);
    return id;
  };
  const marked = new Marked({
    gfm: true,
    renderer: {
      // Content is ours, but raw HTML would bypass the design; show it as text.
      html: ({ text }) => escapeHtml(text),
      heading({ tokens, depth }) {
        const level = Math.min(6, depth + headingOffset);
        const inner = this.parser.parseInline(tokens);
        const id = headingIds ? ` id="${idOf(plainText(inner))}"` : "";
        return `<h${level}${id}>${inner}</h${level}>\n`;
      },
    },
  });
  return marked.parse(withoutSampleVoiceMarkers(markdown), { async: false });
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

/** The text of some rendered HTML (ours, from marked), without its tags. */
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
