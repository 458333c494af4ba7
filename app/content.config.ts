import { defineCollection } from "astro:content";
import { glob } from "astro/loaders";
import type { z } from "zod";
import { collections as table } from "../content/schema.ts";

/*
 * content/ as Astro's content collections (docs/decisions/041-content-collections.md):
 * each collection's files and schema come from content/schema.ts, which the
 * reader outside Astro (content/load.ts) uses too. An entry's id is its file
 * below content/ (`science/soap.md`), so every message names the file. The pages
 * take the bodies as written and render them with content/load.ts's Markdown.
 */
const collection = <S extends z.ZodType>({ files, schema }: { files: string; schema: S }) =>
  defineCollection({
    loader: glob({ base: "./content", pattern: files, generateId: ({ entry }) => entry }),
    schema,
  });

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
