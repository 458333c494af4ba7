import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EventStream } from "./support/sse-client.ts";
import { backends, freshItem, json, startTestApp, type TestApp } from "./support/test-app.ts";

describe.each(backends)("live events on %s", (backend) => {
  let t: TestApp;
  let baseUrl: string;
  const streams: EventStream[] = [];
  const open = (topic: string, lastEventId?: string) => {
    const stream = new EventStream(baseUrl, topic, lastEventId);
    streams.push(stream);
    return stream;
  };

  beforeAll(async () => {
    t = await startTestApp(backend, { heartbeatMs: 200 });
    baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(() => t?.close());

  it("opens with a ready event carrying the stream position", async () => {
    const stream = open("science:wifi");
    const ready = await stream.ready();
    expect(stream.status).toBe(200);
    expect(stream.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(stream.headers["cache-control"]).toBe("no-cache");
    expect(ready.id).toMatch(/^\d+$/);
  });

  it("sends reaction counts to everyone watching the item, and only them", async () => {
    const id = freshItem("mythology");
    const watcher = open(`mythology:${id}`);
    const other = open(`mythology:${freshItem("mythology")}`);
    await Promise.all([watcher.ready(), other.ready()]);

    const alex = t.visitor();
    await alex.react("mythology", id, "love");
    const added = await watcher.next("reaction");
    expect(added.json).toEqual({
      item: { kind: "mythology", id },
      counts: { like: 0, love: 1, dislike: 0, idea: 0 },
    });
    expect(Number(added.id)).toBeGreaterThan(0);

    await alex.delete(`/api/items/mythology/${id}/reactions/love`);
    const removed = await watcher.nth("reaction", 1);
    expect(removed.json.counts.love).toBe(0);
    expect(Number(removed.id)).toBeGreaterThan(Number(added.id));

    // An add that changes nothing sends nothing.
    await alex.react("mythology", id, "idea");
    await alex.react("mythology", id, "idea");
    await watcher.nth("reaction", 2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(watcher.events.filter((e) => e.event === "reaction")).toHaveLength(3);
    expect(other.events.filter((e) => e.event === "reaction")).toHaveLength(0);
  });

  it("sends comment additions, edits and deletions without private data", async () => {
    const postId = freshItem("science");
    const watcher = open(`science:${postId}`);
    await watcher.ready();
    const alex = t.visitor();
    const { comment } = json(await alex.comment(postId, "<b>hello</b>", "Alex"));
    await alex.patch(`/api/comments/${comment.id}`, { content: "edited", userName: "Alex" });
    await alex.delete(`/api/comments/${comment.id}`);

    const events = await watcher.until((s) => {
      const found = s.events.filter((e) => e.event === "comment");
      return found.length === 3 ? found : undefined;
    });
    const [added, updated, deleted] = events.map((e) => JSON.parse(e.data));
    const { mine: _mine, ...publicComment } = comment;
    expect(added).toEqual({
      action: "added",
      item: { kind: "science", id: postId },
      commentId: comment.id,
      comment: publicComment,
    });
    expect(updated).toMatchObject({
      action: "updated",
      commentId: comment.id,
      comment: { content: "edited" },
    });
    expect(deleted).toEqual({
      action: "deleted",
      item: { kind: "science", id: postId },
      commentId: comment.id,
    });
    const visitorId = (alex.cookie ?? "").split("=")[1]!.split(".")[0]!;
    for (const event of events) {
      expect(event.data).not.toContain(visitorId);
      expect(event.data).not.toMatch(/visitor|mine/);
    }
  });

  it("replays what a reconnecting client missed, then says ready", async () => {
    const postId = freshItem("science");
    const first = open(`science:${postId}`);
    const ready = await first.ready();
    first.close();

    const alex = t.visitor();
    await alex.comment(postId, "while you were away");
    await alex.react("science", postId, "like");
    await alex.react("science", freshItem("science"), "like"); // another topic

    const back = open(`science:${postId}`, ready.id);
    const again = await back.ready();
    const names = back.events.map((e) => e.event);
    expect(names).toEqual(["comment", "reaction", "ready"]);
    expect(JSON.parse(back.events[0]!.data).comment.content).toBe("while you were away");
    expect(Number(again.id)).toBeGreaterThanOrEqual(Number(back.events[1]!.id));

    // Nothing missed: nothing replayed.
    const upToDate = open(`science:${postId}`, again.id);
    await upToDate.ready();
    expect(upToDate.events.map((e) => e.event)).toEqual(["ready"]);
  });

  it("tells a client from another database to resync", async () => {
    const stream = open("science:wifi", "999999999");
    await stream.ready();
    expect(stream.events.map((e) => e.event)).toEqual(["resync", "ready"]);
  });

  it("sends heartbeats", async () => {
    const stream = open("science:wifi");
    await stream.ready();
    await stream.until((s) => s.comments.includes("heartbeat"), 2000);
  });

  it("stops delivering to a client that disconnected", async () => {
    const postId = freshItem("science");
    const leaving = open(`science:${postId}`);
    const staying = open(`science:${postId}`);
    await Promise.all([leaving.ready(), staying.ready()]);
    leaving.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await t.visitor().comment(postId, "after you left");
    await staying.next("comment");
    expect(leaving.events.filter((e) => e.event === "comment")).toHaveLength(0);
  });

  it.each([
    ["an unknown story", "mythology:no-such-story", 404, "not_found"],
    ["an unknown post", "science:no-such-post", 404, "not_found"],
    ["an unknown kind", "technical:ice-blog", 400, "validation_failed"],
    ["no kind", "wifi", 400, "validation_failed"],
  ])("refuses %s with a JSON %i", async (_case, topic, status, code) => {
    const response = await fetch(`${baseUrl}/api/events?topic=${encodeURIComponent(topic)}`, {
      headers: { accept: "text/event-stream" },
    });
    expect(response.status).toBe(status);
    expect((await response.json()).error.code).toBe(code);
  });
});

describe("closing the server", () => {
  it("ends open streams instead of waiting for them", async () => {
    const t = await startTestApp("sqlite");
    const baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const stream = new EventStream(baseUrl, "science:wifi");
    await stream.ready();
    const started = Date.now();
    await t.close();
    await stream.until((s) => s.ended, 2000);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("answers 503 beyond the configured number of streams", async () => {
    const t = await startTestApp("sqlite", { env: { EVENT_STREAMS_MAX: "2" } });
    const baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
    const streams = [
      new EventStream(baseUrl, "science:wifi"),
      new EventStream(baseUrl, "science:soap"),
    ];
    try {
      await Promise.all(streams.map((s) => s.ready()));
      const refused = await fetch(`${baseUrl}/api/events?topic=science:wifi`);
      expect(refused.status).toBe(503);
      expect((await refused.json()).error.code).toBe("service_unavailable");
    } finally {
      for (const s of streams) s.close();
      await t.close();
    }
  });
});
