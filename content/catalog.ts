import { z } from "zod";
import { ContentError, defaultContentRoot, markdownFiles, readFrontmatter } from "./frontmatter.ts";
import { idSchema } from "./schema.ts";

/**
 * The items readers can react to and comment on, for the server: only the ids
 * from the stories' and science posts' frontmatter. The build has validated
 * everything else (content/load.ts); reading only this keeps Markdown rendering
 * and the pages' text out of the server's memory.
 */
const withId = z.looseObject({ id: idSchema });

function readIds(root: string, folder: string): Set<string> {
  const files = new Map<string, string>();
  for (const file of markdownFiles(root, folder)) {
    const parsed = withId.safeParse(readFrontmatter(root, file).data);
    if (!parsed.success) throw new ContentError(`${file}: id: ${parsed.error.issues[0]?.message}`);
    const { id } = parsed.data;
    const other = files.get(id);
    if (other) throw new ContentError(`${file}: duplicate id "${id}" (also in ${other})`);
    files.set(id, file);
  }
  return new Set(files.keys());
}

export function loadEngagementCatalog(root: string = defaultContentRoot) {
  return { mythology: readIds(root, "mythology"), science: readIds(root, "science") };
}
