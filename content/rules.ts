import { ContentError } from "./frontmatter.ts";

/* The rules that hold across files, which no one file's schema can check. */

/** Throws, naming both files, when two files of a collection share an id. */
export function expectUniqueIds(entries: { id: string; file: string }[]): void {
  const seen = new Map<string, string>();
  for (const { id, file } of entries) {
    const other = seen.get(id);
    if (other) throw new ContentError(`${file}: duplicate id "${id}" (also in ${other})`);
    seen.set(id, file);
  }
}

/** An item's related services (`services` in its frontmatter) are services of the site. */
export function expectKnownServices(
  items: { file: string; services?: string[] | undefined }[],
  services: { id: string }[],
) {
  const known = new Set(services.map((service) => service.id));
  for (const { file, services: related = [] } of items) {
    const unknown = related.find((id) => !known.has(id));
    if (unknown !== undefined) {
      throw new ContentError(
        `${file}: services: "${unknown}" is not a service (content/services/ has ${[...known].join(", ")})`,
      );
    }
  }
}

/** An AI article's `linkedin` is the owner's post on its own topic: two articles never share one. */
export function expectOwnPosts(articles: { file: string; linkedin?: string | undefined }[]) {
  const first = new Map<string, string>();
  for (const { file, linkedin } of articles) {
    const other = linkedin && first.get(linkedin);
    if (other) throw new ContentError(`${file}: linkedin is the same post as in ${other}`);
    if (linkedin) first.set(linkedin, file);
  }
}
