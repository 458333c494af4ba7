/*
 * An item's HTML as other servers show it. Mastodon's sanitizer keeps
 * paragraphs, line breaks, links, emphasis, lists, quotes and code, and makes
 * a heading a bold paragraph; a table it unwraps, as Pleroma's and Akkoma's
 * do, running its cells together ("MomentWhat happenedThe broken eggVinata's
 * impatience…"). So each row of a table goes as a paragraph of its own: its
 * first cell in bold, each other on a line of its own after its column's
 * heading. The item's page keeps its table.
 */

/** A table as the site's Markdown writes it (content/markdown.ts), with its scrolling box. */
const table =
  /(?:<section class="table-scroll"[^>]*>\s*)?<table>([\s\S]*?)<\/table>(?:\s*<\/section>)?/g;
const row = /<tr>([\s\S]*?)<\/tr>/g;
const cell = /<t[hd]\b[^>]*>([\s\S]*?)<\/t[hd]>/g;

export function withTablesAsParagraphs(html: string): string {
  return html.replace(table, (_whole, inside: string) => {
    const rows = [...inside.matchAll(row)].map(([, cells = ""]) =>
      [...cells.matchAll(cell)].map(([, text = ""]) => text.trim()),
    );
    const headings = inside.includes("<thead>") ? (rows.shift() ?? []) : [];
    const lines = (cells: string[]) =>
      cells.flatMap((text, at) => {
        if (text === "") return [];
        if (at === 0) return [`<strong>${text}</strong>`];
        return [headings[at] ? `${headings[at]}: ${text}` : text];
      });
    return rows.map((cells) => `<p>${lines(cells).join("<br>")}</p>`).join("\n");
  });
}
