import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Comment } from "../../contract/api.ts";
import {
  commentResponseSchema,
  commentsResponseSchema,
  reactionsResponseSchema,
} from "../../contract/api.ts";
import { waitFor } from "../support/wait-for.ts";
import { Owner } from "./support/owner.ts";
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
 * A returning reader (one with a visitor cookie) reads the bytes everyone
 * shares, followed by what they own, kept in memory per visitor
 * (docs/decisions/035-returning-readers-read-the-shared-bytes.md).
 */

const commentsUrl = (postId: string) => `/api/items/science/${postId}/comments`;
const reactionsUrl = (postId: string) => `/api/items/science/${postId}/reactions`;
const shown = (comments: Comment[]) =>
  comments.map((c) => ({ content: c.content, mine: c.mine, awaitingApproval: c.awaitingApproval }));

describe.each(backends)("a returning reader's own on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });
  const anonymousGet = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: "GET", url, headers });

  it("follows the shared bytes with the reader's own, for them alone, and gives everyone else the shared bytes", async () => {
    const postId = freshItem("science");
    const author = t.visitor();
    const other = t.visitor();
    const elsewhere = t.visitor();
    const first = json(
      await author.comment(postId, "First of mine", "Asha"),
      commentResponseSchema,
    ).comment;
    await other.comment(postId, "Someone else's", "Otto");
    const second = json(
      await author.comment(postId, "Second of mine", "Asha"),
      commentResponseSchema,
    ).comment;
    await author.react("science", postId, "idea");
    await other.react("science", postId, "like");
    await elsewhere.react("mythology", freshItem("mythology"), "love");

    const anonymous = await anonymousGet(commentsUrl(postId));
    expect(anonymous.headers["cache-control"]).toBe("no-cache");
    expect(anonymous.headers.vary).toBe("accept-encoding, cookie");
    const authors = await author.get(commentsUrl(postId));
    expect(authors.statusCode).toBe(200);
    // The shared bytes as they are, then the author's own.
    expect(authors.rawPayload.subarray(0, anonymous.rawPayload.length - 1)).toEqual(
      anonymous.rawPayload.subarray(0, -1),
    );
    expect(json(authors, commentsResponseSchema).own).toEqual({
      ids: [first.id, second.id],
      held: [],
    });
    expect(authors.headers.etag).toMatch(
      new RegExp(`^${(anonymous.headers.etag as string).slice(0, -1)}\\.[\\w-]{16}"$`),
    );
    // Never kept by a cache between for anyone else.
    expect(authors.headers["cache-control"]).toBe("private, no-cache");
    expect(authors.headers.vary).toBe("accept-encoding, cookie");
    expect(shown(seen(authors).comments)).toEqual([
      { content: "First of mine", mine: true, awaitingApproval: false },
      { content: "Someone else's", mine: false, awaitingApproval: false },
      { content: "Second of mine", mine: true, awaitingApproval: false },
    ]);
    const revalidated = await author.request("GET", commentsUrl(postId), undefined, {
      "if-none-match": authors.headers.etag as string,
    });
    expect(revalidated.statusCode).toBe(304);

    expect(seen(await other.get(commentsUrl(postId))).comments.map((c) => c.mine)).toEqual([
      false,
      true,
      false,
    ]);
    // A cookie that owns nothing here reads exactly what everyone reads, compressed too.
    const nothingOwned = await elsewhere.get(commentsUrl(postId));
    expect(nothingOwned.body).toBe(anonymous.body);
    expect(nothingOwned.headers.etag).toBe(anonymous.headers.etag);
    expect(json(nothingOwned, commentsResponseSchema).own).toBeUndefined();

    // Reactions: the same answer as ever, the shared counts followed by the reader's types.
    const counts = { like: 1, love: 0, dislike: 0, idea: 1 };
    const sharedCounts = await anonymousGet(reactionsUrl(postId));
    expect(sharedCounts.body).toBe(JSON.stringify({ counts, mine: [] }));
    const authorsCounts = await author.get(reactionsUrl(postId));
    expect(authorsCounts.body).toBe(JSON.stringify({ counts, mine: ["idea"] }));
    expect(authorsCounts.headers.etag).toMatch(
      new RegExp(`^${(sharedCounts.headers.etag as string).slice(0, -1)}\\.`),
    );
    expect(authorsCounts.headers["cache-control"]).toBe("private, no-cache");
    expect((await elsewhere.get(reactionsUrl(postId))).body).toBe(sharedCounts.body);
  });

  it("keeps what a reader owns in memory until something about the item changes or they write", async () => {
    const postId = freshItem("science");
    const author = t.visitor();
    const { comment } = json(await author.comment(postId, "Mine", "Asha"), commentResponseSchema);
    expect(json(await author.get(commentsUrl(postId)), commentsResponseSchema).own?.ids).toEqual([
      comment.id,
    ]);

    // Behind the server's back the comment becomes someone else's: the read
    // comes from memory and still says it is the author's.
    await runSql(t, "update science_comments set visitor_id = ? where id = ?", [
      "someone-else-entirely",
      comment.id,
    ]);
    expect(json(await author.get(commentsUrl(postId)), commentsResponseSchema).own?.ids).toEqual([
      comment.id,
    ]);

    // Anyone's write about the item makes it read again.
    await t.visitor().react("science", postId, "like");
    expect(json(await author.get(commentsUrl(postId)), commentsResponseSchema).own).toBeUndefined();

    // And the reader's own write, about another item, does too.
    await runSql(t, "update science_comments set visitor_id = ? where id = ?", [
      credentialOf(author),
      comment.id,
    ]);
    expect(json(await author.get(commentsUrl(postId)), commentsResponseSchema).own).toBeUndefined();
    await author.react("mythology", freshItem("mythology"), "love");
    expect(json(await author.get(commentsUrl(postId)), commentsResponseSchema).own?.ids).toEqual([
      comment.id,
    ]);
  });

  it("over a socket, sends a reader's own read again as it was, and never once they or anyone wrote", async () => {
    // Read again, a reader's own is answered by the fast path in front of Fastify
    // (docs/decisions/069-a-returning-readers-read-on-the-fast-path.md); `inject` never reaches it.
    const origin = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const postId = freshItem("science");
    const reader = t.visitor();
    const other = t.visitor();
    const { comment } = json(
      await reader.comment(postId, "Mine, read over a socket", "Asha"),
      commentResponseSchema,
    );
    await other.react("mythology", freshItem("mythology"), "love");
    const read = async (visitor: Visitor) => {
      const response = await fetch(`${origin}${commentsUrl(postId)}`, {
        headers: { cookie: visitor.cookie ?? "", "accept-encoding": "gzip, deflate, br" },
      });
      const { date: _date, "x-request-id": _id, ...headers } = Object.fromEntries(response.headers);
      return { headers, body: commentsResponseSchema.parse(await response.json()) };
    };
    const first = await read(reader);
    expect(first.body.own?.ids).toEqual([comment.id]);
    expect(first.headers["cache-control"]).toBe("private, no-cache");
    expect([await read(reader), await read(reader), await read(reader)]).toEqual([
      first,
      first,
      first,
    ]);
    // Another cookie never gets the reader's own, however often it reads.
    for (let i = 0; i < 3; i += 1) expect((await read(other)).body.own).toBeUndefined();

    // Behind the server's back the comment becomes someone else's: from memory, still theirs.
    await runSql(t, "update science_comments set visitor_id = ? where id = ?", [
      "someone-else-entirely",
      comment.id,
    ]);
    expect((await read(reader)).body.own?.ids).toEqual([comment.id]);
    // The reader's own write, about another item, forgets what was kept of theirs.
    await reader.react("mythology", freshItem("mythology"), "love");
    expect((await read(reader)).body.own).toBeUndefined();
    expect((await read(reader)).body.own).toBeUndefined();

    // Theirs again, read twice; then anyone's write about the post shows at once.
    await runSql(t, "update science_comments set visitor_id = ? where id = ?", [
      credentialOf(reader),
      comment.id,
    ]);
    await reader.react("mythology", freshItem("mythology"), "like");
    expect((await read(reader)).body.own?.ids).toEqual([comment.id]);
    expect((await read(reader)).body.own?.ids).toEqual([comment.id]);
    await other.comment(postId, "Someone else's, read over a socket", "Otto");
    const after = await read(reader);
    expect(after.body.comments.map((c) => c.content)).toContain(
      "Someone else's, read over a socket",
    );
    expect(after.body.own?.ids).toEqual([comment.id]);
    expect(after.headers.etag).not.toBe(first.headers.etag);
  });
});

