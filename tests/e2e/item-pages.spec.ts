import type { Page } from "@playwright/test";
import { formatDay } from "../../app/lib/format-date.ts";
import { lastChanged, newestFirst, sections, siteItems } from "../../content/items.ts";
import { readOwnerProfile } from "../../content/owner.ts";
import { uniqueWord } from "./support/comments.ts";
import { siteContent } from "./support/content.ts";
import { expect, test } from "./support/fixtures.ts";
import { liveDiscussion, openDiscussion } from "./support/items.ts";

/*
 * Every item's own page, the feeds, the sitemap and the share images, as the
 * server sends them (docs/product.md, "Item pages"; docs/decisions/013-item-pages-and-feeds.md).
 * The expected items come from content/, so a new file is checked as soon as it exists.
 */
const items = siteItems(siteContent());
/** The browser tests' site keeps the repository's owner profile and sets no SITE_OWNER_NAME. */
const owner = readOwnerProfile();

const entities: Record<string, string> = {
  "&amp;": "&",
  "&#39;": "'",
  "&quot;": '"',
  "&lt;": "<",
  "&gt;": ">",
};
const attributeOf = (html: string, pattern: RegExp) =>
  pattern
    .exec(html)?.[1]
    ?.replace(/&(?:amp|#39|quot|lt|gt);/g, (entity) => entities[entity] ?? entity);
const meta = (html: string, key: string) =>
  attributeOf(html, new RegExp(`<meta (?:name|property)="${key}" content="([^"]*)"`));

type Node = Record<string, unknown> & { "@type": string };

function jsonLd(html: string): Node[] {
  const scripts = [...html.matchAll(/<script type="application\/ld\+json">(.*?)<\/script>/gs)];
  return scripts.flatMap((script) => {
    const data = JSON.parse(script[1] ?? "{}");
    return (data["@graph"] ?? [data]) as Node[];
  });
}

// One test for every item, a step each: a test of its own per item cost more
// in the runner than the request it makes.
test("every item's page, one per article, story, science post, AI article and soft-skill piece, carries its text, dates, meta tags, breadcrumbs and JSON-LD before any JavaScript", async ({
  request,
  baseURL,
}) => {
  expect(items.length).toBe(36);
  for (const item of items) {
    await test.step(item.path, async () => {
      const response = await request.get(item.path);
      expect(response.status()).toBe(200);
      const html = await response.text();
      const url = `${baseURL}${item.path}`;

      expect(html).toContain("<h1");
      expect(html).toContain(`<time datetime="${item.published}">`);
      expect(html).toMatch(/\d+ min read/);
      expect(html).toMatch(new RegExp(`By <a href="/about" rel="author"[^>]*>${owner.name}</a>`));
      // The sample's invented engineer is never passed off as a real author.
      expect(html.includes("(the sample author that comes with the site)")).toBe(owner.sample);
      expect(html).toContain(item.html.slice(0, 60));
      expect(html).not.toContain("<ewe-fragment");

      expect(attributeOf(html, /<title>([^<]+)<\/title>/)).toContain(item.title);
      expect(meta(html, "description")?.length).toBeGreaterThan(40);
      expect(html).toContain(`<link rel="canonical" href="${url}">`);
      expect(meta(html, "og:type")).toBe("article");
      expect(meta(html, "og:url")).toBe(url);
      expect(meta(html, "og:image")).toBe(`${baseURL}${item.shareImage}`);
      // The picture's words in its order, the section above the title; a comma
      // between them, as the titles hold colons and question marks of their own.
      expect(meta(html, "og:image:alt")).toBe(`${item.section.name}, ${item.title}`);
      expect(meta(html, "twitter:card")).toBe("summary_large_image");
      expect(meta(html, "article:published_time")).toBe(item.published);
      expect(html).toContain('<link rel="alternate" type="application/rss+xml" href="/rss.xml"');
      expect(html).toContain(`href="/${item.section.id}/atom.xml"`);

      // Headings go down one level at a time: the text's h2s sit under the page's h1.
      const main = html.slice(html.indexOf("<main"), html.indexOf("</main>"));
      const levels = [...main.matchAll(/<h([1-6])[\s>]/g)].map((match) => Number(match[1]));
      expect(levels[0]).toBe(1);
      for (let index = 1; index < levels.length; index++) {
        expect(levels[index] ?? 0, `heading ${index + 1}`).toBeLessThanOrEqual(
          (levels[index - 1] ?? 0) + 1,
        );
      }

      expect(html).toMatch(/<nav aria-label="Breadcrumb"/);
      const nodes = jsonLd(html);
      const article = nodes.find((node) => ["Article", "BlogPosting"].includes(node["@type"]));
      // Google's article properties: headline, image, dates, author with name and url.
      expect(article).toMatchObject({
        headline: item.title,
        datePublished: item.published,
        dateModified: lastChanged(item),
        mainEntityOfPage: url,
      });
      expect(article?.image).toEqual([`${baseURL}${item.shareImage}`]);
      const [author] = (article?.author ?? []) as Node[];
      expect(author).toMatchObject({
        "@type": "Person",
        name: owner.name,
        url: `${baseURL}/about`,
        jobTitle: owner.role,
        knowsAbout: owner.areas,
      });
      if (item.engagement) {
        expect(article?.interactionStatistic).toMatchObject({ "@type": "InteractionCounter" });
      }
      const trail = nodes.find((node) => node["@type"] === "BreadcrumbList");
      expect(trail?.itemListElement).toEqual([
        { "@type": "ListItem", position: 1, name: "Home", item: `${baseURL}/` },
        {
          "@type": "ListItem",
          position: 2,
          name: item.section.name,
          item: `${baseURL}/${item.section.id}`,
        },
        { "@type": "ListItem", position: 3, name: item.title, item: url },
      ]);
    });
  }
});

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes: Buffer) {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
  expect(bytes.subarray(12, 16).toString("latin1")).toBe("IHDR");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test.describe("share images", () => {
  test("every item and the site have a 1200×630 PNG", async ({ request }) => {
    for (const path of ["/og-image.png", ...items.map((item) => item.shareImage)]) {
      const response = await request.get(path);
      expect(response.status(), path).toBe(200);
      expect(response.headers()["content-type"]).toBe("image/png");
      expect(pngSize(await response.body()), path).toEqual({ width: 1200, height: 630 });
    }
  });
});

/** Parses XML in Chromium; throws on anything that is not well-formed. */
async function parseXml(page: Page, xml: string, query: string, fields: string[]) {
  return page.evaluate(
    ({ xml, query, fields }) => {
      const document = new DOMParser().parseFromString(xml, "application/xml");
      const error = document.querySelector("parsererror");
      if (error) throw new Error(`not well-formed: ${error.textContent}`);
      return {
        root: document.documentElement.localName,
        entries: [...document.getElementsByTagName(query)].map((entry) =>
          Object.fromEntries(
            fields.map((field) => {
              const [name, attribute] = field.split("@") as [string, string | undefined];
              const element = [...entry.children].find((child) => child.localName === name);
              return [field, attribute ? element?.getAttribute(attribute) : element?.textContent];
            }),
          ),
        ),
      };
    },
    { xml, query, fields },
  );
}

/** The site's feeds and each section's: the same list the build writes them from. */
const scopes = [
  { path: "", list: items },
  ...sections.map((section) => ({
    path: `/${section.id}`,
    list: items.filter((item) => item.section.id === section.id),
  })),
];

test.describe("feeds", () => {
  // Every scope's feeds in one test, and the XML ones in one browser: a test
  // is a browser of its own, which costs more than reading six feeds.
  const expected = (list: typeof items, baseURL: string | undefined) =>
    newestFirst(list).map((item) => `${baseURL}${item.path}`);

  test("each RSS 2.0 and Atom feed lists its items newest first, each with a date", async ({
    page,
    request,
    baseURL,
  }) => {
    await page.goto("/favicon.svg");
    for (const { path, list } of scopes) {
      const xml = await (await request.get(`${path}/rss.xml`)).text();
      const { root, entries } = await parseXml(page, xml, "item", ["link", "pubDate", "title"]);
      expect(root, path).toBe("rss");
      expect(
        entries.map((entry) => entry.link),
        path,
      ).toEqual(expected(list, baseURL));
      for (const entry of entries) {
        expect(Number.isNaN(Date.parse(entry.pubDate ?? "")), entry.link ?? "").toBe(false);
      }
    }
    for (const { path, list } of scopes) {
      const xml = await (await request.get(`${path}/atom.xml`)).text();
      const { root, entries } = await parseXml(page, xml, "entry", [
        "link@href",
        "updated",
        "published",
      ]);
      expect(root, path).toBe("feed");
      expect(
        entries.map((entry) => entry["link@href"]),
        path,
      ).toEqual(expected(list, baseURL));
      for (const entry of entries) {
        expect(entry.updated, path).toMatch(/^\d{4}-\d\d-\d\dT/);
        expect(entry.published, path).toMatch(/^\d{4}-\d\d-\d\dT/);
      }
    }
  });

  // Its JSON Feed 1.1 schema is checked on what the build writes (scripts/feeds.test.ts).
  test("each JSON Feed names its author and lists every item", async ({ request, baseURL }) => {
    for (const { path, list } of scopes) {
      const feed = await (await request.get(`${path}/feed.json`)).json();
      expect(feed.version, path).toBe("https://jsonfeed.org/version/1.1");
      expect(feed.language, path).toBe("en");
      expect(feed.authors, path).toEqual([{ name: owner.name, url: `${baseURL}/about` }]);
      expect(feed.feed_url).toBe(`${baseURL}${path}/feed.json`);
      expect(
        feed.items.map((item: { url: string }) => item.url),
        path,
      ).toEqual(expected(list, baseURL));
      for (const entry of feed.items) {
        expect(entry.id).toBe(entry.url);
        expect(entry.authors).toEqual(feed.authors);
        expect(entry.content_html.length, entry.url).toBeGreaterThan(200);
        expect(Number.isNaN(Date.parse(entry.date_published)), entry.url).toBe(false);
      }
    }
  });

  test("every page's head announces the site's feeds", async ({ request }) => {
    for (const path of ["/", "/about", "/science", "/services"]) {
      const html = await (await request.get(path)).text();
      for (const [type, href] of [
        ["application/rss+xml", "/rss.xml"],
        ["application/atom+xml", "/atom.xml"],
        ["application/feed+json", "/feed.json"],
      ]) {
        expect(html, path).toContain(`<link rel="alternate" type="${type}" href="${href}"`);
      }
    }
  });
});

test("the sitemap lists every item's page with the day it last changed", async ({
  page,
  request,
  baseURL,
}) => {
  await page.goto("/favicon.svg");
  const xml = await (await request.get("/sitemap.xml")).text();
  const { entries } = await parseXml(page, xml, "url", ["loc", "lastmod"]);
  const lastmod = new Map(entries.map((entry) => [entry.loc, entry.lastmod]));
  for (const item of items) {
    expect(lastmod.get(`${baseURL}${item.path}`), item.path).toBe(lastChanged(item));
  }
  expect(lastmod.has(`${baseURL}/science`)).toBe(true);
});

test.describe("list pages and item pages together", () => {
  test("every card's byline names the owner, the day it first appeared and its reading time", async ({
    request,
  }) => {
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const sampleMark =
      '<span class="text-amber-200"> (the sample author that comes with the site)</span>';
    for (const section of new Set(items.map((item) => item.section.id))) {
      const html = await (await request.get(`/${section}`)).text();
      for (const item of items.filter((each) => each.section.id === section)) {
        const byline = new RegExp(
          [
            `<span>By ${literal(owner.name)}`,
            owner.sample ? literal(sampleMark) : "",
            ` · <time datetime="${item.published}">${literal(formatDay(item.published))}</time>`,
            ` · ${item.readingMinutes} min read</span>\\s*<a href="${item.path}"`,
          ].join(""),
        );
        expect({ item: item.path, byline: byline.test(html) }).toEqual({
          item: item.path,
          byline: true,
        });
      }
    }
  });

  test("an old #anchor link still opens the card, and the card links to its page", async ({
    page,
  }) => {
    await page.goto("/science#pressure-cooker");
    const card = page.locator("[data-card='pressure-cooker']");
    const link = card.getByRole("link", { name: /Open as a page/ });
    await expect(link).toBeVisible();
    await expect(card.getByText("Clausius–Clapeyron").first()).toBeVisible();
    await link.click();
    await expect(page).toHaveURL(/\/science\/pressure-cooker$/);
    await expect(
      page.getByRole("heading", { level: 1, name: "Why does a pressure cooker cook faster?" }),
    ).toBeVisible();

    await page.goto("/non-technical#time-management");
    const topic = page.locator("[data-card='time-management']");
    await expect(topic.getByRole("link", { name: /Open as a page/ })).toBeVisible();
  });

  test("breadcrumbs and previous/next links lead through the section", async ({ page }) => {
    // The discussion above the links changes height as it hydrates: the links are
    // clicked once it has settled, as a click during that change can land beside them.
    await openDiscussion(page, "/science/soap");
    const crumbs = page.getByRole("navigation", { name: "Breadcrumb" });
    await expect(crumbs.getByRole("link", { name: "Science in Everyday" })).toHaveAttribute(
      "href",
      "/science",
    );
    const more = page.getByRole("navigation", { name: "More in Science in Everyday" });
    await more.getByRole("link", { name: /Next/ }).click();
    await expect(page).toHaveURL(/\/science\/differential-gear$/);
    await liveDiscussion(page);
    await page
      .getByRole("navigation", { name: "More in Science in Everyday" })
      .getByRole("link", { name: /Previous/ })
      .click();
    await expect(page).toHaveURL(/\/science\/soap$/);
  });
});

// Items no other spec on the shared server reacts to or comments on.
const engaged = { story: "sita-faith", storyCard: /Sita/, post: "pressure-cooker" } as const;

/** An item page's discussion hydrates once seen. */
async function discussion(page: Page) {
  const section = page.getByRole("region", { name: /^Reactions/ });
  await section.scrollIntoViewIfNeeded();
  await expect(section.getByRole("button", { name: /^Like \d+$/ })).toBeVisible({
    timeout: 15_000,
  });
  return section;
}

const likes = async (scope: ReturnType<Page["locator"]>) =>
  Number(
    (await scope.getByRole("button", { name: /^Like \d+$/ }).textContent())?.match(/\d+/)?.[0],
  );

test.describe("an item's reactions and comments on its own page", () => {
  test("a reaction on the item's page is the card's, live, and both pages say so when served", async ({
    visitor,
    request,
  }) => {
    test.slow(); // two browsers at once
    const { story, storyCard } = engaged;
    const onItem = await visitor("Asha");
    const onList = await visitor("Ben");
    await onItem.goto(`/mythology/${story}`);
    const panel = await discussion(onItem);
    await onList.goto("/mythology");
    await onList.getByRole("button", { name: storyCard }).first().click();
    const card = onList.locator(`#${story}`);
    await expect(card.getByRole("button", { name: /^Like \d+$/ })).toBeVisible();
    const before = await likes(card);
    expect(await likes(panel)).toBe(before);

    await panel.getByRole("button", { name: /^Like \d+$/ }).click();
    await expect(panel.getByRole("button", { name: /^Like \d+$/ })).toHaveText(
      `Like ${before + 1}`,
    );
    await expect(card.getByRole("button", { name: /^Like \d+$/ })).toHaveText(`Like ${before + 1}`);

    // As served: the same line under the item's title and on its collapsed card.
    const summary = (html: string) =>
      /<span class="engagement-summary">([^<]*)<\/span>/.exec(html)?.[1];
    const itemHtml = await (await request.get(`/mythology/${story}`)).text();
    const listHtml = await (await request.get("/mythology")).text();
    const cardHtml = listHtml.slice(listHtml.indexOf(`data-card="${story}"`));
    expect(summary(itemHtml)).toMatch(/\d+ reactions?/);
    expect(summary(itemHtml)).toBe(summary(cardHtml));
  });

  test("without JavaScript the discussion says what reacting and commenting need, not a heading over nothing", async ({
    visitor,
  }) => {
    const { story, post } = engaged;
    const page = await visitor({ javaScriptEnabled: false });
    for (const [path, needs] of [
      [`/mythology/${story}`, "Reacting needs JavaScript, which is off in this browser."],
      [
        `/science/${post}`,
        "Reacting and commenting need JavaScript, which is off in this browser.",
      ],
    ] as const) {
      await page.goto(path);
      const section = page.getByRole("region", { name: /^Reactions/ });
      await expect(section.getByText(needs)).toBeVisible();
      await expect(section.getByRole("button", { name: /^Like/ })).toHaveCount(0);
    }
    // With JavaScript the buttons are there, and the sentence is not.
    const live = await visitor("Esha");
    await live.goto(`/science/${post}`);
    const panel = await discussion(live);
    await expect(panel.getByText(/need JavaScript/)).toBeHidden();
  });

  test("a comment on the list page reaches the item's page, and is served with it", async ({
    visitor,
    request,
  }, testInfo) => {
    test.slow();
    const { post } = engaged;
    const onItem = await visitor("Chitra");
    await onItem.goto(`/science/${post}`);
    const panel = await discussion(onItem);
    await expect(panel.getByRole("textbox", { name: "Write a comment" })).toBeVisible();
    await expect(panel.locator('[data-live="true"]')).toBeAttached();

    const writer = await visitor("Dev");
    await writer.goto(`/science#${post}`);
    // A reader's sentence: the spam defences publish it at once.
    const text = `I read this on the list and again on its own page, ${testInfo.project.name} ${uniqueWord()}`;
    const box = writer.locator(`#${post}`).getByRole("textbox", { name: "Write a comment" });
    await box.fill(text);
    await writer.locator(`#${post}`).getByRole("button", { name: "Post comment" }).click();

    await expect(panel.getByRole("listitem").filter({ hasText: text })).toBeVisible();
    // Without JavaScript, the item's page is served with it too.
    expect(await (await request.get(`/science/${post}`)).text()).toContain(text);
  });
});

test.describe("the list pages' JSON-LD", () => {
  for (const section of ["science", "mythology"]) {
    test(`/${section} describes each item as its own page does: image, dates and author`, async ({
      request,
      baseURL,
    }) => {
      const html = await (await request.get(`/${section}`)).text();
      const articles = jsonLd(html).filter((node) => node["@type"] === "Article");
      const expected = items.filter((item) => item.section.id === section);
      expect(articles).toHaveLength(expected.length);
      for (const item of expected) {
        const article = articles.find((node) => node.url === `${baseURL}${item.path}`);
        expect(article, item.path).toMatchObject({
          headline: item.title,
          datePublished: item.published,
          dateModified: lastChanged(item),
          image: [`${baseURL}${item.shareImage}`],
          interactionStatistic: { "@type": "InteractionCounter" },
        });
        const [author] = (article?.author ?? []) as Node[];
        expect(author, item.path).toMatchObject({
          "@type": "Person",
          name: owner.name,
          url: `${baseURL}/about`,
        });
      }
    });
  }
});
