import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CommentsResponse,
  commentResponseSchema,
  commentsResponseSchema,
  encodeCommentCursor,
  errorResponseSchema,
} from "../../contract/api.ts";
import { threadOrder } from "../../contract/threads.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  freshItem,
  json,
  seen,
  startTestApp,
  type TestApp,
  type Visitor,
} from "./support/test-app.ts";

/*
 * A post's discussion opens with its first threads and its latest, the middle
 * folded, and the middle comes a stretch at a time between two opaque cursors
 * (docs/decisions/015-comment-pages.md,
 * docs/decisions/032-long-discussions-open-at-both-ends.md): at most 100
 * threads an answer, 50 unless asked (20 first and 30 latest), each comment
 * once however the list changes between two reads, a writer's held comments
 * in their place for them alone, the opening from memory with its ETag; and
 * the item's page links to the middle for readers without JavaScript.
 */

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
  const read = async (path: string, viewer?: Visitor): Promise<CommentsResponse> => {
    const response = viewer
      ? await viewer.get(path)
      : await t.app.inject({ method: "GET", url: path });
    expect(response.statusCode, response.body).toBe(200);
    const page = json(response, commentsResponseSchema);
    if (/[?&](after|before)=/.test(path)) return page;
    // The opening as the reader's page shows it, with what they own applied.
    const { comments, total } = seen(response);
    return { ...page, comments, total };
  };
  /**
   * The opening and every stretch of its fold, following `next` and `before`,
   * as `viewer` sees them.
   */
  async function readAll(
    postId: string,
    limit?: number,
    viewer?: Visitor,
  ): Promise<CommentsResponse[]> {
    const size = limit === undefined ? "" : `&limit=${limit}`;
    const pages = [await read(url(postId, size ? `?${size.slice(1)}` : ""), viewer)];
    for (let page = pages[0]; page?.next; page = pages.at(-1)) {
      const before = page.before ? `&before=${page.before}` : "";
      pages.push(await read(url(postId, `?after=${page.next}${before}${size}`), viewer));
    }
    return pages;
  }
  const contents = (pages: CommentsResponse[]) =>
    pages.flatMap((page) => page.comments.map((c) => c.content));
  /** What a reader has once every stretch is unfolded: each comment once, in the list's order. */
  const unfolded = (pages: CommentsResponse[]) =>
    threadOrder([
      ...new Map(pages.flatMap((page) => page.comments).map((c) => [c.id, c])).values(),
    ]).map((c) => c.content);
  const seeded = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => `Seeded comment ${from + i}`);

  it("opens a long list with its first 20 and latest 30 threads, the middle between them a stretch at a time, each once", async () => {
    const postId = freshItem("science");
    // Three at a time share a timestamp: the order is the time, then the id.
    await seed(t, postId, 230, { sameTime: 3 });
    const expected = seeded(1, 230);

    const pages = await readAll(postId);
    expect(contents(pages.slice(0, 1))).toEqual([...seeded(1, 20), ...seeded(201, 230)]);
    expect(pages.map((page) => page.comments.length)).toEqual([50, 50, 50, 50, 30]);
    expect(contents(pages.slice(1))).toEqual(seeded(21, 200));
    expect(unfolded(pages)).toEqual(expected);
    expect(pages.map((page) => page.total)).toEqual([230, 230, 230, 230, 230]);
    // Every stretch ends before the latest, as the opening said.
    expect(new Set(pages.map((page) => page.before)).size).toBe(1);
    expect(pages[0]?.before).toEqual(expect.any(String));
    expect(pages.at(-1)?.next).toBeNull();

    const big = await readAll(postId, 100);
    expect(contents(big.slice(0, 1))).toEqual([...seeded(1, 40), ...seeded(171, 230)]);
    expect(big.map((page) => page.comments.length)).toEqual([100, 100, 30]);
    expect(unfolded(big)).toEqual(expected);
    const small = await readAll(postId, 7);
    expect(contents(small.slice(0, 1))).toEqual([...seeded(1, 2), ...seeded(226, 230)]);
    expect(small).toHaveLength(33);
    expect(unfolded(small)).toEqual(expected);
    // One thread: the first; two: the first and the latest.
    expect(contents(await readAll(postId, 1)).slice(0, 2)).toEqual(seeded(1, 2));
    expect(contents([await read(url(postId, "?limit=2"))])).toEqual(
      seeded(1, 1).concat(seeded(230, 230)),
    );

    // A list that fits is shown whole, and says nothing is folded.
    const exact = freshItem("science");
    await seed(t, exact, 50);
    expect(await readAll(exact)).toEqual([
      expect.objectContaining({ next: null, before: null, total: 50 }),
    ]);
    await seed(t, freshItem("science"), 0);
    const oneOver = freshItem("science");
    await seed(t, oneOver, 51);
    const opening = await read(url(oneOver));
    expect(opening.comments).toHaveLength(50);
    expect(contents([opening])).not.toContain("Seeded comment 21");
    expect(contents((await readAll(oneOver)).slice(1))).toEqual(["Seeded comment 21"]);
  });

  it("opens a discussion of 83 with its latest comment and a new reply to an old thread, in the API and in the page", async () => {
    const postId = freshItem("science");
    await seed(t, postId, 82);
    const writer = t.visitor();
    const answerer = t.visitor();
    const [early] = (await read(url(postId))).comments;
    const old = (await readAll(postId))
      .flatMap((page) => page.comments)
      .find((c) => c.content === "Seeded comment 30");
    expect(old).toBeDefined();
    const { comment: latest } = json(
      await writer.comment(postId, "Written a moment ago", "Wren"),
      commentResponseSchema,
    );
    const { comment: reply } = json(
      await answerer.reply(postId, old?.id as number, "Answering an old question", "Otto"),
      commentResponseSchema,
    );
    const opening = await read(url(postId));
    expect(opening.total).toBe(84);
    const shown = opening.comments.map((c) => c.content);
    expect(shown.slice(0, 20)).toEqual(seeded(1, 20));
    // Below the fold: the thread the reply made active, in its place first, then the latest.
    expect(shown.slice(20)).toEqual([
      "Seeded comment 30",
      "Answering an old question",
      ...seeded(55, 82),
      "Written a moment ago",
    ]);
    expect(opening.comments.find((c) => c.id === reply.id)?.parentId).toBe(old?.id);
    expect(early?.content).toBe("Seeded comment 1");
    expect(latest.id).toBeGreaterThan(0);
    // The middle holds the rest, the active thread again in its place.
    const all = await readAll(postId);
    expect(unfolded(all)).toEqual([
      ...seeded(1, 30),
      "Answering an old question",
      ...seeded(31, 82),
      "Written a moment ago",
    ]);
  });

  it("refuses a bad limit or cursor with 400, and the list stays as it was", async () => {
    const postId = freshItem("science");
    await seed(t, postId, 60);
    const first = await t.app.inject({ method: "GET", url: url(postId) });
    const etag = first.headers.etag as string;
    const { next } = json(first, commentsResponseSchema);
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
      `?before=${next}x`,
      `?after=${next}&before=nope`,
      `?after=${next}&before=${next}&before=${next}`,
      "?page=2",
    ];
    for (const query of bad) {
      const response = await t.visitor().get(url(postId, query));
      expect(response.statusCode, query).toBe(400);
      expect(json(response, errorResponseSchema).error.code, query).toBe("validation_failed");
    }
    expect(
      json(await t.visitor().get(url(postId, "?limit=101")), errorResponseSchema).error.message,
    ).toContain("limit is a whole number from 1 to 100.");
    expect(
      json(await t.visitor().get(url(postId, "?after=nope")), errorResponseSchema).error.message,
    ).toContain("This is not a cursor from a page of comments.");
    const again = await t.app.inject({ method: "GET", url: url(postId) });
    expect(again.headers.etag).toBe(etag);
    expect(json(again)).toEqual(json(first));
    // A cursor is a position, not a comment: one made here is taken even for no comment.
    const anywhere = encodeCommentCursor({ createdAt: "2030-01-01T00:00:00.000Z", id: 1 });
    expect(await read(url(postId, `?after=${anywhere}`))).toEqual({
      comments: [],
      next: null,
      before: null,
      total: 60,
    });
    expect(await read(url(postId, `?after=${next}&before=${anywhere}&limit=3`))).toMatchObject({
      comments: [{ content: "Seeded comment 21" }, {}, { content: "Seeded comment 23" }],
      next: expect.any(String),
      before: anywhere,
    });
  });

  it("never repeats or skips a comment when others are written or deleted between reads of the fold", async () => {
    const postId = freshItem("science");
    const writers = [t.visitor(), t.visitor()];
    const written: { id: number; content: string }[] = [];
    for (let i = 1; i <= 25; i += 1) {
      const writer = writers[i % 2] as Visitor;
      written.push(
        json(await writer.comment(postId, `Comment ${i}`, `Writer ${i % 2}`), commentResponseSchema)
          .comment,
      );
    }
    // Ten threads: the first 4 and the latest 6.
    const opening = await read(url(postId, "?limit=10"));
    expect(opening.comments.map((c) => c.content)).toEqual(
      [...written.slice(0, 4), ...written.slice(19)].map((c) => c.content),
    );

    // Meanwhile: three new comments, the last of the beginning and the first folded one deleted.
    for (let i = 26; i <= 28; i += 1) {
      written.push(
        json(
          await (writers[0] as Visitor).comment(postId, `Comment ${i}`, "Writer 0"),
          commentResponseSchema,
        ).comment,
      );
    }
    const [fourth, fifth] = [written[3], written[4]];
    expect((await (writers[0] as Visitor).delete(`/api/comments/${fourth?.id}`)).statusCode).toBe(
      204,
    );
    expect((await (writers[1] as Visitor).delete(`/api/comments/${fifth?.id}`)).statusCode).toBe(
      204,
    );

    const rest: CommentsResponse[] = [];
    let next = opening.next;
    while (next) {
      const page = await read(url(postId, `?limit=10&after=${next}&before=${opening.before}`));
      rest.push(page);
      next = page.next;
    }
    expect(rest.map((page) => page.comments.length)).toEqual([10, 4]);
    const seen = [...opening.comments, ...rest.flatMap((page) => page.comments)].map((c) => c.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort((a, b) => a - b)).toEqual(
      written
        .slice(0, 25)
        .filter((c) => c.id !== fifth?.id)
        .map((c) => c.id),
    );
    expect(rest.at(-1)?.total).toBe(26);
  });

  it("shows a held comment in its place to its writer alone, with their own flags on every page", async () => {
    const postId = freshItem("science");
    await seed(t, postId, 8);
    const writer = t.visitor();
    const other = t.visitor();
    const own = json(
      await writer.comment(postId, "Mine, published", "Wren"),
      commentResponseSchema,
    ).comment;
    const held = json(
      await writer.comment(postId, "Mine, held for the owner", "Wren"),
      commentResponseSchema,
    ).comment;
    await other.comment(postId, "Someone else's", "Otto");
    // Held as moderation holds it, behind the server's back: no one has read this post yet.
    await runSql(t, "update science_comments set status = 'pending' where id = ?", [held.id]);
    expect(credentialOf(writer)).not.toBe("");

    // Four threads: the first, and the latest three, everyone's; the held one
    // in its place among them for its writer.
    const writers = await readAll(postId, 4, writer);
    expect(writers.every((page) => page.total === 11)).toBe(true);
    expect(writers[0]?.comments.slice(1)).toEqual([
      expect.objectContaining({ content: "Seeded comment 8", mine: false }),
      expect.objectContaining({ id: own.id, mine: true, awaitingApproval: false }),
      expect.objectContaining({ id: held.id, mine: true, awaitingApproval: true }),
      expect.objectContaining({ content: "Someone else's", mine: false }),
    ]);
    expect(unfolded(writers)).toHaveLength(11);
    const mineOnce = new Map(
      writers
        .flatMap((page) => page.comments)
        .filter((c) => c.mine)
        .map((c) => [c.id, c]),
    );
    expect(mineOnce.size).toBe(2);

    for (const viewer of [other, undefined]) {
      const pages = await readAll(postId, 4, viewer);
      expect(pages.every((page) => page.total === 10)).toBe(true);
      expect(contents(pages)).not.toContain("Mine, held for the owner");
      expect(pages[0]?.comments.map((c) => c.content).slice(1)).toEqual([
        "Seeded comment 8",
        "Mine, published",
        "Someone else's",
      ]);
      const mine = pages.flatMap((page) => page.comments).filter((c) => c.mine);
      expect(mine.map((c) => c.content)).toEqual(viewer ? ["Someone else's"] : []);
    }

    // All of them when they fit.
    const firstOfWriter = await read(url(postId, "?limit=20"), writer);
    expect(firstOfWriter.comments.map((c) => c.id).slice(-3)).toEqual([
      own.id,
      held.id,
      expect.any(Number),
    ]);
    expect(firstOfWriter).toMatchObject({ next: null, before: null, total: 11 });
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
    const { next } = json(first, commentsResponseSchema);

    // A comment written behind the server's back: the opening is the one in memory…
    await seed(t, postId, 1, { from: 70 });
    expect((await t.app.inject({ method: "GET", url: url(postId) })).headers.etag).toBe(etag);
    // …the threads after a place are read from the database (the count still comes from memory).
    const second = await read(url(postId, `?after=${next}&limit=100`));
    expect(second.comments).toHaveLength(51);
    expect(second.comments.at(-1)?.content).toBe("Seeded comment 71");
    expect(second.total).toBe(70);

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
    const { comment } = json(
      await writer.comment(postId, "Through the front door", "Fay"),
      commentResponseSchema,
    );
    const afterWrite = await t.app.inject({
      method: "GET",
      url: url(postId),
      headers: { "if-none-match": etag },
    });
    expect(afterWrite.statusCode).toBe(200);
    expect(json(afterWrite, commentsResponseSchema).total).toBe(72);
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

  it("serves an item page of 83 comments with the first, the latest and a link to the middle, for readers without JavaScript", async () => {
    const postId = "ironing";
    await seed(t, postId, 83);
    const page = (path: string) => t.app.inject({ method: "GET", url: path });
    const commentsIn = (html: string) =>
      [...html.matchAll(/<div class="comment-text"><p>([^<]*)<\/p><\/div>/g)].map((m) => m[1]);
    const moreLink = (html: string) =>
      /<a href="([^"]+)"[^>]*>Show more comments<\/a>/.exec(html)?.[1]?.replace(/&amp;/g, "&");

    const before = await page("/science/ironing");
    expect(commentsIn(before.body)).toEqual([...seeded(1, 20), ...seeded(54, 83)]);
    expect(before.body).toContain("33 comments in between");

    // A comment written a moment ago is there on arrival, at the end.
    await t.visitor().comment(postId, "Written a moment ago", "Wren");
    const item = await page("/science/ironing");
    expect(item.body).toContain("84 comments");
    expect(item.body).toMatch(/<section id="comments"/);
    expect(commentsIn(item.body)).toEqual([
      ...seeded(1, 20),
      ...seeded(55, 83),
      "Written a moment ago",
    ]);
    expect(item.body).toContain("34 comments in between");
    const middle = moreLink(item.body) ?? "";
    expect(middle).toMatch(/^\/science\/ironing\?comments=after-[\w-]+\.before-[\w-]+#comments$/);
    // The link sits between the beginning and the latest.
    const at = (text: string) => item.body.indexOf(text);
    expect(at("Seeded comment 20<")).toBeLessThan(at("Show more comments"));
    expect(at("Show more comments")).toBeLessThan(at("Seeded comment 55<"));

    const list = await page("/science");
    expect(list.body).toContain("84 comments");
    expect(commentsIn(list.body)).toHaveLength(50);
    expect(moreLink(list.body)).toBe(middle);

    const unfolded = await page(middle.replace(/#.*$/, ""));
    expect(unfolded.statusCode).toBe(200);
    expect(commentsIn(unfolded.body)).toEqual(seeded(21, 54));
    expect(moreLink(unfolded.body)).toBeUndefined();
    expect(unfolded.body).toContain('<a href="/science/ironing#comments"');
    expect(unfolded.body).toContain("Back to the latest comments");
    expect(unfolded.body).toContain("84 comments");
    // The opening is still the one kept, with its validator.
    expect((await page("/science/ironing")).headers.etag).toBe(item.headers.etag);

    for (const broken of [
      "?comments=after-nope",
      "?comments=all",
      "?comments=after-&comments=x",
      `${middle.replace(/#.*$/, "").replace(/^[^?]*/, "")}x.before-`,
      `${middle
        .replace(/#.*$/, "")
        .replace(/^[^?]*/, "")
        .replace(".before-", ".before-x")}`,
    ]) {
      const response = await page(`/science/ironing${broken}`);
      expect(response.statusCode, broken).toBe(400);
      expect(response.headers["content-type"]).toMatch(/^text\/html/);
      expect(response.body).toContain("That link to more comments does not lead anywhere.");
      expect(commentsIn(response.body)).toHaveLength(50);
    }
  });
});
