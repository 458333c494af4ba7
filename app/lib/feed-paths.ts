/*
 * Where the feeds live (docs/decisions/013-item-pages-and-feeds.md): every item
 * at /rss.xml, /atom.xml and /feed.json; one section's at /science/rss.xml and
 * so on. The build writes them (scripts/feeds.ts) and every page's head
 * announces them; no settings here, so the build script can import this file.
 */
export const feedFormats = [
  { id: "rss", file: "rss.xml", type: "application/rss+xml", label: "RSS", noun: " feed" },
  { id: "atom", file: "atom.xml", type: "application/atom+xml", label: "Atom", noun: " feed" },
  // Its name says "feed" already.
  { id: "json", file: "feed.json", type: "application/feed+json", label: "JSON Feed", noun: "" },
] as const;

type FeedFormat = (typeof feedFormats)[number];

/**
 * A feed as a reader reads its name, "RSS feed of Science in Everyday", "JSON Feed of …":
 * a link's `title` in a page's head and the visible link's name alike. `label` is the part shown.
 */
export const feedName = (format: FeedFormat, scope: string) =>
  `${format.label}${format.noun} of ${scope}`;

/** `/rss.xml` for the whole site, `/science/rss.xml` for one section. */
export const feedPath = (format: FeedFormat, sectionId?: string) =>
  sectionId ? `/${sectionId}/${format.file}` : `/${format.file}`;
