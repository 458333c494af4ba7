import { isDeepStrictEqual } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  commentsResponseSchema,
  errorResponseSchema,
  reactionsResponseSchema,
} from "../../contract/api.ts";
import { yourDataResponseSchema } from "../../contract/your-data.ts";
import { EventStream } from "../support/event-stream.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  freshItem,
  json,
  siteUrl,
  startTestApp,
  type TestApp,
  type Visitor,
} from "./support/test-app.ts";

const none = { like: 0, love: 0, dislike: 0, idea: 0 };

describe.each(backends)("your data on %s", (backend) => {
  let t: TestApp;
  let baseUrl: string;
  const streams: EventStream[] = [];

  beforeAll(async () => {
    t = await startTestApp(backend, { heartbeatMs: 200 });
    baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(() => t?.close());

  const download = async (visitor: Visitor) => {
    const response = await visitor.get("/api/your-data");
    expect(response.statusCode).toBe(200);
    return json(response, yourDataResponseSchema);
  };
  const confirmDelete = (visitor: Visitor) =>
    visitor.post("/api/your-data/delete", { confirm: true });

  /** Two readers, Alex and Sam (who also calls himself Alex), on the same items. */
  async function twoReaders() {
    const post = freshItem("science");
    const story = freshItem("mythology");
    const alex = t.visitor();
    const sam = t.visitor();
    await alex.comment(post, "Alex's first comment");
    await sam.comment(post, "Sam writing as Alex", "Alex");
    await alex.comment(post, "Alex's second comment", "Alexandra");
    await alex.react("science", post, "like");
    await alex.react("mythology", story, "love");
    await sam.react("science", post, "like", "Sam");
    await sam.react("mythology", story, "idea", "Sam");
    return { post, story, alex, sam };
  }

  it("downloads exactly the visitor's own comments and reactions, as a file to save", async () => {
    const { post, story, alex } = await twoReaders();
    const response = await alex.get("/api/your-data");
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.headers["content-disposition"]).toMatch(
      /^attachment; filename="engage-with-engineer-your-data-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    expect(response.headers["cache-control"]).toBe("no-store");
    const data = json(response, yourDataResponseSchema);
    expect(data.site).toBe(siteUrl);
    expect(data.visitorCookie).toBe(true);
    expect(Date.parse(data.exportedAt)).not.toBeNaN();
    expect(data.comments).toEqual([
      expect.objectContaining({
        postId: post,
        url: `${siteUrl}/science#${post}`,
        content: "Alex's first comment",
        userName: "Alex",
      }),
      expect.objectContaining({
        postId: post,
        content: "Alex's second comment",
        userName: "Alexandra",
      }),
    ]);
    for (const comment of data.comments) {
      expect(comment.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(comment.updatedAt).toBe(comment.createdAt);
    }
    expect(
      data.reactions.map(({ kind, itemId, type, userName, url }) => ({
        kind,
        itemId,
        type,
        userName,
        url,
      })),
    ).toEqual(
      expect.arrayContaining([
        {
          kind: "science",
          itemId: post,
          type: "like",
          userName: "Alex",
          url: `${siteUrl}/science#${post}`,
        },
        {
          kind: "mythology",
          itemId: story,
          type: "love",
          userName: "Alex",
          url: `${siteUrl}/mythology#${story}`,
        },
      ]),
    );
    expect(data.reactions).toHaveLength(2);
    // Nothing that identifies a browser leaves the server.
    expect(response.body).not.toMatch(/visitor_?id/i);
    expect(alex.cookie).toBeDefined();
    expect(response.body).not.toContain(alex.cookie!.split("=")[1]!.split(".")[0]);
  });

  it("deletes exactly the visitor's own comments and reactions", async () => {
    const { post, story, alex, sam } = await twoReaders();
    const response = await confirmDelete(alex);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({
      deleted: { comments: 2, reactions: 2, replyAddresses: 0, bookings: 0 },
    });

    const comments = json(
      await t.visitor().get(`/api/items/science/${post}/comments`),
      commentsResponseSchema,
    ).comments;
    expect(comments.map((comment) => comment.content)).toEqual(["Sam writing as Alex"]);
    expect(json(await sam.get(`/api/items/science/${post}/reactions`))).toEqual({
      counts: { ...none, like: 1 },
      mine: ["like"],
    });
    expect(json(await sam.get(`/api/items/mythology/${story}/reactions`))).toEqual({
      counts: { ...none, idea: 1 },
      mine: ["idea"],
    });

    const after = await download(alex);
    expect(after).toMatchObject({ visitorCookie: true, comments: [], reactions: [] });
    const samsData = await download(sam);
    expect(samsData.comments).toHaveLength(1);
    expect(samsData.reactions).toHaveLength(2);

    // Again: nothing left, nothing else touched.
    expect(json(await confirmDelete(alex))).toEqual({
      deleted: { comments: 0, reactions: 0, replyAddresses: 0, bookings: 0 },
    });
    expect((await download(sam)).reactions).toHaveLength(2);
  });

  it("tells every open page live, as a deletion of their own would", async () => {
    const { post, story, alex } = await twoReaders();
    const postStream = new EventStream(baseUrl, `science:${post}`);
    const storyStream = new EventStream(baseUrl, `mythology:${story}`);
    streams.push(postStream, storyStream);
    await Promise.all([postStream.ready(), storyStream.ready()]);
    const [first, second] = (await download(alex)).comments;

    await confirmDelete(alex);
    for (const { id } of [first!, second!]) {
      await postStream.find(
        "comment",
        (data) => data.action === "deleted" && data.commentId === id,
      );
    }
    const counts = (expected: object) => (data: { counts: object }) =>
      isDeepStrictEqual(data.counts, expected);
    await postStream.find("reaction", counts({ ...none, like: 1 }));
    await storyStream.find("reaction", counts({ ...none, idea: 1 }));
  });

  it("answers a browser without a visitor cookie with nothing, and gives it none", async () => {
    await twoReaders();
    const stranger = t.visitor();
    const response = await stranger.get("/api/your-data");
    expect(response.statusCode).toBe(200);
    expect(json(response)).toMatchObject({ visitorCookie: false, comments: [], reactions: [] });
    const deletion = await confirmDelete(stranger);
    expect(deletion.statusCode).toBe(200);
    expect(json(deletion)).toEqual({
      deleted: { comments: 0, reactions: 0, replyAddresses: 0, bookings: 0 },
    });
    expect(stranger.cookie).toBeUndefined();
  });

  it("treats a forged or altered cookie as no cookie", async () => {
    const { alex } = await twoReaders();
    const [name, signed] = alex.cookie!.split("=") as [string, string];
    const [id] = signed.split(".");
    for (const cookie of [`${name}=${id}`, `${name}=${id}.forged-signature`]) {
      const response = await t.app.inject({
        method: "GET",
        url: "/api/your-data",
        headers: { cookie },
      });
      expect(json(response)).toMatchObject({ visitorCookie: false, comments: [], reactions: [] });
      const deletion = await t.app.inject({
        method: "POST",
        url: "/api/your-data/delete",
        headers: { cookie, origin: siteUrl },
        payload: { confirm: true },
      });
      expect(json(deletion)).toEqual({
        deleted: { comments: 0, reactions: 0, replyAddresses: 0, bookings: 0 },
      });
    }
    expect((await download(alex)).comments).toHaveLength(2);
  });

  it("refuses a deletion from another site, or without the confirmation, and deletes nothing", async () => {
    const { alex } = await twoReaders();
    const cases = [
      { headers: { origin: "https://evil.example" }, payload: { confirm: true }, status: 403 },
      { headers: { origin: "null" }, payload: { confirm: true }, status: 403 },
      { headers: {}, payload: { confirm: true }, status: 403 },
      { headers: { origin: siteUrl }, payload: {}, status: 400 },
      { headers: { origin: siteUrl }, payload: { confirm: "yes" }, status: 400 },
      { headers: { origin: siteUrl }, payload: { confirm: true, also: 1 }, status: 400 },
    ];
    for (const { headers, payload, status } of cases) {
      const response = await t.app.inject({
        method: "POST",
        url: "/api/your-data/delete",
        headers: { cookie: alex.cookie!, ...headers },
        payload,
      });
      expect(response.statusCode, JSON.stringify({ headers, payload })).toBe(status);
      expect(json(response, errorResponseSchema).error.code).toBe(
        status === 403 ? "cross_origin" : "validation_failed",
      );
    }
    const noBody = await t.app.inject({
      method: "POST",
      url: "/api/your-data/delete",
      headers: { cookie: alex.cookie!, origin: siteUrl },
    });
    expect(noBody.statusCode).toBe(400);
    // A cross-site form, the classic forgery, is refused before it is read.
    const forgedForm = await t.app.inject({
      method: "POST",
      url: "/api/your-data/delete-form",
      headers: {
        cookie: alex.cookie!,
        origin: "https://evil.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      payload: "confirm=delete-everything",
    });
    expect(forgedForm.statusCode).toBe(403);
    expect(json(forgedForm, errorResponseSchema).error.code).toBe("cross_origin");

    const data = await download(alex);
    expect(data.comments).toHaveLength(2);
    expect(data.reactions).toHaveLength(2);
  });

  /**
   * The database refuses to delete reactions, after the comments went: on
   * PostgreSQL as a full disk does, on SQLite as a refused statement.
   */
  async function whileReactionsRefused<T>(during: () => Promise<T>): Promise<T> {
    const [refuse, allow] =
      backend === "postgres"
        ? [
            `create function refuse_reaction() returns trigger language plpgsql as $$ begin raise exception 'full' using errcode = 'disk_full'; end $$;
              create trigger refuse_reaction before delete on science_reactions for each row execute function refuse_reaction()`,
            "drop trigger refuse_reaction on science_reactions; drop function refuse_reaction()",
          ]
        : [
            "create trigger refuse_reaction before delete on science_reactions begin select raise(abort, 'refused'); end",
            "drop trigger refuse_reaction",
          ];
    await runSql(t, refuse);
    try {
      return await during();
    } finally {
      await runSql(t, allow);
    }
  }
  const partMessage = "Part of it may be done already; doing it again finishes it.";

  it("a deletion that fails part way says so, not that nothing was saved; done again, it finishes", async () => {
    const { post, alex } = await twoReaders();
    const failed = await whileReactionsRefused(() => confirmDelete(alex));
    expect(json(failed, errorResponseSchema).error).toEqual(
      backend === "postgres"
        ? {
            code: "service_unavailable",
            message: `The site cannot save anything right now; try again in a few minutes. ${partMessage}`,
          }
        : { code: "internal_error", message: `Something went wrong on our side. ${partMessage}` },
    );
    expect(failed.statusCode).toBe(backend === "postgres" ? 503 : 500);
    // True: the comments went, the reactions did not.
    expect(await download(alex)).toMatchObject({ comments: [], reactions: [{}, {}] });
    expect(json(await confirmDelete(alex))).toEqual({
      deleted: { comments: 0, reactions: 2, replyAddresses: 0, bookings: 0 },
    });
    const reactions = await t.visitor().get(`/api/items/science/${post}/reactions`);
    expect(json(reactions, reactionsResponseSchema).counts).toEqual({ ...none, like: 1 });
  });

  describe("the form without JavaScript", () => {
    const postForm = (visitor: Visitor, payload: string, contentType?: string) =>
      t.app.inject({
        method: "POST",
        url: "/api/your-data/delete-form",
        headers: {
          origin: siteUrl,
          ...(visitor.cookie ? { cookie: visitor.cookie } : {}),
          "content-type": contentType ?? "application/x-www-form-urlencoded",
        },
        payload,
      });

    it("deletes everything and leads to a page that says so", async () => {
      const { post, alex } = await twoReaders();
      const response = await postForm(alex, "confirm=delete-everything");
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe("/your-data/deleted");
      expect(await download(alex)).toMatchObject({ comments: [], reactions: [] });
      const left = json(
        await t.visitor().get(`/api/items/science/${post}/comments`),
        commentsResponseSchema,
      ).comments;
      expect(left).toHaveLength(1);

      const again = await postForm(alex, "confirm=delete-everything");
      expect(again.headers.location).toBe("/your-data/nothing");
      const stranger = t.visitor();
      expect((await postForm(stranger, "confirm=delete-everything")).headers.location).toBe(
        "/your-data/nothing",
      );
      expect(stranger.cookie).toBeUndefined();
    });

    it.runIf(backend === "postgres")(
      "on a full disk part way, leads to a page that does not say that nothing was saved",
      async () => {
        const { alex } = await twoReaders();
        const failed = await whileReactionsRefused(() =>
          postForm(alex, "confirm=delete-everything"),
        );
        expect(failed.statusCode).toBe(503);
        expect(failed.body).toContain(partMessage);
        expect(failed.body).toContain("<h1>Please try again shortly</h1>");
        expect(failed.body).not.toContain("Nothing was saved");
        expect(await download(alex)).toMatchObject({ comments: [], reactions: [{}, {}] });
      },
    );

    it("refuses a form that was not confirmed, or is not a form", async () => {
      const { alex } = await twoReaders();
      for (const [payload, type, status] of [
        ["", undefined, 400],
        ["confirm=yes", undefined, 400],
        ['{"confirm":"delete-everything"}', "text/plain", 415],
      ] as const) {
        expect((await postForm(alex, payload, type)).statusCode).toBe(status);
      }
      expect((await download(alex)).comments).toHaveLength(2);
    });
  });
});

describe("your data under the rate limit", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      env: { RATE_LIMIT_WRITES_PER_VISITOR: "2", RATE_LIMIT_WRITES_PER_IP: "1000" },
    });
  });
  afterAll(() => t?.close());

  it("counts downloads against the visitor's allowance, and a limited form leads to a page", async () => {
    const alex = t.visitor();
    await alex.comment(freshItem("science"), "hello");
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await alex.get("/api/your-data")).statusCode);
    expect(statuses).toEqual([200, 200, 429]);

    // The comment was the visitor's first write, counted by IP only: two more form posts fit.
    const pages: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await t.app.inject({
        method: "POST",
        url: "/api/your-data/delete-form",
        headers: {
          origin: siteUrl,
          cookie: alex.cookie!,
          "content-type": "application/x-www-form-urlencoded",
        },
        payload: "confirm=delete-everything",
      });
      expect(response.statusCode).toBe(303);
      pages.push(String(response.headers.location));
    }
    expect(pages).toEqual(["/your-data/deleted", "/your-data/nothing", "/your-data/later"]);
  });
});
