import type { SiteContent } from "../content/load.ts";

/*
 * How much writing the site promises its readers. The loader finds a
 * collection's files by listing its folder, so adding a piece is adding a
 * file; these minimums are what `npm run content:check` and
 * `npm run content:stats` hold the content to.
 */

/** The files each collection must have at least (the sections are laid out for them). */
const collections: [folder: string, minimum: number, files: (content: SiteContent) => unknown[]][] =
  [
    ["technical/tabs", 4, (content) => content.technical.tabs],
    ["non-technical/soft-skills", 10, (content) => content.softSkills],
    ["mythology", 6, (content) => content.stories],
    ["science", 9, (content) => content.science],
    ["mechfusion-ai/articles", 3, (content) => content.ai.articles],
    ["services", 9, (content) => content.services],
  ];

export function collectionRows(content: SiteContent) {
  return collections.map(([folder, minimum, files]) => ({
    folder,
    files: files(content).length,
    minimum,
  }));
}

/** One message per collection below its minimum, naming the folder. */
export function collectionShortfalls(content: SiteContent): string[] {
  return collectionRows(content)
    .filter((row) => row.files < row.minimum)
    .map((row) => `${row.folder}/: at least ${row.minimum} files are needed, found ${row.files}`);
}

type WordRow = { group: string; name: string; file: string; words: number; minimum: number };

/** Word counts of the writing against each piece's minimum (0: no minimum). */
export function wordRows(content: SiteContent): WordRow[] {
  const each = <T extends { words: number; file: string }>(
    group: string,
    entries: T[],
    name: (entry: T) => string,
    minimum: number,
  ) =>
    entries.map((entry) => ({
      group,
      name: name(entry),
      file: entry.file,
      words: entry.words,
      minimum,
    }));
  const id = (entry: { id: string }) => entry.id;
  return [
    ...each("about", [content.about], () => "About Me", 600),
    ...each("home", [content.home], () => "intro", 0),
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

/** One message per piece below its minimum of words, naming its file. */
export function pieceShortfalls(content: SiteContent): string[] {
  return wordRows(content)
    .filter((row) => row.words < row.minimum)
    .map(
      (row) =>
        `${row.file}: ${row.words} words, and pieces here need at least ${row.minimum}; write more (npm run content:stats counts every piece)`,
    );
}
