import { z } from "zod";
import {
  ContentError,
  defaultContentRoot,
  expectUniqueIds,
  markdownFiles,
  readFrontmatter,
} from "./frontmatter.ts";
import { idSchema } from "./schema.ts";

const withId = z.looseObject({ id: idSchema });

function readIds(root: string, folder: string): Set<string> {
  const entries = markdownFiles(root, folder).map((file) => {
    const parsed = withId.safeParse(readFrontmatter(root, file).data);
    if (!parsed.success) throw new ContentError(`${file}: id: ${parsed.error.issues[0]?.message}`);
    return { id: parsed.data.id, file };
  });
  expectUniqueIds(entries);
  return new Set(entries.map((entry) => entry.id));
}

/**
 * The items readers can react to and comment on, for the server: only the ids
 * from the stories' and science posts' frontmatter. The build has validated
 * everything else (content/load.ts); reading only this keeps Markdown rendering
 * and the pages' text out of the server's memory.
 */
export function loadEngagementCatalog(root: string = defaultContentRoot) {
  return { mythology: readIds(root, "mythology"), science: readIds(root, "science") };
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
    const parsed = serviceHeading.safeParse(readFrontmatter(root, file).data);
    if (!parsed.success) throw new ContentError(`${file}: ${parsed.error.issues[0]?.message}`);
    return { ...parsed.data, file };
  });
  expectUniqueIds(entries);
  return entries.toSorted((a, b) => a.order - b.order).map(({ id, title }) => ({ id, title }));
}
