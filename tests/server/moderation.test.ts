import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema } from "../../contract/api.ts";
import { fakeSciencePage } from "../support/built-site.ts";
import { commentIn, EventStream } from "../support/event-stream.ts";
import { admin, adminEnv } from "./support/admin.ts";
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
 * Moderation modes (docs/decisions/010-moderation-and-spam.md): a held comment
 * is its writer's alone (their list, never the shared list, another reader's
 * list or stream, or the page's HTML) until the owner approves it; approval
 * reaches open pages live; rejection removes it for its writer too.
 */

/** The list as the visitor's page shows it. */
const listOf = async (visitor: Visitor, postId: string) =>
  seen(await visitor.get(`/api/items/science/${postId}/comments`)).comments;

describe.each(backends)("moderation on %s", (backend) => {
  const streams: EventStream[] = [];
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  describe("MODERATION=all", () => {
    let t: TestApp;
    let baseUrl: string;
    beforeAll(async () => {
      t = await startTestApp(backend, {
        env: { MODERATION: "all" },
        clientFiles: { "science/index.html": fakeSciencePage },
      });
      baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
    });
    afterAll(() => t?.close());

    const watch = async (postId: string) => {
      const stream = new EventStream(baseUrl, `science:${postId}`);
      streams.push(stream);
      await stream.ready();
      return stream;
    };

    it("holds a comment for its writer alone, until the owner approves it for everyone, live", async () => {
      const postId = "soap";
      const writer = t.visitor();
      const reader = t.visitor();
      await reader.react("science", postId, "like", "Reader");
      const watcher = await watch(postId);

      const response = await writer.comment(postId, "Micelles trap the grease", "Asha");
      expect(response.statusCode).toBe(201);
      const { comment } = json(response, commentResponseSchema);
      expect(comment).toMatchObject({ awaitingApproval: true, mine: true });

      expect(await listOf(writer, postId)).toEqual([
        expect.objectContaining({ id: comment.id, awaitingApproval: true, mine: true }),
      ]);
      expect(await listOf(reader, postId)).toEqual([]);
      expect(await listOf(t.visitor(), postId)).toEqual([]);
      const page = await t.app.inject({ method: "GET", url: "/science" });
      expect(page.body).not.toContain("Micelles trap the grease");
      expect(page.body).toContain("0 comments");

      const pending = await admin(adminEnv(t), "comments", "pending");
      expect(pending.code).toBe(0);
      expect(pending.stdout).toContain(`${comment.id}\t${postId}\t`);
      expect(pending.stdout).toContain("Micelles trap the grease");

      const approved = await admin(adminEnv(t), "comments", "approve", String(comment.id));
      expect(approved).toMatchObject({ code: 0 });
      // The first comment event the other reader's stream carries is the approval.
      const added = await watcher.next("comment");
      expect(added.json).toMatchObject({
        action: "added",
        commentId: comment.id,
        comment: { content: "Micelles trap the grease", userName: "Asha" },
      });
      expect(commentIn(added.json)).not.toHaveProperty("awaitingApproval");
      expect((await listOf(reader, postId)).map((c) => c.content)).toEqual([
        "Micelles trap the grease",
      ]);
      expect(await listOf(writer, postId)).toEqual([
        expect.objectContaining({ id: comment.id, awaitingApproval: false, mine: true }),
      ]);
      expect((await t.app.inject({ method: "GET", url: "/science" })).body).toContain(
        "Micelles trap the grease",
      );
      expect((await admin(adminEnv(t), "comments", "pending")).stdout.trim().split("\n")).toEqual([
        "id\tpost\tcreated_at\tname\tcomment\treply_to",
      ]);
      const again = await admin(adminEnv(t), "comments", "approve", String(comment.id));
      expect(again.stdout).toContain("already published");
    });

    it("holds every comment of an approved writer too, and an edit of a published one again", async () => {
      const postId = freshItem("science");
      const writer = t.visitor();
      const watcher = await watch(postId);
      const { comment: first } = json(
        await writer.comment(postId, "First thought", "Ben"),
        commentResponseSchema,
      );
      await admin(adminEnv(t), "comments", "approve", String(first.id));
      // On SQLite the server reads the command line's events from the journal within a second.
      expect((await watcher.next("comment")).json).toMatchObject({ action: "added" });
      const { comment: second } = json(
        await writer.comment(postId, "Second thought", "Ben"),
        commentResponseSchema,
      );
      expect(second.awaitingApproval).toBe(true);

      const edited = await writer.patch(`/api/comments/${first.id}`, {
        content: "First thought, revised",
        userName: "Ben",
      });
      expect(json(edited, commentResponseSchema).comment).toMatchObject({ awaitingApproval: true });
      expect((await watcher.nth("comment", 1)).json).toEqual({
        action: "held",
        item: { kind: "science", id: postId },
        commentId: first.id,
      });
      expect(await listOf(t.visitor(), postId)).toEqual([]);
      expect((await listOf(writer, postId)).map((c) => [c.content, c.awaitingApproval])).toEqual([
        ["First thought, revised", true],
        ["Second thought", true],
      ]);
    });

    it("rejecting removes a held comment for its writer too, live", async () => {
      const postId = freshItem("science");
      const writer = t.visitor();
      const { comment } = json(
        await writer.comment(postId, "Not for publication", "Cy"),
        commentResponseSchema,
      );
      const watcher = await watch(postId);
      const run = await admin(adminEnv(t), "comments", "reject", String(comment.id));
      expect(run).toMatchObject({ code: 0, stdout: `Rejected comment ${comment.id}.\n` });
      expect((await watcher.next("comment")).json).toMatchObject({
        action: "deleted",
        commentId: comment.id,
      });
      expect(await listOf(writer, postId)).toEqual([]);
      expect((await admin(adminEnv(t), "comments", "reject", String(comment.id))).code).toBe(3);
      expect((await admin(adminEnv(t), "comments", "approve", "999999")).code).toBe(3);
    });
  });

  describe("MODERATION=first", () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(backend, { env: { MODERATION: "first" } });
    });
    afterAll(() => t?.close());

    it("holds a visitor's comments until the owner approves one, then publishes the rest at once", async () => {
      const postId = freshItem("science");
      const newcomer = t.visitor();
      const { comment: first } = json(
        await newcomer.comment(postId, "Hello from a newcomer"),
        commentResponseSchema,
      );
      expect(first.awaitingApproval).toBe(true);
      const { comment: second } = json(
        await newcomer.comment(postId, "And a second question"),
        commentResponseSchema,
      );
      expect(second.awaitingApproval).toBe(true);
      expect(await listOf(t.visitor(), postId)).toEqual([]);

      await admin(adminEnv(t), "comments", "approve", String(first.id));
      const { comment: third } = json(
        await newcomer.comment(postId, "Thanks for approving"),
        commentResponseSchema,
      );
      expect(third.awaitingApproval).toBe(false);
      // The second stays held: approval publishes one comment and trusts the writer from then on.
      expect((await listOf(t.visitor(), postId)).map((c) => c.content)).toEqual([
        "Hello from a newcomer",
        "Thanks for approving",
      ]);
      const other = t.visitor();
      expect(
        json(await other.comment(postId, "Someone else"), commentResponseSchema).comment
          .awaitingApproval,
      ).toBe(true);
    });

    it("forgets the owner's approval with the writer's data: their next comment waits again", async () => {
      const postId = freshItem("science");
      const writer = t.visitor();
      const { comment } = json(
        await writer.comment(postId, "A first question"),
        commentResponseSchema,
      );
      await admin(adminEnv(t), "comments", "approve", String(comment.id));
      expect(
        json(await writer.comment(postId, "Trusted now"), commentResponseSchema).comment
          .awaitingApproval,
      ).toBe(false);

      expect((await writer.post("/api/your-data/delete", { confirm: true })).statusCode).toBe(200);
      expect(
        json(await writer.comment(postId, "Back again"), commentResponseSchema).comment
          .awaitingApproval,
      ).toBe(true);
    });
  });

  describe("MODERATION=off (the default)", () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(backend);
    });
    afterAll(() => t?.close());

    it("publishes at once, and has nothing pending", async () => {
      const postId = freshItem("science");
      const { comment } = json(
        await t.visitor().comment(postId, "Straight in"),
        commentResponseSchema,
      );
      expect(comment.awaitingApproval).toBe(false);
      expect((await listOf(t.visitor(), postId)).map((c) => c.id)).toEqual([comment.id]);
      const pending = await admin(adminEnv(t), "comments", "pending", "--json");
      expect(JSON.parse(pending.stdout)).toEqual([]);
    });
  });
});
