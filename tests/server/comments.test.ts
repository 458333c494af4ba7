import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Comment } from "../../contract/api.ts";
import { commentResponseSchema, errorResponseSchema } from "../../contract/api.ts";
import { admin, adminEnv } from "./support/admin.ts";
import {
  backends,
  freshItem,
  json,
  seen as seenIn,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

const isoUtc = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(backends)("comments on %s", (backend) => {
  let t: TestApp;
  // How far the site's clock runs ahead of the machine's: moved on for an edit made later.
  let ahead = 0;
  beforeAll(async () => {
    t = await startTestApp(backend, { clock: () => new Date(Date.now() + ahead) });
  });
  afterAll(() => t?.close());

  const list = async (postId: string, viewer = t.visitor()): Promise<Comment[]> =>
    seenIn(await viewer.get(`/api/items/science/${postId}/comments`)).comments;

  it("starts empty", async () => {
    const response = await t.visitor().get(`/api/items/science/${freshItem("science")}/comments`);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ comments: [], next: null, before: null, total: 0 });
  });

  it("adds a comment with 201, trimmed, with UTC timestamps and no private data", async () => {
    const postId = freshItem("science");
    const response = await t.visitor().comment(postId, "  Great explanation!\n  ", "Alex");
    expect(response.statusCode).toBe(201);
    const { comment } = json(response, commentResponseSchema);
    expect(comment).toEqual({
      id: expect.any(Number),
      postId,
      content: "Great explanation!",
      html: "<p>Great explanation!</p>",
      userName: "Alex",
      createdAt: expect.stringMatching(isoUtc),
      updatedAt: comment.createdAt,
      mine: true,
      avatar: expect.stringMatching(/^[0-9a-f]{16}$/),
      awaitingApproval: false,
      byOwner: false,
      parentId: null,
      deleted: false,
    });
    expect(Object.keys(comment).sort()).toEqual([
      "avatar",
      "awaitingApproval",
      "byOwner",
      "content",
      "createdAt",
      "deleted",
      "html",
      "id",
      "mine",
      "parentId",
      "postId",
      "updatedAt",
      "userName",
    ]);
  });

  it("stores each line break as \\n, a lone carriage return too, on add and edit", async () => {
    const postId = freshItem("science");
    const alex = t.visitor();
    const added = await alex.comment(postId, "Steel cools faster\r\nin still air.\rCeramic holds.");
    expect(added.statusCode).toBe(201);
    const { comment } = json(added, commentResponseSchema);
    expect(comment.content).toBe("Steel cools faster\nin still air.\nCeramic holds.");
    const edited = await alex.patch(`/api/comments/${comment.id}`, {
      content: "Steel cools faster.\rCeramic holds the heat.",
      userName: "Alex",
    });
    expect(json(edited, commentResponseSchema).comment.content).toBe(
      "Steel cools faster.\nCeramic holds the heat.",
    );
    // The owner's terminal prints it as written: no return hides the start of a line.
    const listed = await admin(adminEnv(t), "comments", "list", "--post", postId);
    expect(listed.stdout).toContain("Ceramic holds the heat.");
    expect(listed.stdout).not.toContain("\r");
  });

  it("lists oldest first, with mine only on the caller's own", async () => {
    const postId = freshItem("science");
    const alex = t.visitor();
    const sam = t.visitor();
    await alex.comment(postId, "first", "Alex");
    await sam.comment(postId, "second", "Sam");
    await alex.comment(postId, "third", "Alex");
    const seen = await list(postId, alex);
    expect(seen.map((c) => c.content)).toEqual(["first", "second", "third"]);
    expect(seen.map((c) => c.mine)).toEqual([true, false, true]);
    expect((await list(postId, sam)).map((c) => c.mine)).toEqual([false, true, false]);
    expect((await list(postId)).every((c) => !c.mine)).toBe(true);
  });

  it("edits the caller's own comment and returns the row", async () => {
    const postId = freshItem("science");
    const alex = t.visitor();
    const { comment } = json(await alex.comment(postId, "before", "Alex"), commentResponseSchema);
    ahead += 60_000;
    const response = await alex.patch(`/api/comments/${comment.id}`, {
      content: " after ",
      userName: "Alex",
    });
    expect(response.statusCode).toBe(200);
    const edited = json(response, commentResponseSchema).comment;
    expect(edited).toMatchObject({
      id: comment.id,
      content: "after",
      createdAt: comment.createdAt,
      mine: true,
    });
    expect(edited.updatedAt > comment.updatedAt).toBe(true);
    expect((await list(postId))[0]?.content).toBe("after");
  });

  it("refuses edits by another visitor with the same name, or by the author under another name", async () => {
    const postId = freshItem("science");
    const alex = t.visitor();
    const { comment } = json(await alex.comment(postId, "original", "Alex"), commentResponseSchema);

    const impostor = t.visitor();
    const byImpostor = await impostor.patch(`/api/comments/${comment.id}`, {
      content: "hacked",
      userName: "Alex",
    });
    expect(byImpostor.statusCode).toBe(403);
    expect(json(byImpostor, errorResponseSchema).error.code).toBe("forbidden");

    const renamed = await alex.patch(`/api/comments/${comment.id}`, {
      content: "hacked",
      userName: "Alexander",
    });
    expect(renamed.statusCode).toBe(403);

    const [stored] = await list(postId);
    expect(stored).toMatchObject({ content: "original", updatedAt: comment.updatedAt });
  });

  it("deletes the caller's own comment with 204", async () => {
    const postId = freshItem("science");
    const alex = t.visitor();
    const { comment } = json(await alex.comment(postId, "short-lived"), commentResponseSchema);
    const response = await alex.delete(`/api/comments/${comment.id}`);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect(await list(postId)).toEqual([]);
    expect((await alex.delete(`/api/comments/${comment.id}`)).statusCode).toBe(404);
  });

  it("refuses deletion by anyone else, and keeps the comment", async () => {
    const postId = freshItem("science");
    const alex = t.visitor();
    const { comment } = json(await alex.comment(postId, "keep me", "Alex"), commentResponseSchema);
    const impostor = t.visitor();
    await impostor.comment(postId, "I am Alex too", "Alex");
    expect((await impostor.delete(`/api/comments/${comment.id}`)).statusCode).toBe(403);
    expect((await t.visitor().delete(`/api/comments/${comment.id}`)).statusCode).toBe(403);
    expect((await list(postId)).map((c) => c.content)).toEqual(["keep me", "I am Alex too"]);
  });

  it("answers 404 for a comment that does not exist", async () => {
    const alex = t.visitor();
    await alex.comment(freshItem("science"), "so that alex has a cookie");
    for (const response of [
      await alex.patch("/api/comments/987654", { content: "x", userName: "Alex" }),
      await alex.delete("/api/comments/987654"),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(json(response, errorResponseSchema).error.code).toBe("not_found");
    }
  });

  // Once, on SQLite: refused by the schema or the catalogue before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it.each(["0", "-1", "abc", "1.5", "99999999999"])(
        "refuses comment id %s with 400",
        async (id) => {
          const response = await t
            .visitor()
            .patch(`/api/comments/${id}`, { content: "x", userName: "Alex" });
          expect(response.statusCode).toBe(400);
          expect(json(response, errorResponseSchema).error.code).toBe("validation_failed");
        },
      );

      it("answers 404 for comments on an unknown post or on a story", async () => {
        const alex = t.visitor();
        for (const response of [
          await alex.get("/api/items/science/no-such-post/comments"),
          await alex.comment("no-such-post", "hello"),
          await alex.get("/api/items/mythology/garuda/comments"),
          await alex.post("/api/items/mythology/garuda/comments", {
            content: "hello",
            userName: "Alex",
          }),
        ]) {
          expect(response.statusCode).toBe(404);
          expect(json(response, errorResponseSchema).error.code).toBe("not_found");
        }
      });
    });
  }

  it.each([
    ["empty content", { content: "", userName: "Alex" }],
    ["whitespace-only content", { content: " \n\t ", userName: "Alex" }],
    ["2,001 characters", { content: "x".repeat(2001), userName: "Alex" }],
    ["no name", { content: "hello" }],
    ["a 41-character name", { content: "hello", userName: "n".repeat(41) }],
    ["an unknown field", { content: "hello", userName: "Alex", postId: "soap" }],
    ["a number as content", { content: 5, userName: "Alex" }],
  ])("refuses %s with 400 on add and edit, changing nothing", async (_case, body) => {
    const postId = freshItem("science");
    const alex = t.visitor();
    const { comment } = json(await alex.comment(postId, "untouched"), commentResponseSchema);
    const added = await alex.post(`/api/items/science/${postId}/comments`, body);
    expect(added.statusCode).toBe(400);
    expect(json(added, errorResponseSchema).error.code).toBe("validation_failed");
    const edited = await alex.patch(`/api/comments/${comment.id}`, body);
    expect(edited.statusCode).toBe(400);
    const stored = await list(postId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ content: "untouched", updatedAt: comment.updatedAt });
  });

  it("accepts 2,000 characters after trimming", async () => {
    const content = `  ${"y".repeat(2000)}  `;
    const response = await t.visitor().comment(freshItem("science"), content);
    expect(response.statusCode).toBe(201);
    expect(json(response, commentResponseSchema).comment.content).toHaveLength(2000);
  });
});
