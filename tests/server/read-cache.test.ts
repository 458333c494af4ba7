import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  commentResponseSchema,
  commentsResponseSchema,
  reactionsResponseSchema,
} from "../../contract/api.ts";
import { preferredEncoding } from "../../server/lib/accept-encoding.ts";
import { EventStream } from "../support/event-stream.ts";
import { waitFor } from "../support/wait-for.ts";
import { backends, freshItem, json, seen, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * Item reads come from memory (docs/architecture.md, "Reads"): the same answer
 * for every reader without a cookie, a strong ETag, 304 to a client that has
 * it, and nothing stale once a write has committed.
 */
describe.each(backends)("cached item reads on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: "GET", url, headers });
  /** The app on a socket, for the tests that need one (the first to ask opens it). */
  let origin: Promise<string> | undefined;
  const listening = () => {
    origin ??= t.app.listen({ host: "127.0.0.1", port: 0 });
    return origin;
  };

  it("answers with a strong ETag and 304 to If-None-Match, for counts and comments", async () => {
    const postId = freshItem("science");
    await t.visitor().comment(postId, "first");
    for (const url of [
      `/api/items/science/${postId}/reactions`,
      `/api/items/science/${postId}/comments`,
    ]) {
      const first = await get(url);
      expect(first.statusCode).toBe(200);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[\w-]{20,}"$/);
      expect(first.headers["cache-control"]).toBe("no-cache");
      const again = await get(url, { "if-none-match": etag });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe("");
      expect((await get(url, { "if-none-match": '"other"' })).statusCode).toBe(200);
    }
  });

  it("sends a long list compressed to a client that accepts it, and the same list", async () => {
    const postId = freshItem("science");
    const writer = t.visitor();
    for (let i = 0; i < 12; i += 1) {
      await writer.comment(postId, `Comment ${i}: steam and heat relax the fibres of the cloth.`);
    }
    const url = `/api/items/science/${postId}/comments`;
    const plain = await get(url);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toBe("accept-encoding, cookie");

    const gzip = await get(url, { "accept-encoding": "gzip, deflate" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gzip.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(plain.body);
    expect(gzip.headers.etag).toBe(plain.headers.etag);

    const br = await get(url, { "accept-encoding": "gzip, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);

    const refused = await get(url, { "accept-encoding": "br;q=0, gzip;q=0" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(refused.body).toBe(plain.body);

    // One visitor's answer is the shared bytes and their own, joined, in gzip
    // too (brotli's cannot be joined), or as they are.
    const own = await writer.get(url);
    expect(own.headers["content-encoding"]).toBeUndefined();
    expect(seen(own).comments.filter((c) => c.mine)).toHaveLength(12);
    for (const accepts of ["gzip", "gzip, deflate, br, zstd"]) {
      const zipped = await writer.request("GET", url, undefined, { "accept-encoding": accepts });
      expect(zipped.headers["content-encoding"]).toBe("gzip");
      expect(zipped.rawPayload.length).toBeLessThan(own.rawPayload.length / 2);
      expect(gunzipSync(zipped.rawPayload).toString()).toBe(own.body);
      expect(zipped.headers.etag).toBe(own.headers.etag);
    }
    const brOnly = await writer.request("GET", url, undefined, { "accept-encoding": "br" });
    expect(brOnly.headers["content-encoding"]).toBeUndefined();
    expect(brOnly.body).toBe(own.body);

    // The joined answer, kept for the reader's next read, follows a change of the shared part.
    await t.visitor().comment(postId, "Another reader: the iron's steam does half the work.");
    const after = await writer.request("GET", url, undefined, { "accept-encoding": "gzip" });
    const text = gunzipSync(after.rawPayload).toString();
    expect(text).toContain("the iron's steam does half the work");
    expect(text).toBe((await writer.get(url)).body);
    expect(after.headers.etag).not.toBe(own.headers.etag);
  });

  it("over a socket, answers a read without a cookie again as before, never after a write, nor to a reader with one", async () => {
    const postId = freshItem("science");
    const origin = await listening();
    const url = `${origin}/api/items/science/${postId}/comments`;
    const read = async (headers: Record<string, string> = {}) => {
      const response = await fetch(url, { headers: { "accept-encoding": "br", ...headers } });
      return { etag: response.headers.get("etag"), body: await response.text() };
    };
    const writer = t.visitor();
    await writer.comment(postId, "First: steam carries the heat into the cloth.");
    const reads = [await read(), await read(), await read()];
    expect(new Set(reads.map((r) => r.body)).size).toBe(1);
    expect(new Set(reads.map((r) => r.etag)).size).toBe(1);
    await writer.comment(postId, "Second: the weight of the iron presses the fibres flat.");
    const after = await read();
    expect(after.body).toContain("the weight of the iron");
    expect(after.etag).not.toBe(reads[0]?.etag);
    expect((await read()).body).toBe(after.body);
    // A reader with a cookie is answered with their own flags, not the shared answer.
    const own = await read({ cookie: String(writer.cookie) });
    expect(own.etag).not.toBe(after.etag);
    expect(JSON.parse(own.body).own.ids).toHaveLength(2);
  });

  it("a write on the same instance is in the very next read, and changes the ETag", async () => {
    const postId = freshItem("science");
    const url = `/api/items/science/${postId}/comments`;
    const before = await get(url);
    expect(json(before, commentsResponseSchema).comments).toEqual([]);
    const writer = t.visitor();
    const { comment } = json(await writer.comment(postId, "fresh"), commentResponseSchema);
    const after = await get(url, { "if-none-match": before.headers.etag as string });
    expect(after.statusCode).toBe(200);
    expect(json(after, commentsResponseSchema).comments.map((c) => c.id)).toEqual([comment.id]);

    await writer.patch(`/api/comments/${comment.id}`, { content: "edited", userName: "Alex" });
    expect(json(await get(url), commentsResponseSchema).comments[0]?.content).toBe("edited");
    await writer.delete(`/api/comments/${comment.id}`);
    expect(json(await get(url), commentsResponseSchema).comments).toEqual([]);

    const storyId = freshItem("mythology");
    const reactionsUrl = `/api/items/mythology/${storyId}/reactions`;
    expect(json(await get(reactionsUrl), reactionsResponseSchema).counts.love).toBe(0);
    await writer.react("mythology", storyId, "love");
    expect(json(await get(reactionsUrl), reactionsResponseSchema).counts.love).toBe(1);
    await writer.delete(`/api/items/mythology/${storyId}/reactions/love`);
    expect(json(await get(reactionsUrl), reactionsResponseSchema).counts.love).toBe(0);
  });

  it("keeps each visitor's own flags while everyone else shares one answer", async () => {
    const postId = freshItem("science");
    const author = t.visitor();
    const other = t.visitor();
    const { comment } = json(await author.comment(postId, "mine"), commentResponseSchema);
    await author.react("science", postId, "idea");
    await other.react("science", postId, "like");

    const anonymous = await get(`/api/items/science/${postId}/comments`);
    expect(seen(anonymous).comments[0]).toMatchObject({ id: comment.id, mine: false });
    const authors = await author.get(`/api/items/science/${postId}/comments`);
    expect(seen(authors).comments[0]).toMatchObject({ id: comment.id, mine: true });
    expect(authors.headers.etag).not.toBe(anonymous.headers.etag);
    expect(seen(await other.get(`/api/items/science/${postId}/comments`)).comments[0]?.mine).toBe(
      false,
    );

    const counts = { like: 1, love: 0, dislike: 0, idea: 1 };
    expect(json(await get(`/api/items/science/${postId}/reactions`))).toEqual({
      counts,
      mine: [],
    });
    expect(json(await author.get(`/api/items/science/${postId}/reactions`))).toEqual({
      counts,
      mine: ["idea"],
    });
    expect(json(await other.get(`/api/items/science/${postId}/reactions`))).toEqual({
      counts,
      mine: ["like"],
    });
  });

  it("a read answered while an event is delivered never shows less than the event", async () => {
    const postId = freshItem("science");
    const url = await listening();
    const stream = new EventStream(url, `science:${postId}`);
    try {
      await stream.ready();
      await get(`/api/items/science/${postId}/comments`); // warm the cache
      await t.visitor().comment(postId, "seen by the stream");
      await stream.next("comment");
      // A browser reloads on the event: the reload must include it.
      expect(
        json(await get(`/api/items/science/${postId}/comments`), commentsResponseSchema).comments,
      ).toHaveLength(1);
    } finally {
      stream.close();
    }
  });
});

describe("cached item reads across two instances on PostgreSQL", () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp("postgres");
    b = await startTestApp("postgres", { databaseUrl: a.databaseUrl });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("a write on one instance replaces what the other had cached, as soon as it hears of it", async () => {
    const postId = freshItem("science");
    const url = `/api/items/science/${postId}/comments`;
    const readB = async () =>
      json(await b.app.inject({ method: "GET", url }), commentsResponseSchema).comments;
    expect(await readB()).toEqual([]); // now cached on B

    await a.visitor().comment(postId, "written on A");
    await waitFor(async () => (await readB()).length === 1, {
      timeoutMs: 5_000,
      what: "B reads A's comment",
    });
    expect((await readB())[0]?.content).toBe("written on A");

    await b.visitor().react("science", postId, "love");
    await waitFor(
      async () =>
        json(
          await a.app.inject({ method: "GET", url: `/api/items/science/${postId}/reactions` }),
          reactionsResponseSchema,
        ).counts.love === 1,
      { timeoutMs: 5_000, what: "A reads B's reaction" },
    );
  });
});

describe("the coding a client accepts", () => {
  it("prefers brotli, then gzip, and honours q=0", () => {
    expect(preferredEncoding(undefined)).toBeNull();
    expect(preferredEncoding("")).toBeNull();
    expect(preferredEncoding("identity")).toBeNull();
    expect(preferredEncoding("gzip, deflate, br, zstd")).toBe("br");
    expect(preferredEncoding("GZIP")).toBe("gzip");
    expect(preferredEncoding("br;q=0, gzip;q=0.8")).toBe("gzip");
    expect(preferredEncoding("br; q=0.0, gzip ;q=0")).toBeNull();
    expect(preferredEncoding("x-gzip-nope")).toBeNull();
  });
});
