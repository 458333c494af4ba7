import { defineCollection } from "astro:content";
import { glob } from "astro/loaders";
import { collections as table } from "../content/schema.ts";

/*
 * content/ as Astro's content collections (docs/decisions/041-content-collections.md).
 * Each collection's files and schema come from content/schema.ts, which the
 * reader outside Astro (content/load.ts) uses too. An entry's id is its file
 * below content/ (`science/soap.md`), so every message names the file. The
 * bodies are rendered by content/load.ts, not by Astro: no eager rendering.
 */
function collection<S extends (typeof table)[keyof typeof table]>({ files, schema }: S) {
  return defineCollection({
    loader: glob({
      base: "./content",
      pattern: files,
      generateId: ({ entry }) => entry,
      deferRender: true,
    }),
    schema: schema as S["schema"],
  });
}

export const collections = {
  home: collection(table.home),
  quotes: collection(table.quotes),
  about: collection(table.about),
  technicalTabs: collection(table.technicalTabs),
  technicalArticles: collection(table.technicalArticles),
  growth: collection(table.growth),
  softSkills: collection(table.softSkills),
  stories: collection(table.stories),
  aiIntro: collection(table.aiIntro),
  aiArticles: collection(table.aiArticles),
  science: collection(table.science),
  services: collection(table.services),
};
