/*
 * The sections whose pieces of writing have a page of their own,
 * `/<section>/<slug>` (content/items.ts), apart from the items so the server
 * can tell an article's page by its path without loading the content.
 */

export const sections = [
  { id: "technical", name: "Technical", hashtags: ["MechanicalEngineering", "Automotive"] },
  { id: "non-technical", name: "Non Technical", hashtags: ["Engineering", "Career"] },
  { id: "mythology", name: "Mythological Inspirations", hashtags: ["Mythology", "Motivation"] },
  { id: "mechfusion-ai", name: "MechFusionAI", hashtags: ["AI", "Engineering"] },
  { id: "science", name: "Science in Everyday", hashtags: ["Science", "EverydayScience"] },
] as const;

/**
 * The hashtags a section's pieces carry on the Fediverse, where a reader who follows one
 * finds them (docs/product.md, "The Fediverse"); each word capitalised, as screen
 * readers read a tag.
 */
export const hashtagsOf = (section: string): readonly string[] =>
  sections.find((known) => known.id === section)?.hashtags ?? [];

const sectionIds: ReadonlySet<string> = new Set(sections.map((section) => section.id));

/** Whether a page's path is a piece of writing's own page, `/<section>/<slug>`. */
export function isItemPath(path: string): boolean {
  const [first, section, slug, ...rest] = path.split("/");
  return first === "" && rest.length === 0 && Boolean(slug) && sectionIds.has(section ?? "");
}
