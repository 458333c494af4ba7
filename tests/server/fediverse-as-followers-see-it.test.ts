import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { renderMarkdown } from "../../content/markdown.ts";
import { runSql } from "./support/sql.ts";
import { backends, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The site as someone on Mastodon sees it: an item's text once their server
 * has sanitized it, and the account's posts and followers, counted from its
 * outbox and its followers' collection, on both databases.
 */

const activityJson = "application/activity+json";

/** A story with a table, as the site's Markdown writes it (a box that scrolls, then the table). */
const garuda = `${siteUrl}/mythology/garuda`;
const garudaHtml = renderMarkdown(
  `Four moments carry most of the story's weight.

| Moment | What happened | The habit at work |
|---|---|---|
| The broken egg | Vinata's impatience produced Aruna half-formed. | Do not break the egg early. |
| The vessel | He carried the amrita and never tasted it. | Handle what you are trusted with. |

The last row is the one most worth rereading.
`,
  0,
);

const feed = {
  items: [
    {
      id: garuda,
      url: garuda,
      title: "Garuda",
      summary: "Four moments, four habits.",
      content_html: garudaHtml,
      image: `${siteUrl}/og/mythology/garuda.png`,
      // The section's name, as the build's feed gives each item's.
      tags: ["Mythological Inspirations"],
      date_published: "2026-05-01T00:00:00.000Z",
    },
    // And 24 science posts before it, one a day.
    ...Array.from({ length: 24 }, (_, at) => ({
      id: `${siteUrl}/science/post-${at}`,
      url: `${siteUrl}/science/post-${at}`,
      title: `Post ${at}`,
      content_html: `<p>Post ${at}.</p>`,
      date_published: `2026-04-${String(30 - at).padStart(2, "0")}T00:00:00.000Z`,
    })),
  ],
};

/**
 * The text Mastodon shows of HTML from elsewhere (its sanitizer, `MASTODON_STRICT`):
 * paragraphs, line breaks, links, emphasis, lists, quotes and code kept, a heading
 * made a paragraph, any other element unwrapped, its text run on; then as a
 * browser shows it, one line a paragraph or line break, white space as one space.
 */
function asMastodonShowsIt(html: string): string[] {
  const kept = /^(p|br|a|span|strong|b|em|i|u|s|del|code|pre|blockquote|ul|ol|li)$/;
  const sanitized = html
    .replace(/<(\/?)h[1-6]\b[^>]*>/g, "<$1p>")
    .replace(/<\/?([a-z0-9]+)\b[^>]*>/g, (tag, name: string) => (kept.test(name) ? tag : ""));
  return sanitized
    .split(/<br>|<\/?(?:p|li|ul|ol|blockquote|pre)>/)
    .map((line) =>
      line
        .replace(/<[^>]*>/g, "")
        .replace(/\s+/g, " ")
        .trim(),
    )
    .filter((line) => line !== "");
}

describe.each(backends)(
  "the site's items as its followers' servers show them, on %s",
  (backend) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(backend, {
        env: { FEDIVERSE_HANDLE: "arjun" },
        clientFiles: { "feed.json": JSON.stringify(feed) },
      });
    });
    afterAll(async () => {
      await t?.close();
    });

    const get = async (url: string) =>
      (await t.app.inject({ method: "GET", url, headers: { accept: activityJson } })).json();

    // The first request loads Fedify: seconds, or a minute on a machine busy with other tests.
    it("gives a table's rows as lines that keep each cell with its column's heading", {
      timeout: 240_000,
    }, async () => {
      const article = z
        .object({ content: z.string() })
        .parse(await get("/fediverse/items/mythology/garuda"));
      expect(asMastodonShowsIt(article.content)).toEqual([
        "Four moments carry most of the story's weight.",
        "The broken egg",
        "What happened: Vinata's impatience produced Aruna half-formed.",
        "The habit at work: Do not break the egg early.",
        "The vessel",
        "What happened: He carried the amrita and never tasted it.",
        "The habit at work: Handle what you are trusted with.",
        "The last row is the one most worth rereading.",
        garuda,
      ]);
    });

    it("gives an item's language where Mastodon reads it, and its title and summary as Mastodon shows them", async () => {
      const article = await get("/fediverse/items/mythology/garuda");
      // Mastodon shows an Article as its title, its summary and its page's address, and takes
      // its language from contentMap, nameMap or summaryMap: without one, the post has none.
      expect(article).toMatchObject({
        name: "Garuda",
        nameMap: { en: "Garuda" },
        summary: "Four moments, four habits.",
        url: garuda,
        attributedTo: `${siteUrl}/fediverse/actors/site`,
      });
    });

    it("describes an item's share image as its page does", async () => {
      expect(await get("/fediverse/items/mythology/garuda")).toMatchObject({
        image: {
          type: "Image",
          url: `${siteUrl}/og/mythology/garuda.png`,
          name: "Mythological Inspirations, Garuda",
        },
      });
    });

    it("counts its items in an outbox of pages of ten, newest first, whatever their number", async () => {
      const outbox = "/fediverse/actors/site/outbox";
      const collection = z
        .object({ type: z.literal("OrderedCollection"), totalItems: z.number(), first: z.string() })
        .parse(await get(outbox));
      expect(collection.totalItems).toBe(25);
      // The collection holds the count and where its pages start, none of the items.
      expect(await get(outbox)).not.toHaveProperty("orderedItems");
      const pageSchema = z.object({
        type: z.literal("OrderedCollectionPage"),
        orderedItems: z.array(
          z.object({ type: z.literal("Create"), object: z.object({ name: z.string() }) }),
        ),
        next: z.string().optional(),
      });
      const names: string[] = [];
      const sizes: number[] = [];
      for (let page: string | undefined = collection.first; page; ) {
        const read = pageSchema.parse(await get(page.replace(siteUrl, "")));
        names.push(...read.orderedItems.map((create) => create.object.name));
        sizes.push(read.orderedItems.length);
        page = read.next;
      }
      expect(sizes).toEqual([10, 10, 5]);
      expect(names).toEqual(["Garuda", ...Array.from({ length: 24 }, (_, at) => `Post ${at}`)]);
      // A page that is none answers 404, never a 500.
      for (const cursor of ["30", "5", "-10", "x", "1e1", "9".repeat(40)]) {
        const asked = await t.app.inject({
          method: "GET",
          url: `${outbox}?cursor=${cursor}`,
          headers: { accept: activityJson },
        });
        expect(asked.statusCode, cursor).toBe(404);
      }
    });

    it("gives the number of its followers, and never who they are", async () => {
      for (const name of ["asha", "bo"]) {
        const actor = `https://social.example/users/${name}`;
        await runSql(
          t,
          "insert into fediverse_followers (actor_id, handle, inbox, shared_inbox, follow_id, created_at) values (?, ?, ?, ?, ?, ?)",
          [
            actor,
            `@${name}@social.example`,
            `${actor}/inbox`,
            null,
            `${actor}#follow`,
            new Date().toISOString(),
          ],
        );
      }
      const followers = await t.app.inject({
        method: "GET",
        url: "/fediverse/actors/site/followers",
        headers: { accept: activityJson },
      });
      expect(followers.statusCode).toBe(200);
      expect(followers.json()).toMatchObject({ type: "OrderedCollection", totalItems: 2 });
      expect(followers.body).not.toContain("social.example");
    });
  },
);
