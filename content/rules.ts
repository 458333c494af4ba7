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

/** A piece of writing, as rendered for a page of its own. */
type Written = { file: string; pageHtml: string };

/**
 * Every link in the writing to a page of this site (`/technical/ice-blog`) names a page
 * the site has, and one to a part of an item's page (`/science/soap#why-it-works`) a
 * heading on it: a mistyped path would answer 404 and send the reader to the home page
 * (docs/product.md, "Unknown addresses"). Links to files (`/rss.xml`) are not checked.
 * `pages` holds every page's path, with the ids an item's page gives its headings.
 */
export function expectKnownLinks(
  writing: Written[],
  pages: Map<string, Set<string> | null>,
  problems: Problems,
) {
  for (const { file, pageHtml } of writing) {
    for (const [, link = ""] of pageHtml.matchAll(/\shref="(\/(?!\/)[^"]*)"/g)) {
      const { pathname, hash } = new URL(link.replaceAll("&amp;", "&"), "http://site");
      if (/\.[a-z0-9]+$/i.test(pathname)) continue;
      const page = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
      if (!pages.has(page)) {
        problems.add(`${file}: the link ${link} leads to no page of the site; correct its path`);
        continue;
      }
      const ids = pages.get(page);
      const id = decodeURIComponent(hash.slice(1));
      if (id && ids && !ids.has(id)) {
        const known = [...ids].join(", ") || "none";
        problems.add(
          `${file}: the link ${link} names no heading of ${page} (its headings' ids: ${known})`,
        );
      }
    }
  }
}
