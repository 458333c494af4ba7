import type { APIRequestContext } from "@playwright/test";
import { siteItems } from "../../content/items.ts";
import { readOwnerProfile } from "../../content/owner.ts";
import { builtPages } from "./support/built-pages.ts";
import { siteContent } from "./support/content.ts";
import { expect, test } from "./support/fixtures.ts";

/*
 * The schema.org JSON-LD of the pages that are not an item's own (those are
 * checked in item-pages.spec.ts), as the server sends them: the home page
 * describes the site, /about the owner (content/owner.md), /services each
 * service as the owner's, and the list pages whose items have pages of their
 * own list them. Every JSON-LD block on every built page is JSON.
 */

const content = siteContent();
const items = siteItems(content);
/** The browser tests' site keeps the repository's owner profile and sets no SITE_OWNER_NAME. */
const owner = readOwnerProfile();

type Node = Record<string, unknown> & { "@type": string; "@id"?: string };

/** The JSON-LD blocks of a page's HTML, parsed, each with its nodes. */
function blocks(html: string): { data: Record<string, unknown>; nodes: Node[] }[] {
  return [...html.matchAll(/<script type="application\/ld\+json">(.*?)<\/script>/gs)].map(
    (script) => {
      const data = JSON.parse(script[1] ?? "") as Record<string, unknown>;
      return { data, nodes: (data["@graph"] ?? [data]) as Node[] };
    },
  );
}

async function nodesOf(request: APIRequestContext, path: string) {
  const response = await request.get(path);
  expect(response.status(), path).toBe(200);
  const found = blocks(await response.text());
  expect(found.length, `${path} has JSON-LD`).toBeGreaterThan(0);
  for (const { data } of found) expect(data["@context"], path).toBe("https://schema.org");
  return found.flatMap((block) => block.nodes);
}

const ofType = (nodes: Node[], type: string) => nodes.filter((node) => node["@type"] === type);

test("the home page describes the site, written by its owner", async ({ request, baseURL }) => {
  const nodes = await nodesOf(request, "/");
  const [site] = ofType(nodes, "WebSite");
  const [person] = ofType(nodes, "Person");
  expect(site).toMatchObject({
    url: `${baseURL}/`,
    description: content.home.description,
    author: { "@id": person?.["@id"] },
  });
  expect(person).toMatchObject({ name: owner.name, url: `${baseURL}/about` });
});

test("/about is a profile page of the owner, from content/owner.md", async ({
  request,
  baseURL,
}) => {
  const nodes = await nodesOf(request, "/about");
  const [page] = ofType(nodes, "ProfilePage");
  const [person] = ofType(nodes, "Person");
  expect(page).toMatchObject({
    url: `${baseURL}/about`,
    name: content.about.title,
    mainEntity: { "@id": person?.["@id"] },
  });
  expect(person).toMatchObject({
    name: owner.name,
    jobTitle: owner.role,
    homeLocation: { "@type": "Place", name: owner.location },
    knowsAbout: owner.areas,
    ...(owner.links.length > 0 ? { sameAs: owner.links.map((link) => link.url) } : {}),
  });
  expect(person?.hasCredential).toEqual(
    owner.education.map((name) => ({ "@type": "EducationalOccupationalCredential", name })),
  );
});

test("/services offers each service, provided by the owner", async ({ request, baseURL }) => {
  const nodes = await nodesOf(request, "/services");
  const [person] = ofType(nodes, "Person");
  expect(person).toMatchObject({ name: owner.name });
  const services = ofType(nodes, "Service");
  expect(services.map((service) => service.name)).toEqual(
    content.services.map((service) => service.title),
  );
  for (const [index, service] of services.entries()) {
    const card = content.services[index];
    expect(service).toMatchObject({
      url: `${baseURL}/services/${card?.id}`,
      description: card?.description,
      provider: { "@id": person?.["@id"] },
    });
  }
});

for (const section of ["technical", "non-technical", "mechfusion-ai"] as const) {
  test(`/${section} is a collection of its items, in the page's order, each at its own page`, async ({
    request,
    baseURL,
  }) => {
    const nodes = await nodesOf(request, `/${section}`);
    const [page] = ofType(nodes, "CollectionPage");
    expect(page).toMatchObject({ url: `${baseURL}/${section}` });
    const list = page?.mainEntity as Node & { itemListElement: Node[] };
    expect(list["@type"]).toBe("ItemList");
    const expected = items.filter((item) => item.section.id === section);
    expect(list.itemListElement).toEqual(
      expected.map((item, index) => ({
        "@type": "ListItem",
        position: index + 1,
        url: `${baseURL}${item.path}`,
        name: item.title,
      })),
    );
    for (const entry of list.itemListElement) {
      const response = await request.head(String(entry.url));
      expect(response.status(), String(entry.url)).toBe(200);
    }
  });
}

test("every JSON-LD block on every built page is JSON for schema.org", async ({ request }) => {
  const pages = builtPages();
  expect(pages.length).toBeGreaterThan(40);
  for (const path of pages) {
    const html = await (await request.get(path)).text();
    for (const { data, nodes } of blocks(html)) {
      expect(data["@context"], path).toBe("https://schema.org");
      for (const node of nodes) expect(typeof node["@type"], path).toBe("string");
    }
  }
});
