import { mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Feed } from "feed";
import { feedFormats, feedPath } from "../app/lib/feed-paths.ts";
import { type Item, lastChanged, newestFirst, type Section, sections } from "../content/items.ts";
import { escapeHtml } from "../contract/html.ts";

/*
 * The feeds (docs/decisions/013-item-pages-and-feeds.md): RSS 2.0, Atom and
 * JSON Feed of every item, newest first, with each item's full text, and the
 * same three per section; and the sitemap. Written by the build next to the
 * pages, from the one list of items (content/items.ts).
 */

/**
 * The owner (content/owner.md, or SITE_OWNER_NAME) is every item's author; RSS 2.0
 * names an author by email address: the site's contact address.
 */
type Site = Record<"siteUrl" | "siteName" | "ownerName" | "contactEmail" | "description", string>;

const day = (date: string) => new Date(`${date}T00:00:00Z`);

/**
 * An item's HTML with its links and pictures on the site made absolute: a feed
 * reader shows the text away from the site, where `/technical/…` leads nowhere.
 */
const absolute = (html: string, siteUrl: string) =>
  html.replace(/(\s(?:href|src)=")\/(?!\/)/g, `$1${siteUrl}/`);

/**
 * The library wraps titles, summaries and texts in CDATA sections and splits
 * only the first `]]>` in each, so a second would end the section early and
 * break the XML. In HTML `]]&gt;` reads the same.
 */
const cdataSafe = (html: string) => html.replaceAll("]]>", "]]&gt;");

type Format = (typeof feedFormats)[number]["id"];

/**
 * An item's title and summary as each format reads them. Atom's
 * `type="html"` title and summary, and RSS's description, are HTML: a plain
 * `&` or `<` in them would be read as markup. RSS's title and JSON Feed's
 * title and summary are plain text.
 */
function textsFor(format: Format, item: Item) {
  // Only what markup needs: a reader's app that shows the HTML as text shows
  // an apostrophe, rather than `&#39;`, in the many titles that have one.
  const html = (text: string) =>
    text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return {
    title: format === "atom" ? html(item.title) : item.title,
    description: format === "json" ? item.description : html(item.description),
  };
}

function feedOf(
  site: Site,
  items: Item[],
  section: Section | null,
  clientDir: string,
  format: Format,
) {
  const home = `${site.siteUrl}/${section?.id ?? ""}`;
  const author = { name: site.ownerName, email: site.contactEmail, link: `${site.siteUrl}/about` };
  const sorted = newestFirst(items);
  const feed = new Feed({
    id: home,
    title: section ? `${site.siteName}: ${section.name}` : site.siteName,
    description: site.description,
    link: home,
    language: "en",
    // No feed-level image: RSS wants a small bitmap and JSON Feed a square icon,
    // and the site has neither; each item carries its share image.
    favicon: `${site.siteUrl}/favicon.svg`,
    copyright: `© ${site.ownerName}`,
    updated: day(sorted.map(lastChanged).sort().at(-1) ?? "2025-01-01"),
    generator: false,
    author,
    feedLinks: Object.fromEntries(
      feedFormats.map((format) => [format.id, `${site.siteUrl}${feedPath(format, section?.id)}`]),
    ),
  });
  for (const item of sorted) {
    const url = `${site.siteUrl}${item.path}`;
    feed.addItem({
      ...textsFor(format, item),
      id: url,
      link: url,
      date: day(lastChanged(item)),
      published: day(item.published),
      content: cdataSafe(absolute(item.html, site.siteUrl)),
      author: [author],
      // Atom requires a category's term; its label is what readers show.
      category: [{ name: item.section.name, term: item.section.id }],
      // An RSS enclosure states its size: the build draws the share images first.
      image: {
        url: `${site.siteUrl}${item.shareImage}`,
        type: "image/png",
        length: statSync(path.join(clientDir, item.shareImage)).size,
      },
    });
  }
  return feed;
}

type JsonFeed = { author?: unknown; items: { author?: unknown }[] };

/**
 * The library writes JSON Feed 1.0; readers now expect 1.1
 * (https://www.jsonfeed.org/version/1.1/): `authors`, a list, in place of
 * `author`, and the feed's `language`.
 */
function jsonFeed11(json1: string): string {
  const { author, items, ...feed } = JSON.parse(json1) as JsonFeed;
  const authors = (one: unknown) => (one ? { authors: [one] } : {});
  const version = "https://jsonfeed.org/version/1.1";
  return JSON.stringify(
    {
      ...feed,
      version,
      language: "en",
      ...authors(author),
      items: items.map(({ author: own, ...item }) => ({ ...item, ...authors(own) })),
    },
    null,
    4,
  );
}

/** Writes /rss.xml, /atom.xml, /feed.json and each section's three; returns their paths. */
export function writeFeeds(clientDir: string, site: Site, items: Item[]): string[] {
  return [null, ...sections].flatMap((section) => {
    const own = items.filter((item) => !section || item.section.id === section.id);
    const written = (format: Format) => feedOf(site, own, section, clientDir, format);
    const bodies = {
      rss: () => written("rss").rss2(),
      atom: () => written("atom").atom1(),
      json: () => jsonFeed11(written("json").json1()),
    };
    return feedFormats.map((format) => {
      const file = path.join(clientDir, feedPath(format, section?.id));
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, bodies[format.id]());
      return feedPath(format, section?.id);
    });
  });
}

/**
 * sitemap.xml: every listed page and every item's page. An item's lastmod is
 * its last change; a list page's is its newest item's. Other pages carry none:
 * the build cannot tell the day they last changed, and the day of the build,
 * new on every build, would teach search engines to ignore every lastmod.
 */
export function sitemapXml(siteUrl: string, listedPaths: readonly string[], items: Item[]) {
  const newestOf = new Map<string, string>();
  for (const item of items) {
    const listPath = `/${item.section.id}`;
    const changed = lastChanged(item);
    if (changed > (newestOf.get(listPath) ?? "")) newestOf.set(listPath, changed);
  }
  const entries = [
    ...listedPaths.map((route) => ({ route, lastmod: newestOf.get(route) })),
    ...items.map((item) => ({ route: item.path, lastmod: lastChanged(item) })),
  ];
  const entry = ({ route, lastmod }: (typeof entries)[number]) =>
    `  <url><loc>${escapeHtml(`${siteUrl}${route}`)}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ""}</url>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${entries.map(entry).join("\n")}
</urlset>
`;
}
