/*
 * Where the feeds live (docs/decisions/013-item-pages-and-feeds.md): every item
 * at /rss.xml, /atom.xml and /feed.json; one section's at /science/rss.xml and
 * so on. The build writes them (scripts/feeds.ts) and every page's head
 * announces them; no settings here, so the build script can import this file.
 */
export const feedFormats = [
  { id: "rss", file: "rss.xml", type: "application/rss+xml", label: "RSS" },
  { id: "atom", file: "atom.xml", type: "application/atom+xml", label: "Atom" },
  { id: "json", file: "feed.json", type: "application/feed+json", label: "JSON Feed" },
] as const;

type FeedFormat = (typeof feedFormats)[number];

/** `/rss.xml` for the whole site, `/science/rss.xml` for one section. */
export const feedPath = (format: FeedFormat, sectionId?: string) =>
  sectionId ? `/${sectionId}/${format.file}` : `/${format.file}`;
