import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { type DateFields, resolveDates } from "./dates.ts";
import {
  ContentError,
  defaultContentRoot,
  type RawCollections,
  readCollections,
} from "./frontmatter.ts";
import { type ContentHistory, readContentHistory } from "./history.ts";
import { anchorId, countWords, renderMarkdown } from "./markdown.ts";
import { readOwnerProfile } from "./owner.ts";
import { expectKnownServices, expectOwnPosts, expectUniqueIds } from "./rules.ts";
import { samplePassages } from "./sample-voice.ts";
import { type CollectionName, type CollectionSpec, collections, type Image } from "./schema.ts";
import { serviceQuestions } from "./service-page.ts";

/*
 * The site's content, from the collections of content/schema.ts: read by Astro's
 * content collections for the pages (app/lib/content.ts), by `readCollections`
 * for what runs outside Astro (the build's own steps, content:check and
 * content:stats, tests). Either way `assembleContent` applies the same rules
 * and renders the bodies; a problem throws a ContentError naming the file
 * (docs/decisions/041-content-collections.md).
 */
export { anchorId, countWords, defaultContentRoot, type RawCollections };

type Data<N extends CollectionName> = RawCollections[N][number]["data"];

/** An item's dates once resolved (content/dates.ts): `published` is always known. */
type Resolved<T> = T extends { published?: string }
  ? Omit<T, "published"> & { published: string }
  : T;
type Entry<N extends CollectionName> = Resolved<Data<N>> & {
  /** The body, its headings below the card's title; on the item's own page, below its h1. */
  html: string;
  pageHtml: string;
  words: number;
  file: string;
};

/** What every file is read against: the folder, its git history and the build's clock. */
type Reading = { root: string; history: ContentHistory; now: Date };

export function assembleContent(raw: RawCollections, reading: Reading) {
  const { root, history, now } = reading;
  const entries = <N extends CollectionName>(name: N): Entry<N>[] => {
    const { schema, headings = 1 }: CollectionSpec = collections[name];
    return raw[name]
      .toSorted((a, b) => (a.file < b.file ? -1 : 1))
      .map(({ file, data, body }) => {
        let value = data as Data<N> & { image?: Image; images?: Image[] };
        if ("published" in schema.shape) {
          value = { ...value, ...resolveDates(file, value as DateFields, history, now) };
        }
        for (const image of [value.image ?? [], value.images ?? []].flat()) {
          if (!existsSync(path.join(root, "images", image.src))) {
            throw new ContentError(`${file}: image "${image.src}" is not in content/images/`);
          }
        }
        // Markers are checked in the file as written, so a message names its line.
        if (body.includes("sample-voice")) {
          samplePassages(file, readFileSync(path.join(root, file), "utf8"));
        }
        // On an item's own page its title is the h1, so a `##` heading is an h2
        // there, with an id to link to it by.
        const pageHtml = renderMarkdown(body, 0, { headingIds: true });
        const html = headings === 0 ? pageHtml : renderMarkdown(body, headings);
        return { ...(value as Resolved<Data<N>>), html, pageHtml, words: countWords(body), file };
      });
  };
  const one = <N extends CollectionName>(name: N) => {
    const [entry] = entries(name);
    if (!entry) throw new ContentError(`${collections[name].files}: file is missing`);
    return entry;
  };
  /** A page that is all body: once its sample passages are deleted there may be nothing left. */
  const page = <N extends "home" | "about">(name: N) => {
    const entry = one(name);
    if (entry.words === 0) {
      throw new ContentError(
        `${entry.file}: the page's body is empty; write what the page says below the frontmatter`,
      );
    }
    return entry;
  };
  const list = <N extends CollectionName>(name: N, key = (entry: Entry<N>) => entryId(entry)) => {
    const all = entries(name);
    expectUniqueIds(all.map((entry) => ({ id: key(entry), file: entry.file })));
    return all.sort((a, b) => order(a) - order(b));
  };
  const aiArticles = list("aiArticles");
  expectOwnPosts(aiArticles);
  const bodies = new Map(raw.services.map((entry) => [entry.file, entry.body]));
  // Every page's problem at once: deleting the sample passages empties each one's Example.
  const services = mapAll(list("services"), (service) => ({
    ...service,
    questions: serviceQuestions(service.file, service.id, bodies.get(service.file) ?? ""),
  }));
  const technical = { tabs: list("technicalTabs"), articles: list("technicalArticles") };
  const growth = list("growth");
  const softSkills = list("softSkills", (skill) => anchorId(skill.title)).map((skill) => ({
    ...skill,
    id: anchorId(skill.title),
  }));
  const stories = list("stories");
  const science = list("science");
  expectKnownServices(
    [technical.articles, growth, softSkills, stories, aiArticles, science].flat(),
    services,
  );
  return {
    home: page("home"),
    quotes: one("quotes").quotes,
    about: page("about"),
    technical,
    growth,
    softSkills,
    stories,
    ai: { intro: one("aiIntro"), articles: aiArticles },
    science,
    services,
  };
}

const entryId = (entry: object) => (entry as { id: string }).id;

/** `entries.map(map)`, its content errors said together, one line each, not the first alone. */
function mapAll<T, U>(entries: T[], map: (entry: T) => U): U[] {
  const problems: string[] = [];
  const mapped = entries.flatMap((entry) => {
    try {
      return [map(entry)];
    } catch (error) {
      if (!(error instanceof ContentError)) throw error;
      problems.push(error.message);
      return [];
    }
  });
  if (problems.length > 0) throw new ContentError(problems.join("\n"));
  return mapped;
}
const order = (entry: object) => (entry as { order: number }).order;

/**
 * content/ read and checked outside Astro, with the owner's profile and the kind
 * of history. Tests set the build's clock and the history (git's by default).
 */
export function loadContent(
  root: string = defaultContentRoot,
  { now = new Date(), history = readContentHistory(root) }: Partial<Omit<Reading, "root">> = {},
) {
  const raw = readCollections(root);
  return {
    history: history.kind,
    owner: readOwnerProfile(root),
    ...assembleContent(raw, { root, history, now }),
  };
}

/** For scripts: what `run` returns, or on a content error its message (after `prefix`) and exit 1. */
export function exitOnContentError<T>(run: () => T, prefix = ""): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof ContentError)) throw error;
    console.error(`${prefix}${error.message}`);
    process.exit(1);
  }
}

export type SiteContent = ReturnType<typeof assembleContent>;
