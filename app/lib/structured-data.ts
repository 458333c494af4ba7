import { type Item, servicePath } from "../../content/items.ts";
import type { SiteContent } from "../../content/load.ts";
import { priceSignal } from "../../content/service-page.ts";
import { siteConfig, siteName } from "./site-config.ts";
import { siteOwner as owner } from "./site-owner.ts";

/** The site's address, baked in at build time like the owner. */
const site = siteConfig.siteUrl;
/** The owner's node's id: every page's JSON-LD names the same person. */
const personId = `${site}/about#owner`;
const websiteId = `${site}/#website`;
/** A page's JSON-LD: its nodes, in one graph. */
const graph = (...nodes: object[]) => ({ "@context": "https://schema.org", "@graph": nodes });

/**
 * The owner as a schema.org Person: the author of every item, with what a
 * client checks first (role, place, profiles elsewhere).
 */
const ownerPerson = {
  "@type": "Person",
  "@id": personId,
  name: owner.name,
  url: `${site}/about`,
  ...(owner.role ? { jobTitle: owner.role } : {}),
  ...(owner.location ? { homeLocation: { "@type": "Place", name: owner.location } } : {}),
  ...(owner.areas.length > 0 ? { knowsAbout: owner.areas } : {}),
  ...(owner.links.length > 0 ? { sameAs: owner.links.map((link) => link.url) } : {}),
};

/**
 * What an item's page tells search engines, as schema.org JSON-LD: the piece
 * itself (Article or BlogPosting with the properties Google asks for: headline,
 * image, dates, author with name and url) and the breadcrumb trail above it.
 * On story and science pages the server adds the reactions and comments
 * (server/web/engagement-pages.ts).
 */
export function itemStructuredData(item: Item) {
  const url = `${site}${item.path}`;
  return graph(
    {
      "@type": item.schemaType,
      "@id": `${url}#article`,
      headline: item.title,
      ...articleDetails(item),
      publisher: { "@type": "Organization", name: siteName, url: `${site}/` },
      mainEntityOfPage: url,
      url,
      articleSection: item.section.name,
      wordCount: item.words,
      inLanguage: "en",
    },
    breadcrumbs([item.section.name, `${site}/${item.section.id}`], [item.title, url]),
  );
}

/** What Google asks of an Article besides its headline: picture, dates and author. */
function articleDetails(item: Item) {
  return {
    description: item.description,
    image: [`${site}${item.shareImage}`],
    datePublished: item.published,
    dateModified: item.updated ?? item.published,
    author: [ownerPerson],
  };
}

/**
 * What a list page (/science, /mythology) tells search engines of each of its
 * items beyond their engagement, as their own pages do: the server adds the
 * headline, the engagement and the rest, matching each entry by its `url`
 * (server/web/engagement-pages.ts).
 */
export function listStructuredData(items: Item[]) {
  return {
    "@graph": items.map((item) => ({ url: `${site}${item.path}`, ...articleDetails(item) })),
  };
}

/** The trail Home › a section › the page, each with its name and address. */
const breadcrumbs = (...trail: [name: string, item: string][]) => ({
  "@type": "BreadcrumbList",
  itemListElement: [["Home", `${site}/`], ...trail].map(([name, item], index) => ({
    "@type": "ListItem",
    position: index + 1,
    name,
    item,
  })),
});

/** The site itself, written and run by the owner. */
function website(description: string) {
  return {
    "@type": "WebSite",
    "@id": websiteId,
    name: siteName,
    url: `${site}/`,
    description,
    inLanguage: "en",
    author: { "@id": personId },
    publisher: { "@id": personId },
  };
}

/** The home page: the site, and who is behind it. */
export function homeStructuredData(description: string) {
  return graph(website(description), ownerPerson);
}

/** /about: a profile page about the owner, as content/owner.md describes them. */
export function aboutStructuredData(page: { title: string; description: string }) {
  const url = `${site}/about`;
  return graph(
    {
      "@type": "ProfilePage",
      "@id": `${url}#page`,
      url,
      name: page.title,
      description: page.description,
      isPartOf: { "@id": websiteId },
      mainEntity: { "@id": personId },
    },
    {
      ...ownerPerson,
      ...(owner.education.length > 0
        ? {
            hasCredential: owner.education.map((name) => ({
              "@type": "EducationalOccupationalCredential",
              name,
            })),
          }
        : {}),
    },
  );
}

/** /services: each service the owner offers, as its card on the page says. */
export function servicesStructuredData(services: SiteContent["services"]) {
  return graph(
    ownerPerson,
    ...services.map((service) => ({
      ...serviceNode(service),
      provider: { "@id": personId },
    })),
  );
}

type ServiceEntry = SiteContent["services"][number];
/** A service as schema.org has it, the same node on /services and on its own page. */
const serviceNode = (service: ServiceEntry) => ({
  "@type": "Service",
  "@id": `${site}${servicePath(service.id)}#service`,
  url: `${site}${servicePath(service.id)}`,
  name: service.title,
  serviceType: service.title,
  description: service.description,
});

/**
 * A service's own page: the service, provided by the owner, with its price as
 * the owner states it; its questions and answers as an FAQPage; the trail
 * Home › Services › the service.
 */
export function serviceStructuredData(service: ServiceEntry) {
  const url = `${site}${servicePath(service.id)}`;
  const { price } = service;
  return graph(
    {
      ...serviceNode(service),
      provider: ownerPerson,
      ...(price === "on request"
        ? {}
        : {
            offers: {
              "@type": "Offer",
              url,
              description: priceSignal(price),
              priceSpecification: {
                "@type": "PriceSpecification",
                priceCurrency: price.currency,
                minPrice: price.from,
                ...(price.to === undefined ? {} : { maxPrice: price.to }),
              },
            },
          }),
    },
    {
      "@type": "FAQPage",
      "@id": `${url}#questions`,
      url,
      mainEntity: service.questions.map(({ question, answer }) => ({
        "@type": "Question",
        name: question,
        acceptedAnswer: { "@type": "Answer", text: answer },
      })),
    },
    breadcrumbs(["Services", `${site}/services`], [service.title, url]),
  );
}

/**
 * A section's page whose items each have a page of their own (/technical,
 * /non-technical, /mechfusion-ai): the collection, and the section's items in
 * the page's order.
 */
export function collectionStructuredData(
  page: { section: string; title: string; description: string },
  siteItems: Item[],
) {
  const url = `${site}/${page.section}`;
  const items = siteItems.filter((item) => item.section.id === page.section);
  return graph(
    {
      "@type": "CollectionPage",
      "@id": `${url}#page`,
      url,
      name: page.title,
      description: page.description,
      inLanguage: "en",
      isPartOf: { "@id": websiteId },
      author: { "@id": personId },
      mainEntity: {
        "@type": "ItemList",
        numberOfItems: items.length,
        itemListElement: items.map((item, index) => ({
          "@type": "ListItem",
          position: index + 1,
          url: `${site}${item.path}`,
          name: item.title,
        })),
      },
    },
    ownerPerson,
  );
}
