import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";

/** A problem in a content file; the message starts with the file's name. */
export class ContentError extends Error {
  override name = "ContentError";
}

// When Vite bundles this module for the prerender, import.meta.dirname points into
// build/; the build runs from the project root, where content/ is.
export const defaultContentRoot = existsSync(path.join(import.meta.dirname, "schema.ts"))
  ? import.meta.dirname
  : path.resolve("content");

/** Splits `content/<relative>` into its YAML frontmatter (parsed) and Markdown body. */
export function readFrontmatter(root: string, relative: string): { data: unknown; body: string } {
  const source = readFileSync(path.join(root, relative), "utf8");
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(source);
  if (!match)
    throw new ContentError(`${relative}: missing the frontmatter block between --- lines`);
  try {
    return { data: parseYaml(match[1] ?? "") ?? {}, body: match[2] ?? "" };
  } catch (error) {
    throw new ContentError(
      `${relative}: frontmatter is not valid YAML: ${(error as Error).message}`,
    );
  }
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

/** Throws, naming both files, when two files of a collection share an id. */
export function expectUniqueIds(entries: { id: string; file: string }[]): void {
  const seen = new Map<string, string>();
  for (const { id, file } of entries) {
    const other = seen.get(id);
    if (other) throw new ContentError(`${file}: duplicate id "${id}" (also in ${other})`);
    seen.set(id, file);
  }
}
