import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeCommentCursor } from "../../contract/api.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  freshItem,
  json,
  startTestApp,
  type TestApp,
  type Visitor,
} from "./support/test-app.ts";

/*
 * A post's comments come a page at a time, oldest first, with an opaque cursor
 * (docs/decisions/015-comment-pages.md): at most 100 a page, 50 unless asked,
 * each comment once however the list changes between two pages, a writer's held
 * comments in their place for them alone, the first page from memory with its
 * ETag; and the item's page links to the next pages for readers without JavaScript.
 */

type Listed = { id: number; content: string; createdAt: string; mine: boolean };
type Page = { comments: Listed[]; next: string | null; total: number };

const fragment = (target: string, part: string, title?: string) =>
  `<ewe-fragment data-for="${target}" data-part="${part}"${title === undefined ? "" : ` data-title="${title}"`}></ewe-fragment>`;
/** The placeholders app/pages/science.astro and app/pages/[section]/[slug].astro leave. */
const listPage = `<!doctype html><html><head></head><body>
<details><summary>Ironing ${fragment("science:ironing", "summary", "Why does ironing work?")}</summary>
<div>${fragment("science:ironing", "comments")}</div></details></body></html>`;
const itemPage = `<!doctype html><html><head></head><body><h1>Why does ironing work?</h1>
<p>${fragment("science:ironing", "summary", "Why does ironing work?")}</p>
<section>${fragment("science:ironing", "comments")}</section></body></html>`;

/**
 * Published comments written straight into the table, a second apart, or
 * `sameTime` at a time sharing one timestamp (the order then falls back to the
 * id). Behind the server's back: its memory of a post already read does not
 * hear of them.
 */
async function seed(
  t: TestApp,
  postId: string,
  count: number,
  { sameTime = 1, from = 0 }: { sameTime?: number; from?: number } = {},
): Promise<void> {
  // A day ago, on a whole second: before anything written through the API.
  const base = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;
  const rows = Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const at = new Date(base + Math.floor(i / sameTime) * 1000).toISOString();
    return [postId, `Seeded comment ${i + 1}`, `Reader ${i % 7}`, `seed-visitor-${i % 7}`, at, at];
  });
  for (let i = 0; i < rows.length; i += 100) {
    const chunk = rows.slice(i, i + 100);
    await runSql(
      t,
      `insert into science_comments (post_id, content, user_name, visitor_id, created_at, updated_at) values ${chunk
        .map(() => "(?, ?, ?, ?, ?, ?)")
        .join(", ")}`,
      chunk.flat(),
    );
  }
}

/** The visitor credential a test browser's cookie carries. */
const credentialOf = (visitor: Visitor) =>
  decodeURIComponent(visitor.cookie?.split("=")[1] ?? "").split(".")[0] ?? "";

