import { existsSync } from "node:fs";
import path from "node:path";
import { Marked } from "marked";
import type { z } from "zod";
import { escapeHtml } from "../contract/html.ts";
import { resolveDates } from "./dates.ts";
import {
  ContentError,
  defaultContentRoot,
  expectUniqueIds,
  markdownFiles,
  readFrontmatter,
} from "./frontmatter.ts";
import { type ContentHistory, readContentHistory } from "./history.ts";
import { readOwnerProfile } from "./owner.ts";
import {
  aboutSchema,
  aiArticleSchema,
  aiIntroSchema,
  growthSchema,
  homeSchema,
  type Image,
  quotesSchema,
  scienceSchema,
  serviceSchema,
  softSkillSchema,
  storySchema,
  technicalArticleSchema,
  technicalTabSchema,
} from "./schema.ts";

/*
 * Reads content/ once, validates every file against its schema and renders the
 * Markdown bodies to HTML. Runs at build time (route loaders during prerender,
 * `npm run content:check`); the server needs only item ids (catalog.ts). Any
 * problem throws a ContentError that names the file.
 */
export { ContentError, defaultContentRoot };

type Rendered = { html: string; words: number };

/** Headings in a body sit below the card or page title that holds them. */
function renderMarkdown(markdown: string, headingOffset: number): Rendered {
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
  const html = marked.parse(markdown, { async: false });
  return { html, words: countWords(markdown) };
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
type FileEntry<T> = Resolved<T> & Rendered & { pageHtml: string; file: string };

/** What every file is read against: the folder, its git history and the build's clock. */
type Reading = { root: string; history: ContentHistory; now: Date };

function readEntry<S extends z.ZodType<object>>(
  reading: Reading,
  relative: string,
  schema: S,
  headingOffset: number,
): FileEntry<z.output<S>> {
  const { root } = reading;
  const { data, body } = readFrontmatter(root, relative);
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const where = issue.path.join(".") || "frontmatter";
      return `  ${where}: ${issue.message}`;
    });
    throw new ContentError(`${relative}: invalid content\n${problems.join("\n")}`);
  }
  let value = parsed.data as z.output<S>;
  if ("published" in schemaShape(schema)) {
    const dates = resolveDates(relative, value, reading.history, reading.now);
    value = { ...value, ...dates };
  }
  for (const image of collectImages(value)) {
    if (!existsSync(path.join(root, "images", image.src))) {
      throw new ContentError(`${relative}: image "${image.src}" is not in content/images/`);
    }
  }
  // On an item's own page its title is the h1, so a `##` heading is an h2 there.
  const pageHtml = renderMarkdown(body, 0).html;
  return {
    ...(value as Resolved<z.output<S>>),
    ...renderMarkdown(body, headingOffset),
    pageHtml,
    file: relative,
  };
}

/** The fields a strict object schema declares. */
const schemaShape = (schema: z.ZodType) =>
  (schema as unknown as { shape?: Record<string, unknown> }).shape ?? {};

function collectImages(value: unknown): Image[] {
  if (typeof value !== "object" || value === null) return [];
  const record = value as Record<string, unknown>;
  const images: Image[] = [];
  if (record.image) images.push(record.image as Image);
  if (Array.isArray(record.images)) images.push(...(record.images as Image[]));
  return images;
}

function readCollection<S extends z.ZodType<{ order: number }>>(
  reading: Reading,
  folder: string,
  schema: S,
  headingOffset: number,
  key: (entry: FileEntry<z.output<S>>) => string,
): FileEntry<z.output<S>>[] {
  const entries = markdownFiles(reading.root, folder).map((file) =>
    readEntry(reading, file, schema, headingOffset),
  );
  expectUniqueIds(entries.map((entry) => ({ id: key(entry), file: entry.file })));
  return entries.sort((a, b) => a.order - b.order);
}

export type LoadOptions = {
  /** The build's clock; tests set it. */
  now?: Date;
  /** When each file first appeared; read from git by default. */
  history?: ContentHistory;
};

export function loadContent(root: string = defaultContentRoot, options: LoadOptions = {}) {
  const byId = (entry: { id: string }) => entry.id;
  const history = options.history ?? readContentHistory(root);
  const r: Reading = { root, history, now: options.now ?? new Date() };

  const aiArticles = readCollection(r, "mechfusion-ai/articles", aiArticleSchema, 1, byId);
  expectOwnPosts(aiArticles);

  return {
    history: history.kind,
    owner: readOwnerProfile(root),
    home: readEntry(r, "home.md", homeSchema, 0),
    quotes: readEntry(r, "quotes.md", quotesSchema, 0).quotes,
    about: readEntry(r, "about.md", aboutSchema, 0),
    technical: {
      tabs: readCollection(r, "technical/tabs", technicalTabSchema, 1, byId),
      articles: readCollection(r, "technical/articles", technicalArticleSchema, 1, byId),
    },
    growth: readCollection(r, "non-technical/growth", growthSchema, 1, byId),
    softSkills: readCollection(r, "non-technical/soft-skills", softSkillSchema, 1, (skill) =>
      anchorId(skill.title),
    ).map((skill) => ({ ...skill, id: anchorId(skill.title) })),
    stories: readCollection(r, "mythology", storySchema, 2, byId),
    ai: {
      intro: readEntry(r, "mechfusion-ai/intro.md", aiIntroSchema, 0),
      articles: aiArticles,
    },
    science: readCollection(r, "science", scienceSchema, 1, byId),
    services: readCollection(r, "services", serviceSchema, 1, byId),
  };
}

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

export type SiteContent = ReturnType<typeof loadContent>;

let cached: SiteContent | undefined;

/** The content of this checkout, read once per process. */
export function siteContent(): SiteContent {
  cached ??= loadContent();
  return cached;
}
