import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { siteName } from "../app/lib/site-name.ts";
import { sections, siteItems } from "../content/items.ts";
import { loadContent } from "../content/load.ts";
import { writeFeeds } from "./feeds.ts";

/**
 * JSON Feed 1.1 (https://www.jsonfeed.org/version/1.1/): what the spec requires
 * and the types of what it allows, with 1.0's `author` gone in favour of `authors`.
 */
const feedAuthor = z
  .object({ name: z.string().optional(), url: z.url().optional(), avatar: z.url().optional() })
  .refine(
    (author) => author.name ?? author.url ?? author.avatar,
    "an author needs a name, url or avatar",
  );
const noAuthor = (value: Record<string, unknown>) => !("author" in value);
const jsonFeed11 = z
  .object({
    version: z.literal("https://jsonfeed.org/version/1.1"),
    title: z.string().min(1),
    home_page_url: z.url().optional(),
    feed_url: z.url().optional(),
    description: z.string().optional(),
    icon: z.url().optional(),
    favicon: z.url().optional(),
    authors: z.array(feedAuthor).min(1).optional(),
    language: z.string().min(2).optional(),
    expired: z.boolean().optional(),
    items: z.array(
      z
        .looseObject({
          id: z.string().min(1),
          url: z.url().optional(),
          title: z.string().optional(),
          content_html: z.string().optional(),
          content_text: z.string().optional(),
          summary: z.string().optional(),
          image: z.url().optional(),
          date_published: z.iso.datetime({ offset: true }).optional(),
          date_modified: z.iso.datetime({ offset: true }).optional(),
          authors: z.array(feedAuthor).min(1).optional(),
          tags: z.array(z.string()).optional(),
          language: z.string().optional(),
        })
        .refine(
          (item) => item.content_html !== undefined || item.content_text !== undefined,
          "an item needs content_html or content_text",
        )
        .refine(noAuthor, "1.1 names authors in `authors`"),
    ),
  })
  .loose()
  .refine(noAuthor, "1.1 names authors in `authors`");

const items = siteItems(loadContent());
const siteUrl = "https://engineer.example";
const owner = { name: "Asha Rao", url: `${siteUrl}/about` };

/** The feeds as the build writes them, into a folder of their own. */
function writtenFeeds(): { clientDir: string; written: string[] } {
  const clientDir = mkdtempSync(path.join(os.tmpdir(), "ewe-feeds-"));
  // Each item's enclosure states its share image's size: the build draws them first.
  for (const item of items) {
    const file = path.join(clientDir, item.shareImage);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "a share image");
  }
  const written = writeFeeds(
    clientDir,
    {
      siteUrl,
      siteName,
      ownerName: owner.name,
      contactEmail: "owner@engineer.example",
      description: "Articles, stories and services of an engineer.",
    },
    items,
  );
  return { clientDir, written };
}

/** The site's feeds and each section's, by the folder they are in. */
const scopes = [
  { path: "", list: items },
  ...sections.map((section) => ({
    path: `/${section.id}`,
    list: items.filter((item) => item.section.id === section.id),
  })),
];

describe("the JSON Feeds", () => {
  let clientDir = "";
  let written: string[] = [];
  beforeAll(() => {
    ({ clientDir, written } = writtenFeeds());
  });
  const read = (file: string) => JSON.parse(readFileSync(path.join(clientDir, file), "utf8"));

  it("are the site's and each section's", () => {
    expect(written.filter((file) => file.endsWith("/feed.json"))).toEqual(
      scopes.map((scope) => `${scope.path}/feed.json`),
    );
  });

  for (const { path: scope, list } of scopes) {
    it(`${scope}/feed.json is JSON Feed 1.1 and holds every item of its scope`, () => {
      const feed = read(`${scope}/feed.json`);
      const checked = jsonFeed11.safeParse(feed);
      expect(checked.success ? [] : checked.error.issues).toEqual([]);
      expect(feed.authors).toEqual([owner]);
      expect(feed.items).toHaveLength(list.length);
    });
  }

  it("would fail a 1.0 feed, which names its author in `author`", () => {
    const { authors, ...feed } = read("feed.json");
    const old = { ...feed, version: "https://jsonfeed.org/version/1", author: authors[0] };
    expect(jsonFeed11.safeParse(old).success).toBe(false);
  });
});
