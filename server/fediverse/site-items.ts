import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/*
 * What the site publishes, read from the built site's own JSON Feed
 * (feed.json, every item with its full text, summary and share image): the
 * same list the feeds and the pages are built from, so the Fediverse never
 * sees an item the site does not show, and the server does not read the
 * content folder at start.
 */

const feedSchema = z.object({
  items: z.array(
    z.object({
      url: z.url(),
      title: z.string(),
      summary: z.string().optional(),
      content_html: z.string(),
      image: z.url().optional(),
      date_published: z.string(),
      date_modified: z.string().optional(),
      tags: z.array(z.string()).optional(),
    }),
  ),
});

export type SiteItem = {
  /** `/science/pressure-cooker` */
  path: string;
  section: string;
  slug: string;
  title: string;
  summary: string | null;
  html: string;
  /** The share image's path. */
  image: string | null;
  /** What the share image shows, as the page's `og:image:alt` says it: its section's name and its title. */
  imageAlt: string;
  published: string;
  updated: string;
  /** Of what the Fediverse is sent: a change of it is an `Update`. */
  digest: string;
};

/** The items of the built site in `clientRoot`; none when it has no feed. */
export function readSiteItems(clientRoot: string): SiteItem[] {
  let text: string;
  try {
    text = readFileSync(path.join(clientRoot, "feed.json"), "utf8");
  } catch {
    return [];
  }
  const feed = feedSchema.parse(JSON.parse(text));
  return feed.items.flatMap((entry) => {
    const itemPath = new URL(entry.url).pathname.replace(/\/$/, "");
    const [, section, slug, ...rest] = itemPath.split("/");
    if (!section || !slug || rest.length > 0) return [];
    const image = entry.image ? new URL(entry.image).pathname : null;
    const sent = [entry.title, entry.summary ?? "", entry.content_html, image ?? ""];
    return [
      {
        path: itemPath,
        section,
        slug,
        title: entry.title,
        summary: entry.summary ?? null,
        html: entry.content_html,
        image,
        imageAlt: [...(entry.tags ?? []).slice(0, 1), entry.title].join(", "),
        published: entry.date_published,
        updated: entry.date_modified ?? entry.date_published,
        digest: createHash("sha256").update(JSON.stringify(sent)).digest("hex"),
      },
    ];
  });
}
