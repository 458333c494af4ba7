import { existsSync } from "node:fs";
import path from "node:path";
import { Marked } from "marked";
import type { z } from "zod";
import { escapeHtml } from "../contract/html.ts";
import { type DateFields, resolveDates } from "./dates.ts";
import {
  ContentError,
  defaultContentRoot,
  expectUniqueIds,
  markdownFiles,
  readFrontmatter,
  validate,
} from "./frontmatter.ts";
import { type ContentHistory, readContentHistory } from "./history.ts";
import { readOwnerProfile } from "./owner.ts";
import { type CollectionName, type Collections, collections, type Image } from "./schema.ts";

/*
 * The site's content as pages, feeds and checks use it. The files are read as the
 * collections of content/schema.ts: by Astro's content collections for the pages
 * (app/lib/content.ts), by `readCollections` below for what runs outside Astro
 * (the build's own steps, `npm run content:check` and `content:stats`, tests).
 * Either way `assembleContent` applies the same rules (dates from git history,
 * images that exist, unique ids) and renders the Markdown bodies to HTML. Any
 * problem throws a ContentError that names the file
 * (docs/decisions/041-content-collections.md).
 */
export { ContentError, defaultContentRoot };

/** One file of a collection, validated, as Astro's collections and `readCollections` give it. */
export type RawEntry<T> = { file: string; data: T; body: string };
type Data<N extends CollectionName> = z.output<Collections[N]["schema"]>;
export type RawCollections = { [N in CollectionName]: RawEntry<Data<N>>[] };

/** Every collection's files read from `root` and validated against their schemas, outside Astro. */
export function readCollections(root: string = defaultContentRoot): RawCollections {
  const read = ({ files, schema }: Collections[CollectionName]) =>
    (files.endsWith("/*.md") ? markdownFiles(root, files.slice(0, -5)) : [files]).map((file) => {
      const { data, body } = readFrontmatter(root, file);
      return { file, data: validate(schema, data, file), body };
    });
  const names = Object.keys(collections) as CollectionName[];
  return Object.fromEntries(names.map((name) => [name, read(collections[name])])) as RawCollections;
}

/** Headings in a body sit below the card or page title that holds them. */
function renderMarkdown(markdown: string, headingOffset: number): string {
  const marked = new Marked({
    gfm: true,
    renderer: {
      // Content is ours, but raw HTML would bypass the design; show it as text.
      html: ({ text }) => escapeHtml(text),
      heading({ tokens, depth }) {
        const level = Math.min(6, depth + headingOffset);
        return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
      },
    },
  });
  return marked.parse(markdown, { async: false });
}

export function countWords(markdown: string): number {
  const plain = markdown.replace(/[#*_>`|[\]()-]+/g, " ").trim();
  return plain === "" ? 0 : plain.split(/\s+/).length;
}

/** "Attention to Details" → "attention-to-details". */
export function anchorId(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

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
export type Reading = { root: string; history: ContentHistory; now: Date };

export function assembleContent(raw: RawCollections, reading: Reading) {
  const { root, history, now } = reading;
  const entries = <N extends CollectionName>(name: N): Entry<N>[] => {
    const { schema, headings } = collections[name];
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
        const html = renderMarkdown(body, headings);
        // On an item's own page its title is the h1, so a `##` heading is an h2 there.
        const pageHtml = headings === 0 ? html : renderMarkdown(body, 0);
        return { ...(value as Resolved<Data<N>>), html, pageHtml, words: countWords(body), file };
      });
  };
  const one = <N extends CollectionName>(name: N) => {
    const [entry] = entries(name);
    if (!entry) throw new ContentError(`${collections[name].files}: file is missing`);
    return entry;
  };
  const list = <N extends CollectionName>(name: N, key = (entry: Entry<N>) => entryId(entry)) => {
    const all = entries(name);
    expectUniqueIds(all.map((entry) => ({ id: key(entry), file: entry.file })));
    return all.sort((a, b) => order(a) - order(b));
  };
  const aiArticles = list("aiArticles");
  expectOwnPosts(aiArticles);
  return {
    home: one("home"),
    quotes: one("quotes").quotes,
    about: one("about"),
    technical: { tabs: list("technicalTabs"), articles: list("technicalArticles") },
    growth: list("growth"),
    softSkills: list("softSkills", (skill) => anchorId(skill.title)).map((skill) => ({
      ...skill,
      id: anchorId(skill.title),
    })),
    stories: list("stories"),
    ai: { intro: one("aiIntro"), articles: aiArticles },
    science: list("science"),
    services: list("services"),
  };
}

const entryId = (entry: object) => (entry as { id: string }).id;
const order = (entry: object) => (entry as { order: number }).order;

/**
 * An AI article's `linkedin` is the owner's post on its own topic, so two
 * articles never share one; its `link` is a page on the subject, never LinkedIn.
 */
function expectOwnPosts(articles: { file: string; link: string; linkedin?: string | undefined }[]) {
  const seen = new Map<string, string>();
  for (const { file, link, linkedin } of articles) {
    if (/^https?:\/\/([a-z]+\.)?linkedin\.com\//.test(link)) {
      throw new ContentError(
        `${file}: link is a page on the article's subject; the owner's LinkedIn post goes in linkedin`,
      );
    }
    if (!linkedin) continue;
    const other = seen.get(linkedin);
    if (other) throw new ContentError(`${file}: linkedin is the same post as in ${other}`);
    seen.set(linkedin, file);
  }
}

export type LoadOptions = {
  /** The build's clock; tests set it. */
  now?: Date;
  /** When each file first appeared; read from git by default. */
  history?: ContentHistory;
};

/** content/ read and checked outside Astro, with the owner's profile and the kind of history. */
export function loadContent(root: string = defaultContentRoot, options: LoadOptions = {}) {
  const history = options.history ?? readContentHistory(root);
  const raw = readCollections(root);
  return {
    history: history.kind,
    owner: readOwnerProfile(root),
    ...assembleContent(raw, { root, history, now: options.now ?? new Date() }),
  };
}

export type SiteContent = ReturnType<typeof assembleContent>;
