import { feedFormats, feedName, feedPath } from "./feed-paths.ts";
import { siteConfig, siteName } from "./site-config.ts";

/** A 1200×630 picture for link previews (docs/decisions/013-item-pages-and-feeds.md). */
export type ShareImage = { path: string; alt: string };

type PageMeta = { title: string; description: string; path: string; image?: ShareImage };

/** The site's own share image, for pages without one of their own; written by the build. */
const siteShareImage: ShareImage = {
  path: "/og-image.png",
  alt: `${siteName}: articles, stories and services of a practising mechanical engineer`,
};

/**
 * Search engines show about 70 characters of a title: past that, a page's
 * title is its own words without the site's name, so that they show whole
 * (docs/decisions/034-valid-html.md).
 */
const titleMax = 70;

function fullTitle(title: string, path: string): string {
  const full = path === "/" ? `${siteName} | ${title}` : `${title} | ${siteName}`;
  return full.length > titleMax ? title : full;
}

/** The title, canonical URL and sharing image of one page; the layout writes the tags. */
export function pageMeta({ title, description, path, image = siteShareImage }: PageMeta) {
  return {
    title: fullTitle(title, path),
    description,
    url: `${siteConfig.siteUrl}${path}`,
    image: `${siteConfig.siteUrl}${image.path}`,
    imageAlt: image.alt,
  };
}

/** The `<link rel="alternate">`s of the site's feeds, or of one section's as well. */
export function feedLinks(section?: { id: string; name: string }) {
  const of = (scope: string, sectionId?: string) =>
    feedFormats.map((format) => ({
      type: format.type,
      href: feedPath(format, sectionId),
      title: feedName(format, scope),
    }));
  return [...of(siteName), ...(section ? of(`${siteName}: ${section.name}`, section.id) : [])];
}
