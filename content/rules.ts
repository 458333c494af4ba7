import type { Problems } from "./frontmatter.ts";

/* The rules that hold across files, which no one file's schema can check; each problem is kept. */

/** Two files of a collection that share an id, each such file named with the other. */
export function expectUniqueIds(entries: { id: string; file: string }[], problems: Problems): void {
  const seen = new Map<string, string>();
  for (const { id, file } of entries) {
    const other = seen.get(id);
    if (other)
      problems.add(`${file}: duplicate id "${id}" (also in ${other}); give one of them another id`);
    else seen.set(id, file);
  }
}

/** An item's related services (`services` in its frontmatter) are services of the site. */
export function expectKnownServices(
  items: { file: string; services?: string[] | undefined }[],
  services: { id: string }[],
  problems: Problems,
) {
  const known = new Set(services.map((service) => service.id));
  for (const { file, services: related = [] } of items) {
    for (const unknown of related.filter((id) => !known.has(id))) {
      problems.add(
        `${file}: services: "${unknown}" is not a service (content/services/ has ${[...known].join(", ")})`,
      );
    }
  }
}

/** An AI article's `linkedin` is the owner's post on its own topic: two articles never share one. */
export function expectOwnPosts(
  articles: { file: string; linkedin?: string | undefined }[],
  problems: Problems,
) {
  const first = new Map<string, string>();
  for (const { file, linkedin } of articles) {
    const other = linkedin && first.get(linkedin);
    if (other) problems.add(`${file}: linkedin is the same post as in ${other}`);
    else if (linkedin) first.set(linkedin, file);
  }
}
