import { decodeHtmlEntities } from "../contract/html.ts";
import { ContentError } from "./frontmatter.ts";
import type { SiteContent } from "./load.ts";
import type { IconName, Image } from "./schema.ts";

/*
 * Every piece of writing that has a page of its own (technical articles, growth
 * write-ups and soft skills, stories, AI articles, science posts), as one flat
 * list in the order the list pages show them. The item pages, the feeds, the
 * sitemap and the share images all read this list, so they never disagree
 * (docs/decisions/013-item-pages-and-feeds.md).
 */

export const sections = [
  { id: "technical", name: "Technical" },
  { id: "non-technical", name: "Non Technical" },
  { id: "mythology", name: "Mythological Inspirations" },
  { id: "mechfusion-ai", name: "MechFusionAI" },
  { id: "science", name: "Science in Everyday" },
] as const;

export type SectionId = (typeof sections)[number]["id"];
export type Section = (typeof sections)[number];

export type Item = {
  section: Section;
  /** The last part of the page's path, the same as the card's anchor id on the list page. */
  slug: string;
  /** `/science/pressure-cooker` */
  path: string;
  /** The card on the list page: `/science#pressure-cooker` */
  anchorPath: string;
  /** Its 1200×630 picture for link previews, written by the build (scripts/og-images.ts). */
  shareImage: string;
  /** What the item belongs to within its section: a tab, an epic, a kind. */
  group: string;
  title: string;
  /** One or two sentences for meta descriptions, feeds and cards; at most 160 characters. */
  description: string;
  /** The full summary, when the item has one. */
  summary: string | null;
  /** The text, its headings one level below the page's h1. */
  html: string;
  words: number;
  readingMinutes: number;
  image: Image | null;
  icon: IconName | null;
  /** A page elsewhere on the item's subject. */
  link: { label: string; url: string } | null;
  /** An AI article's own LinkedIn post (its `linkedin` field). */
  linkedin: string | null;
  published: string;
  updated: string | null;
  /** Readers react to stories and science posts (and comment on science posts). */
  engagement: "mythology" | "science" | null;
  schemaType: "Article" | "BlogPosting";
};

/** Words a reader gets through in a minute, for "5 min read". */
const wordsPerMinute = 200;

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

function firstParagraph(html: string): string {
  const match = /<p>([\s\S]*?)<\/p>/.exec(html);
  return plainText(match?.[1] ?? html);
}

type Entry = {
  id: string;
  title: string;
  pageHtml: string;
  words: number;
  published: string;
  updated?: string | undefined;
};

function item(
  sectionId: SectionId,
  entry: Entry,
  extra: Pick<Item, "group" | "engagement" | "schemaType"> &
    Partial<Pick<Item, "image" | "icon" | "link" | "linkedin">> & { summary?: string },
): Item {
  const section = sectionById(sectionId);
  const summary = extra.summary ?? null;
  return {
    section,
    slug: entry.id,
    path: `/${section.id}/${entry.id}`,
    anchorPath: `/${section.id}#${entry.id}`,
    shareImage: `/og/${section.id}/${entry.id}.png`,
    group: extra.group,
    title: entry.title,
    description: clip(summary ?? firstParagraph(entry.pageHtml)),
    summary,
    html: entry.pageHtml,
    words: entry.words,
    readingMinutes: Math.max(1, Math.round(entry.words / wordsPerMinute)),
    image: extra.image ?? null,
    icon: extra.icon ?? null,
    link: extra.link ?? null,
    linkedin: extra.linkedin ?? null,
    published: entry.published,
    updated: entry.updated ?? null,
    engagement: extra.engagement,
    schemaType: extra.schemaType,
  };
}

const epics = { ramayana: "Ramayana", mahabharata: "Mahabharata" } as const;
const scienceKinds = { question: "Questions and answers", invention: "Inventions" } as const;

/** Every item, section by section, in the order of its list page. */
export function siteItems(content: SiteContent): Item[] {
  const { tabs, articles } = content.technical;
  const technical = tabs.flatMap((tab) =>
    articles
      .filter((article) => article.tab === tab.id)
      .map((article) =>
        item("technical", article, {
          group: tab.label,
          summary: article.summary,
          engagement: null,
          schemaType: "BlogPosting",
        }),
      ),
  );
  const growth = content.growth.map((entry) =>
    item("non-technical", entry, {
      group: "Professional Growth",
      summary: entry.summary,
      link: entry.link,
      engagement: null,
      schemaType: "BlogPosting",
    }),
  );
  const skills = content.softSkills.map((skill) =>
    item("non-technical", skill, {
      group: "Soft Skills",
      engagement: null,
      schemaType: "BlogPosting",
    }),
  );
  const stories = (["ramayana", "mahabharata"] as const).flatMap((epic) =>
    content.stories
      .filter((story) => story.epic === epic)
      .map((story) =>
        item("mythology", story, {
          group: epics[epic],
          summary: story.summary,
          image: story.image,
          engagement: "mythology",
          schemaType: "Article",
        }),
      ),
  );
  const ai = content.ai.articles.map((article) =>
    item("mechfusion-ai", article, {
      group: "Articles",
      summary: article.summary,
      icon: article.icon,
      link: { label: "Read more", url: article.link },
      linkedin: article.linkedin ?? null,
      engagement: null,
      schemaType: "BlogPosting",
    }),
  );
  const science = (["question", "invention"] as const).flatMap((kind) =>
    content.science
      .filter((post) => post.kind === kind)
      .map((post) =>
        item("science", post, {
          group: scienceKinds[kind],
          summary: post.summary,
          image: post.image,
          engagement: "science",
          schemaType: "BlogPosting",
        }),
      ),
  );
  const all = [...technical, ...growth, ...skills, ...stories, ...ai, ...science];
  const seen = new Set<string>();
  for (const entry of all) {
    // Growth write-ups and soft skills share /non-technical/.
    if (seen.has(entry.path)) throw new ContentError(`${entry.path}: two items share this page`);
    seen.add(entry.path);
  }
  return all;
}

/** The day an item last changed: its `updated` date, or else the day it appeared. */
export const lastChanged = (entry: Pick<Item, "published" | "updated">) =>
  entry.updated ?? entry.published;

/** Newest first, by publication; ties by title, so the order never depends on the file system. */
export function newestFirst(items: Item[]): Item[] {
  return [...items].sort(
    (a, b) => b.published.localeCompare(a.published) || a.title.localeCompare(b.title),
  );
}

/** The items before and after one, within its section, in list-page order. */
export function neighbours(items: Item[], current: Item) {
  const inSection = items.filter((entry) => entry.section.id === current.section.id);
  const index = inSection.findIndex((entry) => entry.path === current.path);
  return { previous: inSection[index - 1] ?? null, next: inSection[index + 1] ?? null };
}

export const sectionById = (id: SectionId): Section =>
  sections.find((section) => section.id === id) as Section;
