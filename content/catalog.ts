import { z } from "zod";
import {
  ContentError,
  defaultContentRoot,
  markdownFiles,
  Problems,
  readFrontmatterFields,
} from "./frontmatter.ts";
import { expectUniqueIds } from "./rules.ts";
import { idSchema } from "./schema.ts";

/*
 * What the server reads of the content at start, outside Astro: a few fields of
 * the stories', science posts' and services' frontmatter (the engagement catalog,
 * titles for the console and the owner's mails, the enquiry form's services). The
 * build has validated the rest (content/load.ts), which stays out of the server's memory.
 */

const itemHeading = z.looseObject({ id: idSchema, title: z.string() });
const serviceHeading = itemHeading.extend({ order: z.number() });

/** The fields a heading schema names, from each file of a folder; ids unique within it. */
function readHeadings<S extends typeof itemHeading>(root: string, folder: string, schema: S) {
  const entries = markdownFiles(root, folder).map((file) => {
    const fields = readFrontmatterFields(root, file, Object.keys(schema.shape));
    const parsed = schema.safeParse(fields);
    if (!parsed.success) {
      const [issue] = parsed.error.issues;
      throw new ContentError(`${file}: ${issue?.path.join(".")}: ${issue?.message}`);
    }
    return { ...(parsed.data as z.output<S>), file };
  });
  const problems = new Problems();
  expectUniqueIds(entries, problems);
  problems.throwAny();
  return entries;
}

/** The stories' and science posts' titles, by id, in file order. */
export type ItemIndex = Record<"mythology" | "science", ReadonlyMap<string, string>>;

export function loadItemIndex(root: string = defaultContentRoot): ItemIndex {
  const titles = (folder: string) =>
    new Map(readHeadings(root, folder, itemHeading).map(({ id, title }) => [id, title]));
  return { mythology: titles("mythology"), science: titles("science") };
}

/** The ids of an index's items, by kind: what the server checks a request's item against. */
export function engagementCatalogOf(index: ItemIndex) {
  return { mythology: new Set(index.mythology.keys()), science: new Set(index.science.keys()) };
}

/** The engagement catalog straight from the content (the command line's commands). */
export function loadEngagementCatalog(root: string = defaultContentRoot) {
  return engagementCatalogOf(loadItemIndex(root));
}

/** The services an enquiry can name, in the page's order. */
export function loadServiceTitles(): { id: string; title: string }[] {
  return readHeadings(defaultContentRoot, "services", serviceHeading)
    .toSorted((a, b) => a.order - b.order)
    .map(({ id, title }) => ({ id, title }));
}
