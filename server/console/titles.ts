import { defaultContentRoot, markdownFiles, readFrontmatter } from "../../content/frontmatter.ts";

type Kind = "mythology" | "science";

export type ItemTitles = {
  of(kind: Kind, id: string): string;
  /** Every item of a kind the content holds, by title. */
  list(kind: Kind): { id: string; title: string }[];
};

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
  return {
    of: (kind, id) => titles.get(`${kind}:${id}`) ?? id,
    list: (kind) =>
      [...titles]
        .filter(([key]) => key.startsWith(`${kind}:`))
        .map(([key, title]) => ({ id: key.slice(kind.length + 1), title }))
        .sort((a, b) => a.title.localeCompare(b.title)),
  };
}
