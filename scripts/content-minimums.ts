import type { SiteContent } from "../content/load.ts";

/*
 * How much writing the site promises its readers. The loader finds a
 * collection's files by listing its folder, so adding a piece is adding a
 * file; these minimums are what `npm run content:check` and
 * `npm run content:stats` hold the content to.
 */

/** Files each collection must have at least (the sections are laid out for them). */
export const collectionMinimums = {
  "technical/tabs": 4,
  "non-technical/soft-skills": 10,
  mythology: 6,
  science: 9,
  "mechfusion-ai/articles": 3,
  services: 9,
} as const;

type Collection = keyof typeof collectionMinimums;

export type CollectionRow = { folder: Collection; files: number; minimum: number };

export function collectionRows(content: SiteContent): CollectionRow[] {
  const files: Record<Collection, number> = {
    "technical/tabs": content.technical.tabs.length,
    "non-technical/soft-skills": content.softSkills.length,
    mythology: content.stories.length,
    science: content.science.length,
    "mechfusion-ai/articles": content.ai.articles.length,
    services: content.services.length,
  };
  return (Object.keys(collectionMinimums) as Collection[]).map((folder) => ({
    folder,
    files: files[folder],
    minimum: collectionMinimums[folder],
  }));
}

/** One message per collection below its minimum, naming the folder. */
export function collectionShortfalls(content: SiteContent): string[] {
  return collectionRows(content)
    .filter((row) => row.files < row.minimum)
    .map((row) => `${row.folder}/: at least ${row.minimum} files are needed, found ${row.files}`);
}

export type WordRow = { group: string; name: string; words: number; minimum: number };

/** Word counts of the writing against each piece's minimum (0: no minimum). */
export function wordRows(content: SiteContent): WordRow[] {
  const each = <T extends { words: number }>(
    group: string,
    entries: T[],
    name: (entry: T) => string,
    minimum: number,
  ) => entries.map((entry) => ({ group, name: name(entry), words: entry.words, minimum }));
  const id = (entry: { id: string }) => entry.id;
  return [
    { group: "about", name: "About Me", words: content.about.words, minimum: 600 },
    { group: "home", name: "intro", words: content.home.words, minimum: 0 },
    ...each("story", content.stories, id, 250),
    ...each("science", content.science, id, 150),
    ...each("technical", content.technical.articles, id, 300),
    ...each("ai", content.ai.articles, id, 300),
    ...each("soft skill", content.softSkills, id, 300),
    // A service's page is what a buyer decides on (docs/product.md, "Services").
    ...each("service", content.services, id, 500),
    ...each("growth", content.growth, id, 0),
  ];
}
