import { getCollection } from "astro:content";
import { readContentHistory } from "../../content/history.ts";
import { assembleContent, defaultContentRoot, type RawCollections } from "../../content/load.ts";
import { type CollectionName, collections } from "../../content/schema.ts";

/*
 * The content as the pages read it: Astro's content collections
 * (app/content.config.ts), put together by the same rules as outside Astro
 * (content/load.ts), once per build.
 */
const read = async (name: CollectionName) => {
  const entries = await getCollection(name);
  return [name, entries.map(({ id, data, body }) => ({ file: id, data, body: body ?? "" }))];
};

async function load(root = defaultContentRoot) {
  const names = Object.keys(collections) as CollectionName[];
  const raw = Object.fromEntries(await Promise.all(names.map(read))) as RawCollections;
  return assembleContent(raw, { root, history: readContentHistory(root), now: new Date() });
}

let cached: ReturnType<typeof load> | undefined;
export const siteContent = () => {
  cached ??= load();
  return cached;
};