describe.each(backends)("held comments in a returning reader's own on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { env: { MODERATION: "all" } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("shows a held comment to its writer alone, and its edits and the honeypot's catch at once", async () => {
    const postId = freshItem("science");
    const writer = t.visitor();
    const reader = t.visitor();
    await reader.react("science", postId, "like");
    expect(seen(await writer.get(commentsUrl(postId))).comments).toEqual([]); // kept: nothing
    const { comment } = json(
      await writer.comment(postId, "Waiting for the owner", "Asha"),
      commentResponseSchema,
    );

    const writers = seen(await writer.get(commentsUrl(postId)));
    expect(shown(writers.comments)).toEqual([
      { content: "Waiting for the owner", mine: true, awaitingApproval: true },
    ]);
    expect(writers.total).toBe(1);
    for (const other of [reader, t.visitor()]) {
      const theirs = seen(await other.get(commentsUrl(postId)));
      expect(theirs.comments).toEqual([]);
      expect(theirs.total).toBe(0);
    }
    const anonymous = await t.app.inject({ method: "GET", url: commentsUrl(postId) });
    expect(anonymous.body).not.toContain("Waiting for the owner");

    await writer.patch(`/api/comments/${comment.id}`, {
      content: "Still waiting",
      userName: "Asha",
    });
    expect(shown(seen(await writer.get(commentsUrl(postId))).comments)).toEqual([
      { content: "Still waiting", mine: true, awaitingApproval: true },
    ]);

    const bot = t.visitor();
    expect(seen(await bot.get(commentsUrl(postId))).comments).toEqual([]); // kept: nothing
    const caught = await bot.post(commentsUrl(postId), {
      content: "Totally human comment",
      userName: "Bot",
      formToken: t.commentToken(),
      website: "http://spam.example",
    });
    expect(caught.statusCode).toBe(201);
    expect(shown(seen(await bot.get(commentsUrl(postId))).comments)).toEqual([
      { content: "Totally human comment", mine: true, awaitingApproval: false },
    ]);
    expect(seen(await reader.get(commentsUrl(postId))).comments).toEqual([]);
  });
});

