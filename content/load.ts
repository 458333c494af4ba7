import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { type DateFields, resolveDates } from "./dates.ts";
import {
  ContentError,
  defaultContentRoot,
  Problems,
  type RawCollections,
  readCollections,
} from "./frontmatter.ts";
import { type ContentHistory, readContentHistory } from "./history.ts";
import { anchorId, countWords, renderMarkdown } from "./markdown.ts";
import { type OwnerProfile, readOwnerProfile } from "./owner.ts";
import { expectKnownServices, expectOwnPosts, expectUniqueIds } from "./rules.ts";
import { samplePassages } from "./sample-voice.ts";
import { type CollectionName, type CollectionSpec, collections, type Image } from "./schema.ts";
import { serviceQuestions } from "./service-page.ts";

/*
 * The site's content, from the collections of content/schema.ts: read by Astro's
 * content collections for the pages (app/lib/content.ts), by `readCollections`
 * for what runs outside Astro (the build's own steps, content:check and
 * content:stats, tests). Either way `assembleContent` applies the same rules
 * and renders the bodies; the problems found throw one ContentError, a line
 * naming its file for each (docs/decisions/041-content-collections.md).
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

/**
 * The content put together and checked. Every problem is kept in `problems`
 * (with those found reading the files, for content:check) and thrown together
 * at the end, one line each, so one run names them all.
 */
export function assembleContent(raw: RawCollections, reading: Reading, problems = new Problems()) {
  const { root, history, now } = reading;
  const entries = <N extends CollectionName>(name: N): Entry<N>[] => {
    const { schema, headings = 1 }: CollectionSpec = collections[name];
    return problems.each(
      raw[name].toSorted((a, b) => (a.file < b.file ? -1 : 1)),
      ({ file, data, body }) => {
        let value = data as Data<N> & { image?: Image; images?: Image[] };
        if ("published" in schema.shape) {
          value = { ...value, ...resolveDates(file, value as DateFields, history, now) };
        }
        for (const image of [value.image ?? [], value.images ?? []].flat()) {
          const picture = path.join(root, "images", image.src);
          if (!existsSync(picture)) {
            problems.add(
              `${file}: image "${image.src}" is not in content/images/; add it there or correct the path`,
            );
            continue;
          }
          const size = svgSize(readFileSync(picture, "utf8"));
          if (size && (size.width !== image.width || size.height !== image.height)) {
            problems.add(
              `${file}: image "${image.src}" is ${size.width}×${size.height}, but width and height say ` +
                `${image.width}×${image.height}; write the picture's own size`,
            );
          }
        }
        // Markers are checked in the file as written, so a message names its line.
        if (body.includes("sample-voice")) {
          problems.attempt(
            () => samplePassages(file, readFileSync(path.join(root, file), "utf8")),
            [],
          );
        }
        // On an item's own page its title is the h1, so a `##` heading is an h2
        // there, with an id to link to it by.
        const pageHtml = renderMarkdown(body, 0, { headingIds: true });
        const html = headings === 0 ? pageHtml : renderMarkdown(body, headings);
        return { ...(value as Resolved<Data<N>>), html, pageHtml, words: countWords(body), file };
      },
    );
  };
  // A file left out for a problem already kept is not said to be missing; nothing
  // reads the placeholder, since the problems are thrown before the content is returned.
  const one = <N extends CollectionName>(name: N) => {
    const [entry] = entries(name);
    const { files } = collections[name];
    if (!entry && !problems.about(files)) problems.add(`${files}: file is missing`);
    return entry ?? ({} as Entry<N>);
  };
  /** A page that is all body: once its sample passages are deleted there may be nothing left. */
  const page = <N extends "home" | "about">(name: N) => {
    const entry = one(name);
    if (entry.words === 0) {
      problems.add(
        `${entry.file}: the page's body is empty; write what the page says below the frontmatter`,
      );
    }
    return entry;
  };
  const list = <N extends CollectionName>(name: N, key = (entry: Entry<N>) => entryId(entry)) => {
    const all = entries(name);
    expectUniqueIds(
      all.map((entry) => ({ id: key(entry), file: entry.file })),
      problems,
    );
    return all.sort((a, b) => order(a) - order(b));
  };
  const aiArticles = list("aiArticles");
  expectOwnPosts(aiArticles, problems);
  const bodies = new Map(raw.services.map((entry) => [entry.file, entry.body]));
  // Every page's problem at once: deleting the sample passages empties each one's Example.
  const listed = list("services");
  // Items name services by the ids read; with a service file left out for a problem,
  // each item naming it would be a second, false problem.
  const servicesRead = !problems.about("services/");
  const services = problems.each(listed, (service) => ({
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
  if (servicesRead) {
    expectKnownServices(
      [technical.articles, growth, softSkills, stories, aiArticles, science].flat(),
      listed,
      problems,
    );
  }
  const content = {
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
  problems.throwAny();
  return content;
}

const entryId = (entry: object) => (entry as { id: string }).id;
const order = (entry: object) => (entry as { order: number }).order;

/**
 * content/ read and checked outside Astro, with the owner's profile and the kind
 * of history. Tests set the build's clock and the history (git's by default).
 */
export function loadContent(
  root: string = defaultContentRoot,
  { now = new Date(), history = readContentHistory(root) }: Partial<Omit<Reading, "root">> = {},
) {
  const problems = new Problems();
  const raw = readCollections(root, problems);
  const owner = problems.attempt(() => readOwnerProfile(root), undefined);
  const content = assembleContent(raw, { root, history, now }, problems);
  return { history: history.kind, owner: owner as OwnerProfile, ...content };
}

/**
 * For scripts: what `run` returns, or on a content error its problems, each
 * line that names a file after `prefix`, and exit 1.
 */
export function exitOnContentError<T>(run: () => T, prefix = ""): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof ContentError)) throw error;
    const lines = error.message.replace(/^(?=\S)/gm, prefix);
    console.error(
      error.count > 1 ? `${error.count} content problems, each to correct:\n${lines}` : lines,
    );
    process.exit(1);
  }
}

export type SiteContent = ReturnType<typeof assembleContent>;

/** An SVG's intrinsic size: its root's width and height, else its viewBox's. */
function svgSize(svg: string): { width: number; height: number } | undefined {
  const root = /<svg\b[^>]*>/.exec(svg)?.[0] ?? "";
  const attribute = (name: string) =>
    new RegExp(`\\s${name}="\\s*([\\d.]+)(?:px)?\\s*"`).exec(root)?.[1];
  const box = /\sviewBox="([^"]*)"/.exec(root)?.[1] ?? "";
  const [, , boxWidth, boxHeight] = box.trim().split(/[\s,]+/);
  const width = Number(attribute("width") ?? boxWidth);
  const height = Number(attribute("height") ?? boxHeight);
  return width > 0 && height > 0 ? { width, height } : undefined;
}
