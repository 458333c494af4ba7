import { mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Feed } from "feed";
import { feedFormats, feedPath } from "../app/lib/feed-paths.ts";
import { type Item, lastChanged, newestFirst, type Section, sections } from "../content/items.ts";
import { escapeHtml } from "../contract/html.ts";

/*
 * The feeds (docs/decisions/013-item-pages-and-feeds.md): RSS 2.0, Atom and
 * JSON Feed of every item, newest first, and the same three per section, with
 * each item's full text. Written at build time next to the pages.
 */

type Site = {
  siteUrl: string;
  siteName: string;
  /** The owner (content/owner.md, or SITE_OWNER_NAME): every item's author. */
  ownerName: string;
  /** RSS 2.0 names an author by email address: the site's contact address. */
  contactEmail: string;
  description: string;
};

const day = (date: string) => new Date(`${date}T00:00:00Z`);

function feedOf(site: Site, items: Item[], section: Section | null, clientDir: string) {
  const home = section ? `${site.siteUrl}/${section.id}` : `${site.siteUrl}/`;
  const title = section ? `${site.siteName}: ${section.name}` : site.siteName;
  const author = {
    name: site.ownerName,
    email: site.contactEmail,
    link: `${site.siteUrl}/about`,
  };
  const sorted = newestFirst(items);
  const feed = new Feed({
    id: home,
    title,
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
      title: item.title,
      id: url,
      link: url,
      date: day(lastChanged(item)),
      published: day(item.published),
      description: item.description,
      content: item.html,
      author: [author],
      category: [{ name: item.section.name }],
      image: {
        url: `${site.siteUrl}${item.shareImage}`,
        type: "image/png",
        // An RSS enclosure states its size; the share images are written first.
        length: statSync(path.join(clientDir, item.shareImage)).size,
      },
    });
  }
  return feed;
}

type JsonFeedAuthor = { name?: string; url?: string; avatar?: string };
type JsonFeed = Record<string, unknown> & {
  author?: JsonFeedAuthor;
  items: (Record<string, unknown> & { author?: JsonFeedAuthor })[];
};

/**
 * The library writes JSON Feed 1.0; readers now expect 1.1
 * (https://www.jsonfeed.org/version/1.1/): `authors`, a list, in place of
 * `author`, and the feed's `language`.
 */
export function jsonFeed11(json1: string): string {
  const { author, items, ...feed } = JSON.parse(json1) as JsonFeed;
  return JSON.stringify(
    {
      ...feed,
      version: "https://jsonfeed.org/version/1.1",
      language: "en",
      ...(author ? { authors: [author] } : {}),
      items: items.map(({ author: itemAuthor, ...item }) => ({
        ...item,
        ...(itemAuthor ? { authors: [itemAuthor] } : {}),
      })),
    },
    null,
    4,
  );
}

/** Writes /rss.xml, /atom.xml, /feed.json and each section's three; returns their paths. */
export function writeFeeds(clientDir: string, site: Site, items: Item[]): string[] {
  const written: string[] = [];
  const scopes: (Section | null)[] = [null, ...sections];
  for (const section of scopes) {
    const own = section ? items.filter((item) => item.section.id === section.id) : items;
    const feed = feedOf(site, own, section, clientDir);
    const bodies = { rss: feed.rss2(), atom: feed.atom1(), json: jsonFeed11(feed.json1()) };
    for (const format of feedFormats) {
      const file = path.join(clientDir, feedPath(format, section?.id));
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, bodies[format.id]);
      written.push(feedPath(format, section?.id));
    }
  }
  return written;
}

/**
 * sitemap.xml: every listed page and every item's page. An item's lastmod is
 * its last change; a list page's is its newest item's; other pages carry the
 * day of the build.
 */
export function sitemapXml(
  siteUrl: string,
  listedPaths: readonly string[],
  items: Item[],
  today: string,
) {
  const newestOf = new Map<string, string>();
  for (const item of items) {
    const listPath = `/${item.section.id}`;
    const changed = lastChanged(item);
    if (changed > (newestOf.get(listPath) ?? "")) newestOf.set(listPath, changed);
  }
  const entries = [
    ...listedPaths.map((route) => ({ route, lastmod: newestOf.get(route) ?? today })),
    ...items.map((item) => ({ route: item.path, lastmod: lastChanged(item) })),
  ];
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${entries.map(({ route, lastmod }) => `  <url><loc>${escapeHtml(`${siteUrl}${route}`)}</loc><lastmod>${lastmod}</lastmod></url>`).join("\n")}
</urlset>
`;
}
