import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { readOwnerProfile } from "../../content/owner.ts";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import { fakeBuiltSite } from "../support/built-site.ts";
import { EventStream } from "../support/event-stream.ts";
import { createDatabase, dropDatabase } from "../support/postgres.ts";
import { type ServerProcess, startServerProcess } from "../support/server-process.ts";
import { httpVisitor } from "../support/visitor.ts";
import { admin } from "./support/admin.ts";
import { json } from "./support/test-app.ts";

/*
 * docs/postgresql.md's several instances, for real: two `node server/main.ts`
 * processes in production mode on one PostgreSQL, sharing COOKIE_SECRET, as
 * behind a load balancer. (multi-instance.test.ts covers the same paths with
 * two apps in one process, including a listener that loses its connection.)
 */
const siteUrl = "http://localhost:8080";
/** A browser that first reaches `server`; a full URL sends it to the other instance. */
const visitor = (server: ServerProcess) => httpVisitor(server.url, { origin: siteUrl });

describe("two server processes on one PostgreSQL", () => {
  const password = "pg-password-never-logged";
  let databaseUrl: string;
  let a: ServerProcess;
  let b: ServerProcess;
  const streams: EventStream[] = [];
  const watch = async (server: ServerProcess, topic: string) => {
    const stream = new EventStream(server.url, topic);
    streams.push(stream);
    await stream.ready();
    return stream;
  };

  beforeAll(async () => {
    // The test cluster trusts loopback, so the password is carried but never checked.
    const url = new URL(await createDatabase(inject("postgresUrl")));
    url.password = password;
    databaseUrl = url.toString();
    const env = {
      NODE_ENV: "production",
      SITE_URL: siteUrl,
      CONTACT_EMAIL: "owner@example.com",
      // Nothing is mailed in this test; the setting is required in production.
      SMTP_URL: "smtp://127.0.0.1:9",
      MAIL_FROM: "news@example.com",
      // The repository's owner profile is the sample, which production runs under its own name
      // (under another, its engineer's first-person stories would be refused).
      SITE_OWNER_NAME: readOwnerProfile().name,
      DATABASE_URL: databaseUrl,
      COOKIE_SECRET: randomBytes(32).toString("hex"),
      CLIENT_ROOT: fakeBuiltSite(),
      TRUST_PROXY: "1",
    };
    [a, b] = await Promise.all([startServerProcess({ env }), startServerProcess({ env })]);
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    if (databaseUrl) await dropDatabase(databaseUrl);
  });

  it("are both ready, on PostgreSQL and listening", async () => {
    for (const server of [a, b]) {
      const ready = await fetch(`${server.url}/readyz`);
      expect(await ready.json()).toEqual({
        status: "ready",
        database: "postgres",
        liveEvents: "listening",
      });
    }
  });

  it("carry writes and live events across: a comment on A reaches B's stream, a reaction on B A's", async () => {
    const onA = await watch(a, "science:wifi");
    const onB = await watch(b, "science:wifi");

    const posted = await visitor(a).comment("wifi", "written through A");
    expect(posted.statusCode).toBe(201);
    const seenOnB = await onB.next("comment");
    expect(seenOnB.json).toMatchObject({
      action: "added",
      comment: { content: "written through A" },
    });

    expect((await visitor(b).react("science", "wifi", "love")).statusCode).toBe(201);
    expect((await onA.next("reaction")).json.counts.love).toBe(1);
    // One journal, one numbering: both instances sent the comment under the same id.
    expect((await onA.next("comment")).id).toBe(seenOnB.id);

    const readOnB = await visitor(b).get("/api/items/science/wifi/comments");
    expect(json(readOnB, commentsResponseSchema).comments).toMatchObject([
      { content: "written through A", mine: false },
    ]);
  });

  it("recognise a visitor on either: written through A, edited and deleted through B", async () => {
    const meera = visitor(a);
    const onA = await watch(a, "science:soap");
    const id = json(await meera.comment("soap", "first draft", "Meera"), commentResponseSchema)
      .comment.id;

    const edited = await meera.patch(`${b.url}/api/comments/${id}`, {
      content: "second draft",
      userName: "Meera",
    });
    expect(edited.statusCode).toBe(200);
    expect(json(edited, commentResponseSchema).comment).toMatchObject({
      content: "second draft",
      mine: true,
    });
    expect((await onA.nth("comment", 1)).json).toMatchObject({ action: "updated" });

    expect((await meera.delete(`${b.url}/api/comments/${id}`)).statusCode).toBe(204);
    expect((await onA.nth("comment", 2)).json).toMatchObject({ action: "deleted", commentId: id });
  });

  it("both tell their viewers of a comment the owner deletes from the command line", async () => {
    const id = json(await visitor(b).comment("ironing", "to be moderated"), commentResponseSchema)
      .comment.id;
    const onA = await watch(a, "science:ironing");
    const onB = await watch(b, "science:ironing");

    const run = await admin({ DATABASE_URL: databaseUrl }, "comments", "delete", String(id));
    expect(run.code).toBe(0);
    for (const stream of [onA, onB]) {
      // Every comment event names "deleted" (a comment's own flag): read the action.
      const deleted = await stream.until((s) =>
        s.events.find((e) => e.event === "comment" && JSON.parse(e.data).action === "deleted"),
      );
      expect(JSON.parse(deleted.data)).toMatchObject({ action: "deleted", commentId: id });
    }
  });

  it("keep the database password out of their logs", () => {
    for (const server of [a, b]) {
      expect(server.logs.length).toBeGreaterThan(0);
      expect(server.output()).not.toContain(password);
    }
  });
});
