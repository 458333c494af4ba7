import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { type DefaultTreeAdapterMap, parseFragment } from "parse5";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { siteName } from "../app/lib/site-name.ts";
import { lastChanged, newestFirst, sections, siteItems } from "../content/items.ts";
import { loadContent } from "../content/load.ts";
import { sitemapXml, writeFeeds } from "./feeds.ts";

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
function writtenFeeds(list = items): { clientDir: string; written: string[] } {
  const clientDir = mkdtempSync(path.join(os.tmpdir(), "ewe-feeds-"));
  // Each item's enclosure states its share image's size: the build draws them first.
  for (const item of list) {
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
    list,
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

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" });
const dayOf = (date: string) => new Date(date).toISOString().slice(0, 10);

/** What a reader's app shows of some HTML: its text. */
function htmlText(html: string): string {
  type Node = DefaultTreeAdapterMap["childNode"];
  const text = (node: Node): string =>
    "value" in node && node.nodeName === "#text"
      ? node.value
      : "childNodes" in node
        ? node.childNodes.map(text).join("")
        : "";
  return parseFragment(html).childNodes.map(text).join("");
}

/**
 * What a reader's app takes from each item of one scope's three feeds: its link,
 * title, days, author, section and picture, in the feed's order.
 */
function feedItems(clientDir: string, scope: string) {
  const read = (file: string) => readFileSync(path.join(clientDir, scope, file), "utf8");
  // biome-ignore lint/suspicious/noExplicitAny: parsed XML, checked by the comparisons below
  const list = (value: any): any[] => [value ?? []].flat();
  const rss = list(xml.parse(read("rss.xml")).rss.channel.item).map((item) => ({
    link: item.link,
    title: item.title,
    published: dayOf(item.pubDate),
    author: item.author,
    section: item.category,
    image: item.enclosure.url,
  }));
  const atom = list(xml.parse(read("atom.xml")).feed.entry).map((entry) => ({
    link: list(entry.link)[0].href,
    // Atom's title is `type="html"`: a reader's app shows its text.
    title: htmlText(entry.title["#text"]),
    published: dayOf(entry.published),
    updated: dayOf(entry.updated),
    author: `${entry.author.email} (${entry.author.name})`,
    section: entry.category.label,
    // Atom requires a category's term (RFC 4287, 4.2.2).
    term: entry.category.term,
    image: list(entry.link)[1].href,
  }));
  const json = list(JSON.parse(read("feed.json")).items).map((item) => ({
    link: item.url,
    title: item.title,
    published: dayOf(item.date_published),
    updated: dayOf(item.date_modified),
    author: item.authors.map((author: { name: string }) => author.name).join(", "),
    section: item.tags.join(", "),
    image: item.image,
  }));
  return { rss, atom, json };
}

describe("every feed's items", () => {
  let clientDir = "";
  beforeAll(() => {
    ({ clientDir } = writtenFeeds());
  });
  const email = "owner@engineer.example";

  for (const { path: scope, list } of scopes) {
    it(`${scope || "/"}: every item of the scope, newest first, with its link, days, author and section`, () => {
      const expected = newestFirst(list).map((item) => ({
        link: `${siteUrl}${item.path}`,
        title: item.title,
        published: item.published,
        updated: lastChanged(item),
        section: item.section.name,
        image: `${siteUrl}${item.shareImage}`,
      }));
      const { rss, atom, json } = feedItems(clientDir, scope);
      const drop = ({ updated: _, ...rest }: (typeof expected)[number]) => rest;
      expect(rss).toEqual(
        expected.map((item) => ({ ...drop(item), author: `${email} (${owner.name})` })),
      );
      expect(atom).toEqual(
        expected.map((item, index) => ({
          ...item,
          author: `${email} (${owner.name})`,
          term: newestFirst(list)[index]?.section.id,
        })),
      );
      expect(json).toEqual(expected.map((item) => ({ ...item, author: owner.name })));
    });
  }
});

describe("every feed's text", () => {
  let clientDir = "";
  beforeAll(() => {
    ({ clientDir } = writtenFeeds());
  });
  const read = (file: string) => readFileSync(path.join(clientDir, file), "utf8");
  /** Every item's HTML in one feed, as a reader's app gets it. */
  const texts = {
    rss: () =>
      [xml.parse(read("rss.xml")).rss.channel.item]
        .flat()
        .map((item: Record<string, string>) => item["content:encoded"] ?? ""),
    atom: () =>
      [xml.parse(read("atom.xml")).feed.entry]
        .flat()
        .map((entry: { content: { "#text": string } }) => entry.content["#text"]),
    json: () =>
      (JSON.parse(read("feed.json")).items as { content_html: string }[]).map(
        (item) => item.content_html,
      ),
  };
  for (const [format, itemTexts] of Object.entries(texts)) {
    it(`${format}: every link and picture in an item's text has the site's full address, read away from the site`, () => {
      const addresses = itemTexts().flatMap((html) =>
        [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((match) => match[1] ?? ""),
      );
      expect(addresses.filter((address) => !URL.canParse(address))).toEqual([]);
      // The engines article links the two that follow it, on this site.
      expect(addresses).toContain(`${siteUrl}/technical/fuel-injection-blog`);
    });
  }
});

describe("an item whose title and summary hold & and <, and whose text holds ]]> twice", () => {
  const [first] = items;
  if (!first) throw new Error("no items");
  const odd = {
    ...first,
    title: "Torque & power: why 1 < 2 <b>here</b>",
    description: "Bore & stroke < 100 mm, &amp; no more.",
    html: "<p>In code, <code>a[b[0]]>1</code> and <code>c[d[1]]>2</code>.</p>",
  };
  let clientDir = "";
  beforeAll(() => {
    ({ clientDir } = writtenFeeds([odd]));
  });
  const read = (file: string) => readFileSync(path.join(clientDir, file), "utf8");

  it("every feed is well-formed XML or JSON", () => {
    expect(XMLValidator.validate(read("rss.xml"))).toBe(true);
    expect(XMLValidator.validate(read("atom.xml"))).toBe(true);
    expect(() => JSON.parse(read("feed.json"))).not.toThrow();
  });

  it("a reader's app shows the title, summary and text as written, in every format", () => {
    const rss = xml.parse(read("rss.xml")).rss.channel.item;
    const atom = xml.parse(read("atom.xml")).feed.entry;
    const json = JSON.parse(read("feed.json")).items[0];
    // RSS's title is text; its description, and Atom's type="html" title and summary, HTML.
    expect(rss.title).toBe(odd.title);
    expect(htmlText(rss.description)).toBe(odd.description);
    expect(atom.title.type).toBe("html");
    expect(htmlText(atom.title["#text"])).toBe(odd.title);
    expect(htmlText(atom.summary["#text"])).toBe(odd.description);
    expect(json.title).toBe(odd.title);
    expect(json.summary).toBe(odd.description);
    const text = "In code, a[b[0]]>1 and c[d[1]]>2.";
    expect(htmlText(rss["content:encoded"])).toBe(text);
    expect(htmlText(atom.content["#text"])).toBe(text);
    expect(htmlText(json.content_html)).toBe(text);
  });
});

describe("the sitemap", () => {
  it("dates an item's page by its last change and a list page by its newest item's, and no other page", () => {
    const xml = sitemapXml(siteUrl, ["/", "/about", "/science", "/privacy"], items);
    const lastmods = Object.fromEntries(
      [...xml.matchAll(/<url><loc>([^<]*)<\/loc>(?:<lastmod>([^<]*)<\/lastmod>)?<\/url>/g)].map(
        ([, loc, lastmod]) => [loc, lastmod ?? null],
      ),
    );
    const science = items.filter((item) => item.section.id === "science");
    expect(lastmods).toEqual({
      [`${siteUrl}/`]: null,
      [`${siteUrl}/about`]: null,
      [`${siteUrl}/science`]: science.map(lastChanged).sort().at(-1),
      [`${siteUrl}/privacy`]: null,
      ...Object.fromEntries(items.map((item) => [`${siteUrl}${item.path}`, lastChanged(item)])),
    });
  });
});

/*
 * The feeds of two builds, compared item by item: FEEDS_BEFORE names the client
 * folder of an earlier build, FEEDS_AFTER (default build/client) a later one's.
 * A change to how the feeds are made runs this to show readers get the same items.
 */
const before = process.env.FEEDS_BEFORE;
describe.runIf(before)("the feeds against an earlier build's", () => {
  const after = process.env.FEEDS_AFTER ?? "build/client";
  for (const { path: scope } of scopes) {
    it(`${scope || "/"}: the same items, links, days, authors, sections and pictures`, () => {
      expect(existsSync(path.join(after, scope, "rss.xml"))).toBe(true);
      expect(feedItems(after, scope)).toEqual(feedItems(before ?? "", scope));
    });
  }
});
