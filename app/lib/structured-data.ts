import type { Item } from "../../content/items.ts";
import type { Owner } from "../../content/owner.ts";
import { siteConfig, siteName } from "./site-config.ts";
import { siteOwner } from "./site-owner.ts";

/**
 * The owner as a schema.org Person: the author of every item, with what a
 * client checks first (role, place, profiles elsewhere).
 */
export function ownerPerson(owner: Owner = siteOwner, site: string = siteConfig.siteUrl) {
  return {
    "@type": "Person",
    name: owner.name,
    url: `${site}/about`,
    ...(owner.role ? { jobTitle: owner.role } : {}),
    ...(owner.location ? { homeLocation: { "@type": "Place", name: owner.location } } : {}),
    ...(owner.areas.length > 0 ? { knowsAbout: owner.areas } : {}),
    ...(owner.links.length > 0 ? { sameAs: owner.links.map((link) => link.url) } : {}),
  };
}

/**
 * What an item's page tells search engines, as schema.org JSON-LD: the piece
 * itself (Article or BlogPosting with the properties Google asks for: headline,
 * image, dates, author with name and url) and the breadcrumb trail above it.
 * On story and science pages the server adds the reactions and comments
 * (server/web/engagement-pages.ts).
 */
export function itemStructuredData(item: Item) {
  const site = siteConfig.siteUrl;
  const url = `${site}${item.path}`;
  return {
    "@context": "https://schema.org",
    "@graph": [
      {
        "@type": item.schemaType,
        "@id": `${url}#article`,
        headline: item.title,
        ...articleDetails(item, site),
        publisher: { "@type": "Organization", name: siteName, url: `${site}/` },
        mainEntityOfPage: url,
        url,
        articleSection: item.section.name,
        wordCount: item.words,
        inLanguage: "en",
      },
      {
        "@type": "BreadcrumbList",
        itemListElement: [
          { "@type": "ListItem", position: 1, name: "Home", item: `${site}/` },
          {
            "@type": "ListItem",
            position: 2,
            name: item.section.name,
            item: `${site}/${item.section.id}`,
          },
          { "@type": "ListItem", position: 3, name: item.title, item: url },
        ],
      },
    ],
  };
}

/** What Google asks of an Article besides its headline: picture, dates and author. */
function articleDetails(item: Item, site: string) {
  return {
    description: item.description,
    image: [`${site}${item.shareImage}`],
    datePublished: item.published,
    dateModified: item.updated ?? item.published,
    author: [ownerPerson(siteOwner, site)],
  };
}

/**
 * What a list page (/science, /mythology) tells search engines of each of its
 * items beyond their engagement, as their own pages do: the server adds the
 * headline, the engagement and the rest, matching each entry by its `url`
 * (server/web/engagement-pages.ts).
 */
export function listStructuredData(items: Item[]) {
  const site = siteConfig.siteUrl;
  return {
    "@graph": items.map((item) => ({ url: `${site}${item.path}`, ...articleDetails(item, site) })),
  };
}

/** JSON for a <script> element: nothing in it can close the element. */
export const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028|\u2029/g, "");
