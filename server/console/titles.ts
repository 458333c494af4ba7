import { defaultContentRoot, markdownFiles, readFrontmatter } from "../../content/frontmatter.ts";

export type ItemTitles = { of(kind: "mythology" | "science", id: string): string };

/**
 * The titles of stories and science posts, for the console's lists and charts,
 * read once from the content's frontmatter. An item the content does not know
 * (removed since it was commented on) is shown by its id.
 */
export function loadItemTitles(root: string = defaultContentRoot): ItemTitles {
  const titles = new Map<string, string>();
  for (const kind of ["mythology", "science"] as const) {
    let files: string[] = [];
    try {
      files = markdownFiles(root, kind);
    } catch {
      continue;
    }
    for (const file of files) {
      try {
        const { data } = readFrontmatter(root, file);
        const { id, title } = (data ?? {}) as { id?: unknown; title?: unknown };
        if (typeof id === "string" && typeof title === "string") titles.set(`${kind}:${id}`, title);
      } catch {
        // The build reports broken content files; a title is a nicety here.
      }
    }
  }
  return { of: (kind, id) => titles.get(`${kind}:${id}`) ?? id };
}
