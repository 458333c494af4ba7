import { prerenderedPaths } from "../app/navigation.ts";
import { Problems } from "./frontmatter.ts";
import { servicePath, siteItems } from "./items.ts";
import type { SiteContent } from "./load.ts";
import { expectKnownLinks } from "./rules.ts";

/**
 * The links in the writing to pages of the site, checked by the build and by
 * content:check against the site's pages (`expectKnownLinks`): those of
 * app/navigation.ts, /book, every service's and every item's, with the ids of
 * an item page's headings. Throws every problem at once.
 */
export function checkSiteLinks(content: SiteContent): void {
  const problems = new Problems();
  const headingIds = (html: string) =>
    new Set([...html.matchAll(/<h[2-6] id="([^"]+)"/g)].map((match) => match[1] ?? ""));
  const pages = new Map<string, Set<string> | null>([
    ...[...prerenderedPaths, "/book"].map((page) => [page, null] as const),
    ...content.services.map((service) => [servicePath(service.id), null] as const),
    ...siteItems(content).map((item) => [item.path, headingIds(item.html)] as const),
  ]);
  const { technical, ai } = content;
  const writing = [
    [content.home, content.about, ai.intro],
    technical.tabs,
    technical.articles,
    content.growth,
    content.softSkills,
    content.stories,
    ai.articles,
    content.science,
    content.services,
  ].flat();
  expectKnownLinks(writing, pages, problems);
  problems.throwAny();
}