describe("a returning reader's own across two instances on PostgreSQL", () => {
  let a: TestApp;
  let b: TestApp;
  let owner: Owner;
  beforeAll(async () => {
    // Instances of one site share the cookie secret (docs/decisions/004-visitor-ownership.md).
    const env = { MODERATION: "first", COOKIE_SECRET: "two-instances-0123456789abcdefghij" };
    a = await startTestApp("postgres", { env });
    b = await startTestApp("postgres", { databaseUrl: a.databaseUrl, env });
    owner = new Owner(a);
    expect((await owner.signIn()).statusCode).toBe(200);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** The same browser, its requests sent to instance `to`. */
  const on = (to: TestApp, visitor: Visitor): Visitor => {
    const there = to.visitor();
    there.cookie = visitor.cookie;
    return there;
  };
  const seenOn = async (to: TestApp, visitor: Visitor, postId: string) =>
    shown(seen(await on(to, visitor).get(commentsUrl(postId))).comments);
  const until = (check: () => Promise<boolean>, what: string) =>
    waitFor(check, { timeoutMs: 10_000, what });

  it("a writer's comment held, edited, approved, edited and deleted on one instance reaches their own on the other", async () => {
    const postId = freshItem("science");
    const writer = a.visitor();
    const reader = b.visitor();
    await writer.react("science", postId, "idea"); // the cookie, on A
    await reader.react("science", postId, "like");
    const equal = (expected: unknown) => (actual: unknown) =>
      JSON.stringify(actual) === JSON.stringify(expected);
    const writerOnB = (expected: unknown, what: string) =>
      until(async () => equal(expected)(await seenOn(b, writer, postId)), what);

    // Kept on B: the writer owns no comment there yet.
    expect(await seenOn(b, writer, postId)).toEqual([]);

    const { comment } = json(
      await writer.comment(postId, "Held on A", "Asha"),
      commentResponseSchema,
    );
    expect(comment.awaitingApproval).toBe(true);
    await writerOnB(
      [{ content: "Held on A", mine: true, awaitingApproval: true }],
      "B shows the writer their held comment",
    );
    expect(await seenOn(b, reader, postId)).toEqual([]);

    await writer.patch(`/api/comments/${comment.id}`, {
      content: "Edited, held",
      userName: "Asha",
    });
    await writerOnB(
      [{ content: "Edited, held", mine: true, awaitingApproval: true }],
      "B shows the writer the edit of their held comment",
    );

    expect((await owner.post(`/api/admin/comments/${comment.id}/approve`)).statusCode).toBe(204);
    await writerOnB(
      [{ content: "Edited, held", mine: true, awaitingApproval: false }],
      "B shows the writer their approved comment as published",
    );
    expect(await seenOn(b, reader, postId)).toEqual([
      { content: "Edited, held", mine: false, awaitingApproval: false },
    ]);

    await writer.patch(`/api/comments/${comment.id}`, {
      content: "Edited again",
      userName: "Asha",
    });
    await writerOnB(
      [{ content: "Edited again", mine: true, awaitingApproval: false }],
      "B shows the writer their edit",
    );

    // A reaction on A is in the writer's own counts on B.
    await writer.react("science", postId, "love");
    await until(
      async () =>
        JSON.stringify(
          json(await on(b, writer).get(reactionsUrl(postId)), reactionsResponseSchema).mine,
        ) === JSON.stringify(["love", "idea"]),
      "B shows the writer's new reaction as theirs",
    );

    expect((await writer.delete(`/api/comments/${comment.id}`)).statusCode).toBe(204);
    await writerOnB([], "B no longer shows the deleted comment to its writer");
    expect(
      json(await on(b, writer).get(commentsUrl(postId)), commentsResponseSchema).own,
    ).toBeUndefined();
  });

  it("a held comment the owner rejects on one instance leaves its writer's own on the other", async () => {
    const postId = freshItem("science");
    const writer = a.visitor();
    await writer.react("science", postId, "idea"); // the cookie, on A
    expect(await seenOn(b, writer, postId)).toEqual([]); // kept on B
    const { comment } = json(
      await writer.comment(postId, "About to be rejected", "Bo"),
      commentResponseSchema,
    );
    await until(
      async () => (await seenOn(b, writer, postId)).length === 1,
      "B shows the writer their held comment",
    );
    expect((await owner.post(`/api/admin/comments/${comment.id}/reject`)).statusCode).toBe(204);
    await until(
      async () => (await seenOn(b, writer, postId)).length === 0,
      "B no longer shows the rejected comment to its writer",
    );
  });
});

/** The visitor credential a test browser's cookie carries. */
function credentialOf(visitor: Visitor): string {
  return decodeURIComponent(visitor.cookie?.split("=")[1] ?? "").split(".")[0] ?? "";
}
