import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import { commentIn, EventStream } from "../support/event-stream.ts";
import { waitFor } from "../support/wait-for.ts";
import {
  freshItem,
  json,
  readinessSchema,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

async function listen(t: TestApp) {
  return t.app.listen({ host: "127.0.0.1", port: 0 });
}

async function liveEventsState(t: TestApp) {
  return json(await t.app.inject({ method: "GET", url: "/readyz" }), readinessSchema).liveEvents;
}

describe("two instances on one PostgreSQL", () => {
  let a: TestApp;
  let b: TestApp;
  let urlB: string;
  let urlA: string;
  const streams: EventStream[] = [];

  beforeAll(async () => {
    a = await startTestApp("postgres");
    b = await startTestApp("postgres", { databaseUrl: a.databaseUrl });
    [urlA, urlB] = await Promise.all([listen(a), listen(b)]);
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("delivers a comment posted to A to a stream on B, and a reaction on B to a stream on A", async () => {
    const postId = freshItem("science");
    const onB = new EventStream(urlB, `science:${postId}`);
    const onA = new EventStream(urlA, `science:${postId}`);
    streams.push(onA, onB);
    await Promise.all([onA.ready(), onB.ready()]);

    const alex = a.visitor();
    const { comment } = json(await alex.comment(postId, "posted on A"), commentResponseSchema);
    const received = await onB.next("comment");
    expect(received.json).toMatchObject({
      action: "added",
      commentId: comment.id,
      comment: { content: "posted on A" },
    });

    await b.visitor().react("science", postId, "idea", "Sam");
    expect((await onA.next("reaction")).json.counts.idea).toBe(1);
    // Both instances number events the same way.
    expect((await onA.next("comment")).id).toBe(received.id);
  });

  it("places a reply posted to B under its comment on a page open on A", async () => {
    const postId = freshItem("science");
    const onA = new EventStream(urlA, `science:${postId}`);
    streams.push(onA);
    await onA.ready();
    const { comment } = json(
      await a.visitor().comment(postId, "asked on A", "Asha"),
      commentResponseSchema,
    );
    const { comment: reply } = json(
      await b.visitor().reply(postId, comment.id, "answered on B", "Meera"),
      commentResponseSchema,
    );
    const received = await onA.find("comment", (event) => event.commentId === reply.id);
    expect(received.json).toMatchObject({
      action: "added",
      comment: { parentId: comment.id, content: "answered on B" },
    });
    const listed = json(
      await a.visitor().get(`/api/items/science/${postId}/comments`),
      commentsResponseSchema,
    );
    expect(listed.comments.map((c) => c.parentId)).toEqual([null, comment.id]);
  });

  it("replays on B what a client saw last on A", async () => {
    const postId = freshItem("science");
    const onA = new EventStream(urlA, `science:${postId}`);
    streams.push(onA);
    const ready = await onA.ready();
    onA.close();
    await a.visitor().comment(postId, "while away");
    const onB = new EventStream(urlB, `science:${postId}`, ready.id);
    streams.push(onB);
    await onB.ready();
    expect(onB.events.map((e) => e.event)).toEqual(["comment", "ready"]);
  });

  it("catches up on events committed while B's listener was disconnected", async () => {
    const postId = freshItem("science");
    const onB = new EventStream(urlB, `science:${postId}`);
    streams.push(onB);
    await onB.ready();

    const admin = new pg.Client({ connectionString: a.databaseUrl });
    await admin.connect();
    try {
      await admin.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'ewe-listener' and datname = current_database()",
      );
    } finally {
      await admin.end();
    }
    await waitFor(async () => (await liveEventsState(b)) === "reconnecting");

    await a.visitor().comment(postId, "sent while B was deaf");
    const received = await onB.next("comment");
    expect(commentIn(received.json)?.content).toBe("sent while B was deaf");
    // The journal's poll may deliver it before the listener is back (on a
    // loaded machine it was): B listens again soon after, either way.
    await expect.poll(() => liveEventsState(b)).toBe("listening");
  });
});
