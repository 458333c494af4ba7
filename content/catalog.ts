import { z } from "zod";
import {
  ContentError,
  defaultContentRoot,
  expectUniqueIds,
  markdownFiles,
  readFrontmatterFields,
} from "./frontmatter.ts";
import { idSchema } from "./schema.ts";

const itemHeading = z.looseObject({ id: idSchema, title: z.string() });

/** The stories' and science posts' titles, by id, in file order. */
export type ItemIndex = Record<"mythology" | "science", ReadonlyMap<string, string>>;

function readItems(root: string, folder: string): Map<string, string> {
  const entries = markdownFiles(root, folder).map((file) => {
    const parsed = itemHeading.safeParse(readFrontmatterFields(root, file, ["id", "title"]));
    if (!parsed.success) {
      const [issue] = parsed.error.issues;
      throw new ContentError(`${file}: ${issue?.path.join(".")}: ${issue?.message}`);
    }
    return { ...parsed.data, file };
  });
  expectUniqueIds(entries);
  return new Map(entries.map(({ id, title }) => [id, title]));
}

/**
 * The items readers can react to and comment on, for the server: only the ids
 * and titles from the stories' and science posts' frontmatter, read once for
 * the engagement catalog, the console's titles and the owner's notifications.
 * The build has validated everything else (content/load.ts); reading only this
 * keeps Markdown rendering and the pages' text out of the server's memory.
 */
export function loadItemIndex(root: string = defaultContentRoot): ItemIndex {
  return { mythology: readItems(root, "mythology"), science: readItems(root, "science") };
}

/** The ids of an index's items, by kind: what the server checks a request's item against. */
export function engagementCatalogOf(index: ItemIndex) {
  return { mythology: new Set(index.mythology.keys()), science: new Set(index.science.keys()) };
}

/** The engagement catalog straight from the content (the command line's commands). */
export function loadEngagementCatalog(root: string = defaultContentRoot) {
  return engagementCatalogOf(loadItemIndex(root));
}

const serviceHeading = z.looseObject({ id: idSchema, title: z.string(), order: z.number() });

/**
 * The services an enquiry can name, in the page's order: id and title from
 * each service's frontmatter, for the server's check of the form's choice and
 * the owner's mails and console.
 */
export function loadServiceTitles(
  root: string = defaultContentRoot,
): { id: string; title: string }[] {
  const entries = markdownFiles(root, "services").map((file) => {
    const parsed = serviceHeading.safeParse(
      readFrontmatterFields(root, file, ["id", "title", "order"]),
    );
    if (!parsed.success) throw new ContentError(`${file}: ${parsed.error.issues[0]?.message}`);
    return { ...parsed.data, file };
  });
  expectUniqueIds(entries);
  return entries.toSorted((a, b) => a.order - b.order).map(({ id, title }) => ({ id, title }));
}
