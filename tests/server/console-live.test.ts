import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema } from "../../contract/api.ts";
import { ownerCommentsTopic } from "../../contract/event-names.ts";
import { EventStream } from "../support/event-stream.ts";
import { Owner } from "./support/owner.ts";
import { backends, freshItem, json, seen, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The console's live comments come from the readers' endpoint, on the owner's
 * topic (docs/architecture.md, "Live updates"): every comment event, held
 * comments included, for a signed-in owner only, and replayed after a
 * reconnect from Last-Event-ID as a reader's stream is.
 */
describe.each(backends)("the console's live comments on %s", (backend) => {
  let t: TestApp;
  let owner: Owner;
  let baseUrl: string;
  const streams: EventStream[] = [];
  const open = (topic: string, lastEventId?: string, cookie?: string) => {
    const stream = new EventStream(baseUrl, topic, lastEventId, {
      headers: cookie ? { cookie } : {},
    });
    streams.push(stream);
    return stream;
  };
  const ownerStream = (lastEventId?: string) => open(ownerCommentsTopic, lastEventId, owner.cookie);
  const hold = async (postId: string, text: string) => {
    const response = await t.visitor().comment(postId, text, "Asha");
    expect(response.statusCode).toBeLessThan(300);
    const { comment } = json(response, commentResponseSchema);
    expect(comment.awaitingApproval).toBe(true);
    return comment.id as number;
  };

  beforeAll(async () => {
    // Every comment waits for approval (docs/moderation.md, "Moderation").
    t = await startTestApp(backend, { env: { MODERATION: "all" }, heartbeatMs: 200 });
    baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
    owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(() => t?.close());

  it("opens for the signed-in owner only", async () => {
    const signedOut = open(ownerCommentsTopic);
    await signedOut.until((s) => s.ended);
    expect(signedOut.status).toBe(401);
    const forged = open(ownerCommentsTopic, undefined, `ewe_owner=${"A".repeat(43)}`);
    await forged.until((s) => s.ended);
    expect(forged.status).toBe(401);
    // The topic held comments are recorded on is no item's: no one opens it.
    const held = open("owner:moderation", undefined, owner.cookie);
    await held.until((s) => s.ended);
    expect(held.status).toBe(400);

    const stream = ownerStream();
    await stream.ready();
    expect(stream.status).toBe(200);
  });

  it("hears of a held comment that no reader's stream carries, live or replayed", async () => {
    const postId = freshItem("science");
    const stream = ownerStream();
    const reader = open(`science:${postId}`);
    const [start] = await Promise.all([reader.ready(), stream.ready()]);

    const id = await hold(postId, "Does soap lather in sea water?");
    const held = await stream.find("comment", (data) => data.commentId === id);
    expect(held.json).toMatchObject({ action: "held", item: { kind: "science", id: postId } });

    expect((await owner.post(`/api/admin/comments/${id}/approve`)).statusCode).toBe(204);
    const published = await reader.next("comment");
    expect(published.json).toMatchObject({ commentId: id, action: "added" });
    await stream.find("comment", (data) => data.commentId === id && data.action === "added");
    // The approval is the reader's first comment event: the hold never came.
    expect(reader.events.filter((e) => e.event === "comment")).toHaveLength(1);

    // Nor does a replay from before the hold carry it.
    const replayed = open(`science:${postId}`, start.id);
    await replayed.ready();
    const comments = replayed.events.filter((e) => e.event === "comment");
    expect(comments.map((e) => JSON.parse(e.data).action)).toEqual(["added"]);
  });

  it("hears that a writer deleted their held comment, which no reader's stream carries, live or replayed", async () => {
    const postId = freshItem("science");
    const stream = ownerStream();
    const reader = open(`science:${postId}`);
    const [start] = await Promise.all([reader.ready(), stream.ready()]);

    const writer = t.visitor();
    const response = await writer.comment(
      postId,
      "Is hard water why my soap won't lather?",
      "Asha",
    );
    const { comment } = json(response, commentResponseSchema);
    expect(comment.awaitingApproval).toBe(true);
    expect((await writer.delete(`/api/comments/${comment.id}`)).statusCode).toBe(204);
    const gone = await stream.find(
      "comment",
      (data) => data.commentId === comment.id && data.action === "deleted",
    );
    expect(gone.json).toEqual({
      action: "deleted",
      item: { kind: "science", id: postId },
      commentId: comment.id,
    });
    expect(seen(await writer.get(`/api/items/science/${postId}/comments`)).comments).toEqual([]);

    // A reaction after it: the reader's stream hears of that, and of no comment before it.
    expect((await t.visitor().react("science", postId, "like")).statusCode).toBeLessThan(300);
    await reader.next("reaction");
    expect(reader.events.filter((e) => e.event === "comment")).toEqual([]);
    const replayed = open(`science:${postId}`, start.id);
    await replayed.ready();
    expect(replayed.events.map((e) => e.event)).toEqual(["reaction", "ready"]);
  });

  it("replays what the console missed from Last-Event-ID, comments only", async () => {
    const postId = freshItem("science");
    const first = ownerStream();
    const ready = await first.ready();
    first.close();

    const a = await hold(postId, "Why does soap foam less in hard water?");
    expect((await t.visitor().react("science", postId, "like")).statusCode).toBeLessThan(300);
    const b = await hold(postId, "Is liquid soap different?");

    const again = ownerStream(ready.id);
    const back = await again.ready();
    const replayed = again.events.filter((e) => e.event !== "ready");
    expect(replayed.map((e) => [e.event, JSON.parse(e.data).commentId])).toEqual([
      ["comment", a],
      ["comment", b],
    ]);
    expect(replayed.every((e) => Number(e.id) > Number(ready.id))).toBe(true);
    expect(Number(back.id)).toBeGreaterThanOrEqual(Number(replayed.at(-1)?.id));
  });
});
