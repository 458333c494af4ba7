import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { type CollectionName, type Collections, collections } from "./schema.ts";

/*
 * Content files read outside Astro: the frontmatter parsed and validated, the
 * body as written. The pages read the same files through Astro's content
 * collections (app/content.config.ts); the rules after that are content/load.ts's.
 */

/** A problem in a content file, or several (`count`); each line of a problem starts with its file's name. */
export class ContentError extends Error {
  override name = "ContentError";
  readonly count: number;
  constructor(message: string, count = 1) {
    super(message);
    this.count = count;
  }
}

/**
 * Content problems gathered across files, so that one run names every one of
 * them (`npm run content:check`), not the first alone.
 */
export class Problems {
  readonly messages: string[] = [];
  private count = 0;
  add(message: string, count = 1) {
    this.messages.push(message);
    this.count += count;
  }
  /** What `run` returns, or on a ContentError `fallback`, the problem kept. */
  attempt<T, F>(run: () => T, fallback: F): T | F {
    try {
      return run();
    } catch (error) {
      if (!(error instanceof ContentError)) throw error;
      this.add(error.message, error.count);
      return fallback;
    }
  }
  /** `items.map(map)` without the items whose `map` found a problem. */
  each<T, U>(items: readonly T[], map: (item: T) => U): U[] {
    return items.flatMap((item) => this.attempt(() => [map(item)], []));
  }
  /** Has a problem been kept about this file (or the files under this folder)? */
  about(file: string): boolean {
    return this.messages.some((message) => message.startsWith(file));
  }
  /** Throws every problem kept, in the order found, as one ContentError. */
  throwAny(): void {
    if (this.count > 0) throw new ContentError(this.messages.join("\n"), this.count);
  }
}

// When Vite bundles this module for the prerender, import.meta.dirname points into
// build/; the build runs from the project root, where content/ is.
export const defaultContentRoot = existsSync(path.join(import.meta.dirname, "schema.ts"))
  ? import.meta.dirname
  : path.resolve("content");

function splitFrontmatter(root: string, relative: string): { yaml: string; body: string } {
  const source = readFileSync(path.join(root, relative), "utf8");
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(source);
  if (!match)
    throw new ContentError(`${relative}: missing the frontmatter block between --- lines`);
  return { yaml: match[1] ?? "", body: match[2] ?? "" };
}

function parsed(relative: string, yaml: string): unknown {
  try {
    return parseYaml(yaml) ?? {};
  } catch (error) {
    throw new ContentError(
      `${relative}: frontmatter is not valid YAML: ${(error as Error).message}`,
    );
  }
}

/**
 * Splits `content/<relative>` into its YAML frontmatter (parsed) and Markdown body,
 * trimmed as Astro's content collections trim it.
 */
export function readFrontmatter(root: string, relative: string): { data: unknown; body: string } {
  const { yaml, body } = splitFrontmatter(root, relative);
  return { data: parsed(relative, yaml), body: body.trim() };
}

/** The data as its schema makes it; a problem throws a ContentError naming the file and each field. */
export function validate<S extends z.ZodType>(schema: S, data: unknown, file: string): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  // A field from another site's format (draft, tags, date…) is named, with where ours are listed.
  const problems = result.error.issues.map(
    (issue) =>
      `  ${issue.path.join(".") || "frontmatter"}: ${issue.message}` +
      (issue.code === "unrecognized_keys"
        ? "; this kind of file has no such field (content/FORMAT.md lists its fields)"
        : ""),
  );
  throw new ContentError(`${file}: invalid content\n${problems.join("\n")}`);
}

/**
 * Only the named top-level fields of a file's frontmatter: each from its key at
 * the start of a line to the next line that starts another top-level entry.
 * Parsing YAML costs in proportion to its text, and the server reads a few
 * fields of every item at start (content/catalog.ts): most of a frontmatter is
 * the page's (images, sources, tabs), which the build has validated.
 */
export function readFrontmatterFields(
  root: string,
  relative: string,
  keys: readonly string[],
): unknown {
  const wanted = new Set(keys);
  const kept: string[] = [];
  let keeping = false;
  for (const line of splitFrontmatter(root, relative).yaml.split(/\r?\n/)) {
    if (/^[^\s#]/.test(line)) keeping = wanted.has(/^([\w-]+)\s*:/.exec(line)?.[1] ?? "");
    if (keeping) kept.push(line);
  }
  return parsed(relative, kept.join("\n"));
}

/** The Markdown files of a content folder, sorted by name, as paths relative to the root. */
export function markdownFiles(root: string, folder: string): string[] {
  const dir = path.join(root, folder);
  if (!existsSync(dir)) throw new ContentError(`${folder}/: folder is missing`);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `${folder}/${name}`);
}

/** One file of a collection, validated, as Astro's collections and `readCollections` give it. */
type RawEntry<T> = { file: string; data: T; body: string };
export type RawCollections = {
  [N in CollectionName]: RawEntry<z.output<Collections[N]["schema"]>>[];
};

/**
 * Every collection's files read from `root` and validated against their schemas,
 * outside Astro: a file with a problem is left out, the problem kept in `problems`.
 */
export function readCollections(root: string, problems: Problems): RawCollections {
  const read = ({ files, schema }: Collections[CollectionName]) =>
    problems.each(
      problems.attempt(
        () => (files.endsWith("/*.md") ? markdownFiles(root, files.slice(0, -5)) : [files]),
        [],
      ),
      (file) => {
        const { data, body } = readFrontmatter(root, file);
        return { file, data: validate(schema, data, file), body };
      },
    );
  const names = Object.keys(collections) as CollectionName[];
  return Object.fromEntries(names.map((name) => [name, read(collections[name])])) as RawCollections;
}
