import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ErrorResponse } from "../../contract/api.ts";
import { commentResponseSchema } from "../../contract/api.ts";
import { commentIn, EventStream } from "../support/event-stream.ts";
import { waitFor } from "../support/wait-for.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  capturedLogs,
  freshItem,
  json,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/** Ordinary sentences, for comments long enough to fill buffers without looking like junk. */
const sentences = [
  "I tried this with my own pressure cooker last winter, and the rice was ready in half the time it usually takes.",
  "What surprised me was how much the boiling point moves with only one extra bar of pressure inside the pot.",
  "My grandmother always said the whistle was the cooker talking, and now I finally understand what it was saying.",
  "Could you write about why altitude makes cooking dal so slow? We spent a week in the hills and noticed it daily.",
  "The part about the seal made sense to me, although I wonder whether an older gasket leaks enough to matter.",
  "We measured the temperature with a probe through the vent and it read close to what your article predicts.",
  "Thanks for explaining it without any heavy equations; my daughter read it too and asked good questions.",
  "One thing I would add is that the valve weight sets the pressure, so a heavier weight means a hotter pot.",
];

/** The `i`th of many different long comments (about 2 KB). */
const longComment = (i: number) =>
  `Comment ${i}: ${Array.from({ length: 18 }, (_, j) => sentences[(i + j) % sentences.length]).join(" ")}`.slice(
    0,
    1990,
  );

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
  /** A reader of an address and network of its own, so that no rate limit is what a test meets. */
  let readers = 0;
  const reader = () => t.visitor({ ip: `10.46.${++readers}.1` });
  /**
   * A long comment's event on `postId`'s topic, as the journal holds it, and
   * `copies(count)`: that event `count` times more, each with a comment id of
   * its own, written straight into the journal (the `events` table). The
   * tests of large replays and slow readers are about what the stream does
   * with the journal's bytes, whatever wrote them; thousands of comments
   * through the API cost minutes of CPU.
   */
  const journalCopies = async (postId: string) => {
    const posted = await reader().comment(postId, longComment(0), "Reader");
    const { comment } = json(posted, commentResponseSchema);
    const [row] = await runSql(
      t,
      "select data from events where topic = ? and type = 'comment' order by id desc limit 1",
      [`science:${postId}`],
    );
    const template = JSON.parse(String(row?.data));
    expect(template.commentId).toBe(comment.id);
    let next = comment.id + 1_000_000;
    return async (count: number) => {
      for (let done = 0; done < count; done += 200) {
        const rows = Array.from({ length: Math.min(200, count - done) }, () => {
          next += 1;
          const data = { ...template, commentId: next, comment: { ...template.comment, id: next } };
          return [`science:${postId}`, "comment", JSON.stringify(data), new Date().toISOString()];
        });
        await runSql(
          t,
          `insert into events (topic, type, data, created_at) values ${rows.map(() => "(?, ?, ?, ?)").join(", ")}`,
          rows.flat(),
        );
      }
    };
  };

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
    const otherId = freshItem("mythology");
    const other = open(`mythology:${otherId}`);
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

    // An add that changes nothing sends nothing: the next change (a sentinel)
    // is the next event, and events arrive in order.
    await alex.react("mythology", id, "idea");
    await alex.react("mythology", id, "idea");
    await alex.react("mythology", id, "like");
    const sentinel = await watcher.nth("reaction", 3);
    expect(sentinel.json.counts).toEqual({ like: 1, love: 0, dislike: 0, idea: 1 });
    expect(watcher.events.filter((e) => e.event === "reaction")).toHaveLength(4);
    expect(watcher.events.filter((e) => e.event === "reaction")[2]!.data).toContain('"idea":1');

    // The other item's watcher got none of it: its own sentinel comes first.
    await alex.react("mythology", otherId, "like");
    expect((await other.next("reaction")).json.item.id).toBe(otherId);
    expect(other.events.filter((e) => e.event === "reaction")).toHaveLength(1);
  });

  it("sends comment additions, edits and deletions without private data", async () => {
    const postId = freshItem("science");
    const watcher = open(`science:${postId}`);
    await watcher.ready();
    const alex = t.visitor();
    const comments = (count: number) =>
      watcher.until((s) => {
        const found = s.events.filter((e) => e.event === "comment");
        return found.length === count ? found : undefined;
      }, 15_000);
    const { comment } = json(
      await alex.comment(postId, "<b>hello</b>", "Alex"),
      commentResponseSchema,
    );
    // Each event reaches the reader before the next change is made: an edit or
    // a deletion rewrites the journal's earlier events about the comment
    // (docs/product.md), so on PostgreSQL, where events are read back from the
    // journal, a reader slower than the change would read the addition as
    // already edited, or the edit as deleted.
    await comments(1);
    await alex.patch(`/api/comments/${comment.id}`, { content: "edited", userName: "Alex" });
    await comments(2);
    await alex.delete(`/api/comments/${comment.id}`);

    const events = await comments(3);
    const [added, updated, deleted] = events.map((e) => JSON.parse(e.data));
    const { mine: _mine, awaitingApproval: _held, ...publicComment } = comment;
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

  /**
   * A reader's stream back, ready, after it missed `count` long comments' events
   * on a new post (one through the API, the others its copies). The stream reads them all before it answers: given time on a
   * busy machine.
   */
  const backAfterLongComments = async (count: number) => {
    const postId = freshItem("science");
    const first = open(`science:${postId}`);
    const ready = await first.ready();
    first.close();
    const copies = await journalCopies(postId);
    await copies(count - 1);
    const back = open(`science:${postId}`, ready.id);
    await back.next("ready", 30_000);
    // The copies went straight into the journal, which the bus reads every second: a poll
    // after the stream opened sends them on live, after its ready. What the stream says
    // of its gap is what comes before the ready.
    const upToReady = back.events.slice(0, back.events.findIndex((e) => e.event === "ready") + 1);
    return { events: upToReady };
  };

  it("replays a large gap whole, though a reader that lets 1 MB go unread is dropped", async () => {
    // About 400 KB of comment events: under what a replay may be (512 KB),
    // written in one go, and none of it may be lost to the slow reader's drop.
    const count = 100;
    const back = await backAfterLongComments(count);
    const replayed = back.events.slice(0, -1);
    expect(back.events.at(-1)?.event).toBe("ready");
    expect(replayed.every((e) => e.event === "comment")).toBe(true);
    const bytes = replayed.reduce((sum, e) => sum + Buffer.byteLength(e.data), 0);
    expect(bytes).toBeGreaterThan(300 * 1024);
    const commentIds = new Set(replayed.map((e) => JSON.parse(e.data).commentId));
    expect(commentIds.size).toBe(count);
    const ids = replayed.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  }, 120_000);

  it("tells a client whose replay is larger than it may leave unread to resync", async () => {
    // About 2 MB of comments: written in one go, more than a client may leave
    // unread (1 MB), which dropped it before its ready, at every reconnection.
    const back = await backAfterLongComments(450);
    expect(back.events.map((e) => e.event)).toEqual(["resync", "ready"]);
  }, 120_000);

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

  it("frames each event for the HTTP version the client asked in, and none for HEAD", async () => {
    // Events skip the response and go straight to the socket, so the stream
    // frames them itself: one HTTP/1.1 chunk each, or bare bytes in HTTP/1.0;
    // an answer to HEAD has no body at all.
    await waitFor(async () => t.app.eventStreams.open === 0, { what: "no stream open" });
    const postId = freshItem("science");
    const received = new Map<string, string>();
    const sockets = ["GET HTTP/1.1", "GET HTTP/1.0", "HEAD HTTP/1.1"].map((request) => {
      const [method, version] = request.split(" ");
      received.set(request, "");
      const socket = net.connect(Number(new URL(baseUrl).port), "127.0.0.1", () => {
        socket.write(
          `${method} /api/events?topic=science:${postId} ${version}\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n`,
        );
      });
      socket.setEncoding("latin1").on("data", (chunk: string) => {
        received.set(request, `${received.get(request)}${chunk}`);
      });
      return socket;
    });
    try {
      const both = (text: string) => async () =>
        ["GET HTTP/1.1", "GET HTTP/1.0"].every((request) => received.get(request)!.includes(text));
      await waitFor(both("event: ready"), { what: "both streams ready" });
      await waitFor(async () => t.app.eventStreams.open === 3, { what: "the HEAD stream open" });
      const { comment } = json(
        await t.visitor().comment(postId, "framed", "Alex"),
        commentResponseSchema,
      );
      await waitFor(both(`"commentId":${comment.id}`), { what: "the comment on both streams" });

      const [head10 = "", body10 = ""] = received.get("GET HTTP/1.0")!.split("\r\n\r\n");
      expect(head10).not.toMatch(/transfer-encoding/i);
      const event = /id: \d+\nevent: comment\ndata: [^\n]*\n\n/.exec(body10)?.[0] ?? "";
      expect(JSON.parse(event.split("data: ")[1]!).comment.content).toBe("framed");
      expect(body10).not.toContain("\r\n");

      const whole11 = received.get("GET HTTP/1.1")!;
      expect(whole11.split("\r\n\r\n")[0]).toMatch(/\r\ntransfer-encoding: chunked/i);
      expect(whole11).toContain(`\r\n${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n`);

      expect(received.get("HEAD HTTP/1.1")).not.toMatch(/event:|data:/);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it("lets go of a client that disconnected, and goes on delivering to the others", async () => {
    // Streams of earlier tests may still be closing on the server's side.
    await waitFor(async () => t.app.eventStreams.open === 0, { what: "no stream open" });
    const postId = freshItem("science");
    const leaving = open(`science:${postId}`);
    const staying = open(`science:${postId}`);
    await Promise.all([leaving.ready(), staying.ready()]);
    expect(t.app.eventStreams.open).toBe(2);
    leaving.close();
    await waitFor(async () => t.app.eventStreams.open === 1, {
      what: "the server to release the closed stream",
    });
    await t.visitor().comment(postId, "after you left");
    expect(commentIn((await staying.next("comment")).json)?.content).toBe("after you left");
  });

  it("closes the connection of a client that stops reading, and frees its slot", async () => {
    await waitFor(async () => t.app.eventStreams.open === 0, { what: "no stream open" });
    const postId = freshItem("science");
    const copies = await journalCopies(postId);
    let received = "";
    let closed = false;
    const socket = net.connect(Number(new URL(baseUrl).port), "127.0.0.1", () => {
      socket.write(
        `GET /api/events?topic=science:${postId} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n`,
      );
    });
    socket.setEncoding("latin1").on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("close", () => {
      closed = true;
    });
    try {
      await waitFor(async () => received.includes("event: ready"), { what: "the stream ready" });
      // The reader stops reading: what the server sends piles up in the
      // sockets' buffers (several MB on loopback), then in the server's.
      socket.pause();
      // About 1 MB of events a round, written until the server lets the stream
      // go, or far beyond what it may leave unread; each round's comment through
      // the API has the server read the journal's copies before it.
      for (let round = 0; round < 24 && t.app.eventStreams.open > 0; round += 1) {
        await copies(250);
        const nudge = await reader().comment(postId, longComment(round + 1), `Reader ${round}`);
        expect(nudge.statusCode).toBe(201);
      }
      await waitFor(async () => t.app.eventStreams.open === 0, {
        what: "the server to let the slow reader go",
      });
      // Reading again, the client gets what the kernel still held, then the
      // end of the connection: a browser's EventSource reconnects.
      socket.resume();
      await waitFor(async () => closed, { what: "the connection closed", timeoutMs: 20_000 });
      expect(received).toContain("event: comment");
      // Its slot is free: the address opens a new stream.
      const again = open(`science:${postId}`);
      await again.ready();
      expect(t.app.eventStreams.open).toBe(1);
    } finally {
      socket.destroy();
    }
  }, 180_000);

  // Once, on SQLite: refused by the schema or the catalogue before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
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
        const { error }: ErrorResponse = await response.json();
        expect(error.code).toBe(code);
      });
    });
  }
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
});

