import type { MetaDescriptor } from "react-router";
import { siteConfig, siteName } from "./site-config.ts";

type PageMeta = { title: string; description: string; path: string };

/** Title, description, canonical URL, Open Graph and Twitter tags of one page. */
export function pageMeta({ title, description, path }: PageMeta): MetaDescriptor[] {
  const fullTitle = path === "/" ? `${siteName} | ${title}` : `${title} | ${siteName}`;
  const url = `${siteConfig.siteUrl}${path === "/" ? "/" : path}`;
  const image = `${siteConfig.siteUrl}/og-image.png`;
  return [
    { title: fullTitle },
    { name: "description", content: description },
    { tagName: "link", rel: "canonical", href: url },
    { property: "og:type", content: "website" },
    { property: "og:site_name", content: siteName },
    { property: "og:title", content: fullTitle },
    { property: "og:description", content: description },
    { property: "og:url", content: url },
    { property: "og:image", content: image },
    { name: "twitter:card", content: "summary_large_image" },
    { name: "twitter:title", content: fullTitle },
    { name: "twitter:description", content: description },
    { name: "twitter:image", content: image },
  ];
}
