/*
 * The sections whose pieces of writing have a page of their own,
 * `/<section>/<slug>` (content/items.ts), apart from the items so the server
 * can tell an article's page by its path without loading the content.
 */

export const sections = [
  { id: "technical", name: "Technical" },
  { id: "non-technical", name: "Non Technical" },
  { id: "mythology", name: "Mythological Inspirations" },
  { id: "mechfusion-ai", name: "MechFusionAI" },
  { id: "science", name: "Science in Everyday" },
] as const;

const sectionIds: ReadonlySet<string> = new Set(sections.map((section) => section.id));

/** Whether a page's path is a piece of writing's own page, `/<section>/<slug>`. */
export function isItemPath(path: string): boolean {
  const [first, section, slug, ...rest] = path.split("/");
  return first === "" && rest.length === 0 && Boolean(slug) && sectionIds.has(section ?? "");
}