describe("stream slots", () => {
  let t: TestApp;
  let baseUrl: string;
  const logs = capturedLogs("info");
  const streams: EventStream[] = [];
  const open = (options: { localAddress?: string; cookie?: string; from?: string } = {}) => {
    const stream = new EventStream(baseUrl, "science:wifi", undefined, {
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      headers: {
        ...(options.cookie ? { cookie: options.cookie } : {}),
        // The reader's address as the proxy in front (trusted on loopback) passes it on.
        ...(options.from ? { "x-forwarded-for": options.from } : {}),
      },
    });
    streams.push(stream);
    return stream;
  };
  const refusedStream = async (headers: Record<string, string> = {}) =>
    fetch(`${baseUrl}/api/events?topic=science:wifi`, { headers });

  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      env: {
        EVENT_STREAMS_MAX: "5",
        EVENT_STREAMS_PER_IP: "3",
        EVENT_STREAMS_PER_NETWORK: "4",
        EVENT_STREAMS_PER_VISITOR: "1",
        TRUST_PROXY: "loopback",
      },
      logger: logs.logger,
    });
    baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await waitFor(async () => t.app.eventStreams.open === 0, { what: "every stream closed" });
  });
  afterAll(() => t?.close());

  it("one address filling its share does not lock out another client", async () => {
    await Promise.all([open(), open(), open()].map((s) => s.ready()));
    const refused = await refusedStream();
    expect(refused.status).toBe(429);
    const { error }: ErrorResponse = await refused.json();
    expect(error).toEqual({
      code: "rate_limited",
      message:
        "Too many live-update streams open from this address; close some pages and try again.",
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);

    const other = open({ localAddress: "127.0.0.2" });
    await other.ready();
    expect(other.status).toBe(200);
  });

  it("one IPv6 network filling its share from many addresses does not lock out another network", async () => {
    // A /48 holds 65,536 /64s, each counted as one address: the network is counted too.
    const network = ["2001:db8:1:1::1", "2001:db8:1:1::2", "2001:db8:1:2::1", "2001:db8:1:3::1"];
    await Promise.all(network.map((from) => open({ from }).ready()));
    const refused = await refusedStream({ "x-forwarded-for": "2001:db8:1:4::1" });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as ErrorResponse).error.message).toBe(
      "Too many live-update streams open from this network; close some pages and try again.",
    );
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);

    const other = open({ from: "2001:db8:2::1" });
    await other.ready();
    expect(other.status).toBe(200);
  });

  it("one visitor filling its share does not lock out another visitor on the same address", async () => {
    const alex = t.visitor();
    await alex.react("science", "wifi", "like");
    await open({ cookie: alex.cookie! }).ready();
    const refused = await refusedStream({ cookie: alex.cookie! });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as ErrorResponse).error.message).toBe(
      "Too many live-update streams open in this browser; close some pages and try again.",
    );
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);

    const sam = t.visitor();
    await sam.react("science", "wifi", "idea");
    expect((await open({ cookie: sam.cookie! }).ready()).event).toBe("ready");
  });

  it("bounds how often one address or one IPv6 network opens streams, with Retry-After", async () => {
    // Each opening may read a replay: six a minute for every stream one may
    // hold (3 for an address, 4 for a network here), then 429 until the minute is over.
    const openAndClose = async (froms: string[]) => {
      await Promise.all(froms.map((from) => open({ from }).ready()));
      for (const stream of streams.splice(0)) stream.close();
      await waitFor(async () => t.app.eventStreams.open === 0, { what: "every stream closed" });
    };
    const refusal = async (from: string) => {
      const refused = await refusedStream({ "x-forwarded-for": from });
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      return ((await refused.json()) as ErrorResponse).error.message;
    };
    for (let round = 0; round < 6; round += 1) {
      await openAndClose(["203.0.113.7", "203.0.113.7", "203.0.113.7"]);
    }
    expect(await refusal("203.0.113.7")).toMatch(
      /^Too many live-update streams opened from this address in the last minute; try again in \d+ s\.$/,
    );
    await open({ from: "203.0.113.8" }).ready();

    for (let round = 0; round < 6; round += 1) {
      await openAndClose([1, 2, 3, 4].map((n) => `2001:db8:5:${round * 4 + n}::1`));
    }
    expect(await refusal("2001:db8:5:99::1")).toMatch(
      /opened from this network in the last minute/,
    );
    await open({ from: "2001:db8:6::1" }).ready();

    // An address refused its own openings spends none of its network's.
    for (let round = 0; round < 6; round += 1) {
      await openAndClose(["2001:db8:7:1::1", "2001:db8:7:1::1", "2001:db8:7:1::1"]);
    }
    for (let tries = 0; tries < 6; tries += 1) {
      expect(await refusal("2001:db8:7:1::1")).toMatch(/from this address/);
    }
    await open({ from: "2001:db8:7:2::1" }).ready();
  });

  it("answers 503 with Retry-After once the instance is full, and logs it as a warning", async () => {
    const clients = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"];
    await Promise.all(clients.map((localAddress) => open({ localAddress }).ready()));
    expect(t.app.eventStreams.open).toBe(5);
    const refused = await refusedStream();
    expect(refused.status).toBe(503);
    const { error }: ErrorResponse = await refused.json();
    expect(error.code).toBe("service_unavailable");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);

    const refusals = logs.lines.filter((line) => line.msg === "request refused");
    expect(refusals.map((line) => [line.level, line.status])).toContainEqual([40, 503]);
    expect(logs.lines.filter((line) => (line.level ?? 0) >= 50)).toEqual([]);
    expect(logs.lines.filter((line) => JSON.stringify(line).includes("stack"))).toEqual([]);
  });
});
