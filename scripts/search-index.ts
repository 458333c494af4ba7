import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as pagefind from "pagefind";

/**
 * The site's search index (docs/decisions/014-search-and-your-data.md): Pagefind
 * reads the built pages and writes a static index under `/pagefind/`, which the
 * header's search dialog loads only when a reader opens it.
 *
 * Only what `data-pagefind-body` marks is indexed (each page's <main>, set by
 * app/layouts/page.astro on pages meant for search engines), so the header,
 * sidebar, footer and mail-only pages stay out. The placeholders the server
 * fills with comments hold nothing at build time and are skipped: readers'
 * comments are not searchable.
 *
 * A piece of writing is found once, on its own page: `itemPaths` lists those
 * pages (`/science/pressure-cooker`), and the copy of each on its section's list
 * page is left out of the index (`withoutItemCopies`).
 *
 * The server reads the same index, its page fragments with each page's section
 * (`data-pagefind-meta`, set on <main> by the layout), to answer the search page
 * without JavaScript (server/web/site-search.ts,
 * docs/decisions/033-search-without-javascript.md).
 */
const unusedInterfaces = new Set([
  "pagefind-ui.js",
  "pagefind-ui.css",
  "pagefind-modular-ui.js",
  "pagefind-modular-ui.css",
  "pagefind-component-ui.js",
  "pagefind-component-ui.css",
  "pagefind-highlight.js",
]);

export async function writeSearchIndex(
  clientDir: string,
  itemPaths: Iterable<string>,
): Promise<number> {
  const ownPages = new Set(itemPaths);
  const outputPath = path.join(clientDir, "pagefind");
  rmSync(outputPath, { recursive: true, force: true });
  let pages = 0;
  try {
    const { index, errors } = await pagefind.createIndex({
      excludeSelectors: ["ewe-fragment"],
      forceLanguage: "en",
    });
    if (!index) throw new Error(`Pagefind could not start: ${errors.join("; ")}`);
    for (const file of readdirSync(clientDir, { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".html") || file.startsWith(`pagefind${path.sep}`)) continue;
      const added = await index.addHTMLFile({
        sourcePath: file,
        content: withoutItemCopies(
          withCardAnchors(readFileSync(path.join(clientDir, file), "utf8")),
          file,
          ownPages,
        ),
      });
      if (added.errors.length > 0) throw new Error(`${file}: ${added.errors.join("; ")}`);
    }
    // The files are taken in memory and written here: `writeFiles` answered
    // before the service had written them all, and closing the service ends
    // its process, which once left pagefind.js cut off at 32 KB under load
    // (the header's search then could not load).
    const bundle = await index.getFiles();
    if (bundle.errors.length > 0) throw new Error(bundle.errors.join("; "));
    for (const file of bundle.files) {
      // Pagefind's ready-made interfaces: the site has its own dialog.
      if (unusedInterfaces.has(file.path)) continue;
      const target = path.join(outputPath, file.path);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, file.content);
    }
    pages = indexedPages(outputPath);
  } finally {
    await pagefind.close();
  }
  return pages;
}

/**
 * Pagefind splits a page into parts at headings that carry an id, and links a
 * result to the best part. A card's title is the heading, but its id (the
 * deep link that opens it, docs/product.md, "Cards, tabs and accordions") sits
 * on an anchor inside the card; the copy Pagefind reads gets the id on the
 * title too, so a result leads straight to `/science#pressure-cooker`. The
 * served pages are not changed.
 */
export function withCardAnchors(html: string): string {
  return html.replace(
    /(<details\b[^>]*\bdata-card="([^"]+)"[^>]*>\s*<summary\b[^>]*>\s*<h[1-6])\b/g,
    '$1 id="$2"',
  );
}

/**
 * A section's list page carries a card (or a summary) of each of its items,
 * and each item also has a page of its own: indexed both, every item was
 * found twice, once on each. The copy Pagefind reads of a list page
 * (`file`, `science/index.html`) marks every element whose `id` or
 * `data-card` names an item with a page of its own (`/science/<id>`) to be
 * ignored, with all it holds; the section's own text stays searchable.
 */
export function withoutItemCopies(html: string, file: string, itemPaths: Set<string>): string {
  const dir = path.posix.dirname(file.split(path.sep).join("/"));
  const section = dir === "." ? "" : `/${dir}`;
  return html.replace(
    /<([a-z][\w-]*)\b([^>]*?\b(?:data-card|id)="([^"]+)"[^>]*)>/g,
    (tag, name: string, attributes: string, id: string) =>
      itemPaths.has(`${section}/${id}`) ? `<${name}${attributes} data-pagefind-ignore="all">` : tag,
  );
}

/** How many pages the index holds, from the entry file written above. */
function indexedPages(outputPath: string): number {
  const entry = JSON.parse(readFileSync(path.join(outputPath, "pagefind-entry.json"), "utf8")) as {
    languages: Record<string, { page_count: number }>;
  };
  return Object.values(entry.languages).reduce((sum, language) => sum + language.page_count, 0);
}
