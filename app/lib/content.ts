import { getCollection } from "astro:content";
import { readContentHistory } from "../../content/history.ts";
import {
  assembleContent,
  defaultContentRoot,
  type RawCollections,
  type SiteContent,
} from "../../content/load.ts";
import { collections } from "../../content/schema.ts";

/*
 * The content as the pages read it: Astro's content collections
 * (app/content.config.ts), put together by the same rules as outside Astro
 * (content/load.ts). Read once per build.
 */
let cached: Promise<SiteContent> | undefined;

async function load(): Promise<SiteContent> {
  const names = Object.keys(collections) as (keyof RawCollections)[];
  const read = async (name: keyof RawCollections) =>
    (await getCollection(name)).map((entry) => ({
      file: entry.id,
      data: entry.data,
      body: entry.body ?? "",
    }));
  const raw = Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, await read(name)])),
  ) as RawCollections;
  const root = defaultContentRoot;
  return assembleContent(raw, { root, history: readContentHistory(root), now: new Date() });
}

export const siteContent = (): Promise<SiteContent> => {
  cached ??= load();
  return cached;
};