describe.each(backends)("pages of comments on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      clientFiles: { "science/index.html": listPage, "science/ironing/index.html": itemPage },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const url = (postId: string, query = "") => `/api/items/science/${postId}/comments${query}`;
  const read = async (path: string, viewer?: Visitor): Promise<Page> => {
    const response = viewer
      ? await viewer.get(path)
      : await t.app.inject({ method: "GET", url: path });
    expect(response.statusCode, response.body).toBe(200);
    return json(response);
  };
  /** Every page from the first, following `next`, as `viewer` sees them. */
  async function readAll(postId: string, limit?: number, viewer?: Visitor): Promise<Page[]> {
    const size = limit === undefined ? "" : `limit=${limit}`;
    const pages = [await read(url(postId, size ? `?${size}` : ""), viewer)];
    for (let page = pages[0]; page?.next; page = pages.at(-1)) {
      pages.push(await read(url(postId, `?after=${page.next}${size ? `&${size}` : ""}`), viewer));
    }
    return pages;
  }
  const contents = (pages: Page[]) => pages.flatMap((page) => page.comments.map((c) => c.content));

  it("pages through a long list oldest first, each comment once, 50 a page unless asked, at most 100", async () => {
    const postId = freshItem("science");
    // Three at a time share a timestamp: the order is the time, then the id.
    await seed(t, postId, 230, { sameTime: 3 });
    const expected = Array.from({ length: 230 }, (_, i) => `Seeded comment ${i + 1}`);

    const pages = await readAll(postId);
    expect(pages.map((page) => page.comments.length)).toEqual([50, 50, 50, 50, 30]);
    expect(contents(pages)).toEqual(expected);
    expect(pages.map((page) => page.total)).toEqual([230, 230, 230, 230, 230]);
    expect(pages.at(-1)?.next).toBeNull();
    expect(pages.slice(0, -1).every((page) => typeof page.next === "string")).toBe(true);

    const big = await readAll(postId, 100);
    expect(big.map((page) => page.comments.length)).toEqual([100, 100, 30]);
    expect(contents(big)).toEqual(expected);
    const small = await readAll(postId, 7);
    expect(small).toHaveLength(33);
    expect(contents(small)).toEqual(expected);

    // A page that ends exactly at the last comment says so.
    const exact = freshItem("science");
    await seed(t, exact, 100);
    const twoPages = await readAll(exact);
    expect(twoPages.map((page) => [page.comments.length, page.next === null])).toEqual([
      [50, false],
      [50, true],
    ]);
  });

  it("refuses a bad limit or cursor with 400, and the list stays as it was", async () => {
    const postId = freshItem("science");
    await seed(t, postId, 60);
    const first = await t.app.inject({ method: "GET", url: url(postId) });
    const etag = first.headers.etag as string;
    const { next } = json(first) as Page;
    const cursorOf = (text: string) => Buffer.from(text).toString("base64url");
    const bad = [
      "?limit=0",
      "?limit=101",
      "?limit=-1",
      "?limit=abc",
      "?limit=1.5",
      "?limit=",
      "?limit=1&limit=2",
      "?after=",
      "?after=not-a-cursor",
      "?after=%00%01",
      `?after=${next}x`,
      `?after=${next}==`,
      `?after=${next}&after=${next}`,
      `?after=${cursorOf("2026-01-01T00:00:00.000Z~0")}`,
      `?after=${cursorOf("2026-01-01T00:00:00.000Z~99999999999")}`,
      `?after=${cursorOf("2026-13-45T00:00:00.000Z~5")}`,
      `?after=${cursorOf("2026-01-01 00:00:00~5")}`,
      `?after=${"A".repeat(5000)}`,
      "?page=2",
    ];
    for (const query of bad) {
      const response = await t.visitor().get(url(postId, query));
      expect(response.statusCode, query).toBe(400);
      expect(json(response).error.code, query).toBe("validation_failed");
    }
    expect(json(await t.visitor().get(url(postId, "?limit=101"))).error.message).toContain(
      "limit is a whole number from 1 to 100.",
    );
    expect(json(await t.visitor().get(url(postId, "?after=nope"))).error.message).toContain(
      "This is not a cursor from a page of comments.",
    );
    const again = await t.app.inject({ method: "GET", url: url(postId) });
    expect(again.headers.etag).toBe(etag);
    expect(json(again)).toEqual(json(first));
    // A cursor is a position, not a comment: one made here is taken even for no comment.
    const anywhere = encodeCommentCursor({ createdAt: "2030-01-01T00:00:00.000Z", id: 1 });
    expect(await read(url(postId, `?after=${anywhere}`))).toEqual({
      comments: [],
      next: null,
      total: 60,
    });
  });

  it("never repeats or skips a comment when others are written or deleted between pages", async () => {
    const postId = freshItem("science");
    const writers = [t.visitor(), t.visitor()];
    const written: { id: number; content: string }[] = [];
    for (let i = 1; i <= 25; i += 1) {
      const writer = writers[i % 2] as Visitor;
      written.push(json(await writer.comment(postId, `Comment ${i}`, `Writer ${i % 2}`)).comment);
    }
    const page1 = await read(url(postId, "?limit=10"));
    expect(page1.comments.map((c) => c.content)).toEqual(
      written.slice(0, 10).map((c) => c.content),
    );

    // Meanwhile: three new comments, the last one read and the next one deleted.
    for (let i = 26; i <= 28; i += 1) {
      written.push(
        json(await (writers[0] as Visitor).comment(postId, `Comment ${i}`, "Writer 0")).comment,
      );
    }
    const [tenth, eleventh] = [written[9], written[10]];
    expect((await (writers[0] as Visitor).delete(`/api/comments/${tenth?.id}`)).statusCode).toBe(
      204,
    );
    expect((await (writers[1] as Visitor).delete(`/api/comments/${eleventh?.id}`)).statusCode).toBe(
      204,
    );

    const rest: Page[] = [];
    let next = page1.next;
    while (next) {
      const page = await read(url(postId, `?limit=10&after=${next}`));
      rest.push(page);
      next = page.next;
    }
    const seen = [...page1.comments, ...rest.flatMap((page) => page.comments)].map((c) => c.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(written.filter((c) => c.id !== eleventh?.id).map((c) => c.id));
    expect(rest.at(-1)?.total).toBe(26);
  });

  it("shows a held comment in its place to its writer alone, with their own flags on every page", async () => {
    const postId = freshItem("science");
    await seed(t, postId, 8);
    const writer = t.visitor();
    const other = t.visitor();
    const own = json(await writer.comment(postId, "Mine, published", "Wren")).comment;
    const held = json(await writer.comment(postId, "Mine, held for the owner", "Wren")).comment;
    await other.comment(postId, "Someone else's", "Otto");
    // Held as moderation holds it, behind the server's back: no one has read this post yet.
    await runSql(t, "update science_comments set status = 'pending' where id = ?", [held.id]);
    expect(credentialOf(writer)).not.toBe("");

    const writers = await readAll(postId, 4, writer);
    expect(writers.map((page) => page.comments.length)).toEqual([4, 4, 3]);
    expect(writers.every((page) => page.total === 11)).toBe(true);
    const last = writers.at(-1)?.comments ?? [];
    expect(last).toEqual([
      expect.objectContaining({ id: own.id, mine: true, awaitingApproval: false }),
      expect.objectContaining({ id: held.id, mine: true, awaitingApproval: true }),
      expect.objectContaining({ content: "Someone else's", mine: false }),
    ]);
    expect(writers.flatMap((page) => page.comments).filter((c) => c.mine)).toHaveLength(2);

    for (const viewer of [other, undefined]) {
      const pages = await readAll(postId, 4, viewer);
      expect(pages.every((page) => page.total === 10)).toBe(true);
      expect(contents(pages)).not.toContain("Mine, held for the owner");
      const mine = pages.flatMap((page) => page.comments).filter((c) => c.mine);
      expect(mine.map((c) => c.content)).toEqual(viewer ? ["Someone else's"] : []);
    }

    // On the first page too, when it reaches that far.
    const firstOfWriter = await read(url(postId, "?limit=20"), writer);
    expect(firstOfWriter.comments.map((c) => c.id).slice(-3)).toEqual([
      own.id,
      held.id,
      expect.any(Number),
    ]);
    expect(firstOfWriter).toMatchObject({ next: null, total: 11 });
    expect((await read(url(postId, "?limit=20"))).comments).toHaveLength(10);
  });

  it("serves the first page from memory with its ETag and 304, until a write; later pages from the database", async () => {
    const postId = freshItem("science");
    await seed(t, postId, 70);
    const first = await t.app.inject({ method: "GET", url: url(postId) });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]{20,}"$/);
    expect(
      (await t.app.inject({ method: "GET", url: url(postId), headers: { "if-none-match": etag } }))
        .statusCode,
    ).toBe(304);
    const { next } = json(first) as Page;

    // A comment written behind the server's back: the first page is the one in memory…
    await seed(t, postId, 1, { from: 70 });
    expect((await t.app.inject({ method: "GET", url: url(postId) })).headers.etag).toBe(etag);
    // …a later page is read from the database (the count still comes from memory).
    const second = await read(url(postId, `?after=${next}`));
    expect(second.comments).toHaveLength(21);
    expect(second.comments.at(-1)?.content).toBe("Seeded comment 71");

    // A later page has a validator too.
    const later = await t.app.inject({ method: "GET", url: url(postId, `?after=${next}`) });
    expect(
      (
        await t.app.inject({
          method: "GET",
          url: url(postId, `?after=${next}`),
          headers: { "if-none-match": later.headers.etag as string },
        })
      ).statusCode,
    ).toBe(304);

    // A write through the server is in the very next read of the first page.
    const writer = t.visitor();
    const { comment } = json(await writer.comment(postId, "Through the front door", "Fay"));
    const afterWrite = await t.app.inject({
      method: "GET",
      url: url(postId),
      headers: { "if-none-match": etag },
    });
    expect(afterWrite.statusCode).toBe(200);
    expect(json(afterWrite).total).toBe(72);
    // The first page at any size comes from memory, and follows edits and deletions.
    const whole = `?limit=100`;
    await writer.patch(`/api/comments/${comment.id}`, { content: "Edited", userName: "Fay" });
    expect((await read(url(postId, whole), writer)).comments.at(-1)).toMatchObject({
      id: comment.id,
      content: "Edited",
      mine: true,
    });
    expect((await read(url(postId, whole))).comments.at(-1)).toMatchObject({ mine: false });
    await writer.delete(`/api/comments/${comment.id}`);
    const afterDelete = await read(url(postId, whole));
    expect(afterDelete.comments.map((c) => c.id)).not.toContain(comment.id);
    expect(afterDelete.total).toBe(71);
  });

  it("puts the first page in the item's HTML and links to the next ones for readers without JavaScript", async () => {
    const postId = "ironing";
    await seed(t, postId, 120);
    const page = (path: string) => t.app.inject({ method: "GET", url: path });
    const commentsIn = (html: string) =>
      [...html.matchAll(/<div class="comment-text"><p>([^<]*)<\/p><\/div>/g)].map((m) => m[1]);
    const moreLink = (html: string) =>
      /<a href="([^"]+)"[^>]*>Show more comments<\/a>/.exec(html)?.[1]?.replace(/&amp;/g, "&");

    const item = await page("/science/ironing");
    expect(item.body).toContain("120 comments");
    expect(item.body).toMatch(/<section id="comments"/);
    expect(commentsIn(item.body)).toEqual(
      Array.from({ length: 50 }, (_, i) => `Seeded comment ${i + 1}`),
    );
    const second = moreLink(item.body) ?? "";
    expect(second).toMatch(/^\/science\/ironing\?comments=after-[\w-]+#comments$/);

    const list = await page("/science");
    expect(list.body).toContain("120 comments");
    expect(commentsIn(list.body)).toHaveLength(50);
    expect(moreLink(list.body)).toBe(second);

    const page2 = await page(second.replace(/#.*$/, ""));
    expect(page2.statusCode).toBe(200);
    expect(commentsIn(page2.body)).toEqual(
      Array.from({ length: 50 }, (_, i) => `Seeded comment ${i + 51}`),
    );
    expect(page2.body).toContain('<a href="/science/ironing#comments"');
    expect(page2.body).toContain("120 comments");
    const page3 = await page((moreLink(page2.body) ?? "").replace(/#.*$/, ""));
    expect(commentsIn(page3.body)).toEqual(
      Array.from({ length: 20 }, (_, i) => `Seeded comment ${i + 101}`),
    );
    expect(moreLink(page3.body)).toBeUndefined();
    // The first page is still the one kept, with its validator.
    expect((await page("/science/ironing")).headers.etag).toBe(item.headers.etag);

    for (const broken of ["?comments=after-nope", "?comments=all", "?comments=after-&comments=x"]) {
      const response = await page(`/science/ironing${broken}`);
      expect(response.statusCode, broken).toBe(400);
      expect(response.headers["content-type"]).toMatch(/^text\/html/);
      expect(response.body).toContain("That link to more comments does not lead anywhere.");
      expect(commentsIn(response.body)).toHaveLength(50);
    }
  });
});
