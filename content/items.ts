import { ContentError } from "./frontmatter.ts";
import type { SiteContent } from "./load.ts";
import { clip, firstParagraph } from "./markdown.ts";
import type { IconName, Image, Link } from "./schema.ts";
import { sections } from "./sections.ts";

/*
 * Every piece of writing that has a page of its own (technical articles, growth
 * write-ups and soft skills, stories, AI articles, science posts), as one flat
 * list in the order the list pages show them. The item pages, the feeds, the
 * sitemap and the share images all read this list, so they never disagree
 * (docs/decisions/013-item-pages-and-feeds.md).
 */

export { sections };

type SectionId = (typeof sections)[number]["id"];
export type Section = (typeof sections)[number];

export type Item = ReturnType<typeof item>;

/** Words a reader gets through in a minute, for "5 min read". */
const wordsPerMinute = 200;

type Entry = Pick<SiteContent["growth"][number], "id" | "title" | "pageHtml" | "words"> &
  Pick<SiteContent["growth"][number], "published" | "updated"> & { summary?: string };
/** A service an item leads to: its title and page. */
type RelatedService = { title: string; path: string };
type Extra = {
  image?: Image;
  icon?: IconName;
  link?: Link;
  linkedin?: string | null;
  services?: RelatedService[];
};

/** An item of a section, with everything its page, feeds and share image say of it. */
function item(sectionId: SectionId, group: string, entry: Entry, extra: Extra = {}) {
  const section = sectionById(sectionId);
  const summary = entry.summary ?? null;
  return {
    section,
    /** The last part of the page's path, the same as the card's anchor id on the list page. */
    slug: entry.id,
    /** `/science/pressure-cooker` */
    path: `/${section.id}/${entry.id}`,
    /** The card on the list page: `/science#pressure-cooker` */
    anchorPath: `/${section.id}#${entry.id}`,
    /** Its 1200×630 picture for link previews, written by the build (scripts/og-images.ts). */
    shareImage: `/og/${section.id}/${entry.id}.png`,
    /** What the item belongs to within its section: a tab, an epic, a kind. */
    group,
    title: entry.title,
    /** One or two sentences for meta descriptions, feeds and cards; at most 160 characters. */
    description: clip(summary ?? firstParagraph(entry.pageHtml)),
    /** The full summary, when the item has one. */
    summary,
    /** The text, its headings one level below the page's h1. */
    html: entry.pageHtml,
    words: entry.words,
    readingMinutes: Math.max(1, Math.round(entry.words / wordsPerMinute)),
    image: extra.image ?? null,
    icon: extra.icon ?? null,
    /** A page elsewhere on the item's subject. */
    link: extra.link ?? null,
    /** An AI article's own LinkedIn post (its `linkedin` field). */
    linkedin: extra.linkedin ?? null,
    /** The services the item leads to (its `services` field), for the line at the end of its page. */
    services: extra.services ?? [],
    published: entry.published,
    updated: entry.updated ?? null,
    /** Readers react to stories and science posts (and comment on science posts). */
    engagement: sectionId === "mythology" || sectionId === "science" ? sectionId : null,
    // The retold stories are articles; the rest are posts.
    schemaType: sectionId === "mythology" ? ("Article" as const) : ("BlogPosting" as const),
  };
}

const epics = { ramayana: "Ramayana", mahabharata: "Mahabharata" } as const;
const scienceKinds = { question: "Questions and answers", invention: "Inventions" } as const;

/** Every item, section by section, in the order of its list page. */
export function siteItems(content: SiteContent): Item[] {
  const { tabs, articles } = content.technical;
  const related = (entry: { services?: string[] | undefined }) => ({
    services: (entry.services ?? []).flatMap((id) =>
      content.services
        .filter((service) => service.id === id)
        .map((service) => ({ title: service.title, path: servicePath(service.id) })),
    ),
  });
  const all = [
    ...tabs.flatMap((tab) =>
      articles
        .filter((article) => article.tab === tab.id)
        .map((a) => item("technical", tab.label, a, related(a))),
    ),
    ...content.growth.map((entry) =>
      item("non-technical", "Professional Growth", entry, { link: entry.link, ...related(entry) }),
    ),
    ...content.softSkills.map((skill) =>
      item("non-technical", "Soft Skills", skill, related(skill)),
    ),
    ...(["ramayana", "mahabharata"] as const).flatMap((epic) =>
      content.stories
        .filter((story) => story.epic === epic)
        .map((story) =>
          item("mythology", epics[epic], story, { image: story.image, ...related(story) }),
        ),
    ),
    ...content.ai.articles.map((article) =>
      item("mechfusion-ai", "Articles", article, {
        icon: article.icon,
        link: { label: "Read more", url: article.link },
        linkedin: article.linkedin ?? null,
        ...related(article),
      }),
    ),
    ...(["question", "invention"] as const).flatMap((kind) =>
      content.science
        .filter((post) => post.kind === kind)
        .map((post) =>
          item("science", scienceKinds[kind], post, { image: post.image, ...related(post) }),
        ),
    ),
  ];
  // Growth write-ups and soft skills share /non-technical/.
  const twice = all.find((entry, index) => all.findIndex((o) => o.path === entry.path) !== index);
  if (twice) throw new ContentError(`${twice.path}: two items share this page`);
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

/** A service's own page: `/services/dfmea`. */
export const servicePath = (id: string) => `/services/${id}`;

export const sectionById = (id: SectionId): Section =>
  sections.find((section) => section.id === id) as Section;
