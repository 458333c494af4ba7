import { z } from "zod";
import { defaultContentRoot, markdownFiles, readFrontmatter } from "../../content/frontmatter.ts";

const titled = z.looseObject({ id: z.string(), title: z.string() });

/**
 * The titles of the science posts, by id, for the owner's notifications. The
 * build has validated the content (content/load.ts); a file that does not
 * parse here is skipped and its post is named by its id instead.
 */
export function loadPostTitles(root: string = defaultContentRoot): Map<string, string> {
  const titles = new Map<string, string>();
  for (const file of markdownFiles(root, "science")) {
    const parsed = titled.safeParse(readFrontmatter(root, file).data);
    if (parsed.success) titles.set(parsed.data.id, parsed.data.title);
  }
  return titles;
}
