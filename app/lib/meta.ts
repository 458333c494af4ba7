import { siteConfig, siteName } from "./site-config.ts";

export type PageMeta = { title: string; description: string; path: string };

/** The title, canonical URL and sharing image of one page; the layout writes the tags. */
export function pageMeta({ title, description, path }: PageMeta) {
  return {
    title: path === "/" ? `${siteName} | ${title}` : `${title} | ${siteName}`,
    description,
    url: `${siteConfig.siteUrl}${path}`,
    image: `${siteConfig.siteUrl}/og-image.png`,
  };
}
