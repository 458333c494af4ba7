import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema, errorResponseSchema } from "../../contract/api.ts";
import { consoleCommentsResponseSchema } from "../../contract/console.ts";
import { deleteYourDataResponseSchema, yourDataResponseSchema } from "../../contract/your-data.ts";
import { fakeSciencePage } from "../support/built-site.ts";
import { EventStream } from "../support/event-stream.ts";
import { admin, adminEnv } from "./support/admin.ts";
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
 * Replies, one level deep (docs/product.md, "Replies"): under their thread,
 * oldest first, counted with the comments, live with their parent, held like
 * comments, and a deleted comment with replies keeps its place.
 */

type Listed = {
  id: number;
  content: string;
  parentId: number | null;
  deleted: boolean;
  held?: true;
  userName: string;
  html: string;
};

/** The list as the visitor's page shows it. */
const listOf = async (visitor: Visitor, postId: string) =>
  seen(await visitor.get(`/api/items/science/${postId}/comments`)) as {
    comments: Listed[];
    total: number;
  };

describe.each(backends)("replies on %s", (backend) => {
  let t: TestApp;
  // How far the site's clock runs ahead of the machine's: moved on for an edit made later.
  let ahead = 0;
  let baseUrl: string;
  const streams: EventStream[] = [];
  beforeAll(async () => {
    t = await startTestApp(backend, {
      clientFiles: { "science/index.html": fakeSciencePage },
      clock: () => new Date(Date.now() + ahead),
    });
    baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(() => t?.close());

  /** Asha's question and Ravi's answer, then her question edited into a link: held again. */
  async function answeredThenHeldAgain() {
    const postId = freshItem("science");
    const asker = t.visitor();
    const { comment: question } = json(
      await asker.comment(postId, "Why does steel feel colder than wood?", "Asha"),
      commentResponseSchema,
    );
    const { comment: answer } = json(
      await t.visitor().reply(postId, question.id, "Steel conducts heat away faster.", "Ravi"),
      commentResponseSchema,
    );
    // Edited into a link from a browser the site does not trust yet: held again.
    const edited = await asker.patch(`/api/comments/${question.id}`, {
      content: "My build log is at https://gokart-log.in/build",
      userName: "Asha",
    });
    expect(json(edited, commentResponseSchema).comment.awaitingApproval).toBe(true);
    return { postId, asker, question, answer };
  }

  it("puts a reply under its comment, live with its parent, counted, in the served page and its JSON-LD", async () => {
    const postId = "soap";
    const asker = t.visitor();
    const answerer = t.visitor();
    const stream = new EventStream(baseUrl, `science:${postId}`);
    streams.push(stream);
    await stream.ready();
    const { comment: question } = json(
      await asker.comment(postId, "Why does soap foam?", "Asha"),
      commentResponseSchema,
    );
    const { comment: other } = json(
      await t.visitor().comment(postId, "Nice post", "Ravi"),
      commentResponseSchema,
    );
    const response = await answerer.reply(postId, question.id, "Surfactants trap air.", "Meera");
    expect(response.statusCode).toBe(201);
    const { comment: answer } = json(response, commentResponseSchema);
    expect(answer).toMatchObject({ parentId: question.id, deleted: false, mine: true });
    // A reply to a reply joins the same thread.
    const { comment: again } = json(
      await asker.reply(postId, answer.id, "@Meera Thank you!", "Asha"),
      commentResponseSchema,
    );
    expect(again.parentId).toBe(question.id);

    const added = await stream.find("comment", (e) => e.commentId === answer.id);
    expect(added.json).toMatchObject({
      action: "added",
      comment: { parentId: question.id, content: "Surfactants trap air." },
    });

    const list = await listOf(t.visitor(), postId);
    expect(list.total).toBe(4);
    expect(list.comments.map((c) => [c.id, c.parentId])).toEqual([
      [question.id, null],
      [answer.id, question.id],
      [again.id, question.id],
      [other.id, null],
    ]);

    const page = (await t.app.inject({ method: "GET", url: "/science" })).body;
    expect(page).toContain("4 comments");
    const served = page.slice(page.indexOf('class="static-comments'));
    const thread = served.slice(served.indexOf("Why does soap foam?"), served.indexOf("Nice post"));
    expect(thread).toMatch(
      /<ul[^>]*class="comment-replies[^"]*"[^>]*>.*Surfactants trap air\..*Thank you!/s,
    );
    const jsonLd = JSON.parse(
      /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(page)?.[1] ?? "{}",
    );
    const soap = jsonLd["@graph"].find((node: { headline?: string }) =>
      node.headline?.startsWith("How does soap clean"),
    );
    expect(soap.commentCount).toBe(4);
    const questionLd = soap.comment.find((c: { text: string }) => c.text === "Why does soap foam?");
    expect(questionLd.comment).toEqual([
      expect.objectContaining({ "@type": "Comment", text: "Surfactants trap air." }),
      expect.objectContaining({ "@type": "Comment", text: "@Meera Thank you!" }),
    ]);
    expect(questionLd.comment[0].parentItem).toMatchObject({ "@type": "Comment" });
  });

  it("marks an edited comment or reply as edited, in answers and in the served page", async () => {
    const postId = "wifi";
    const writer = t.visitor();
    const { comment } = json(
      await writer.comment(postId, "Two bands, one router", "Asha"),
      commentResponseSchema,
    );
    const { comment: reply } = json(
      await t.visitor().reply(postId, comment.id, "And 6 GHz", "Ravi"),
      commentResponseSchema,
    );
    const before = (await t.app.inject({ method: "GET", url: "/science" })).body;
    expect(before.slice(before.lastIndexOf('class="static-comments'))).not.toContain("· edited");
    ahead += 60_000;
    const edited = json(
      await writer.patch(`/api/comments/${comment.id}`, {
        content:
          "Two bands, one router: the 2.4 GHz band reaches the kitchen, the 5 GHz one does not.",
        userName: "Asha",
      }),
      commentResponseSchema,
    ).comment;
    expect(edited.updatedAt > edited.createdAt).toBe(true);
    const page = (await t.app.inject({ method: "GET", url: "/science" })).body;
    // Wi-Fi's card is the page's last.
    const thread = page.slice(page.lastIndexOf('class="static-comments'));
    const edit = thread.slice(thread.indexOf("Asha"), thread.indexOf("Two bands"));
    expect(edit).toContain("· edited");
    const replied = thread.slice(thread.indexOf("Ravi"), thread.indexOf("And 6 GHz"));
    expect(replied).not.toContain("· edited");
    expect(reply.updatedAt).toBe(reply.createdAt);
  });

  it("refuses a reply to a missing, deleted or other post's comment, changing nothing", async () => {
    const postId = freshItem("science");
    const elsewhere = freshItem("science");
    const writer = t.visitor();
    const { comment } = json(
      await writer.comment(postId, "A question", "Asha"),
      commentResponseSchema,
    );
    const { comment: gone } = json(
      await writer.comment(postId, "Soon gone", "Asha"),
      commentResponseSchema,
    );
    await writer.delete(`/api/comments/${gone.id}`);
    for (const [parentId, status] of [
      [999_999, 404],
      [gone.id, 404],
    ] as const) {
      const response = await t.visitor().reply(postId, parentId, "An answer", "Ravi");
      expect(response.statusCode).toBe(status);
      expect(json(response, errorResponseSchema).error.code).toBe("not_found");
    }
    const other = await t.visitor().reply(elsewhere, comment.id, "An answer", "Ravi");
    expect(other.statusCode).toBe(400);
    expect(json(other, errorResponseSchema).error.code).toBe("validation_failed");
    expect((await listOf(t.visitor(), postId)).comments.map((c) => c.id)).toEqual([comment.id]);
    expect((await listOf(t.visitor(), elsewhere)).total).toBe(0);
  });

  it("leaves 'Comment deleted' in the place of a deleted comment with replies, and removes it with its last reply", async () => {
    const postId = freshItem("science");
    const asker = t.visitor();
    const answerer = t.visitor();
    const { comment: question } = json(
      await asker.comment(postId, "Secret question", "Asha"),
      commentResponseSchema,
    );
    const { comment: answer } = json(
      await answerer.reply(postId, question.id, "An answer", "Ravi"),
      commentResponseSchema,
    );
    expect((await asker.delete(`/api/comments/${question.id}`)).statusCode).toBe(204);

    const list = await listOf(t.visitor(), postId);
    expect(list.total).toBe(1);
    expect(list.comments).toEqual([
      expect.objectContaining({
        id: question.id,
        deleted: true,
        content: "",
        html: "",
        userName: "",
      }),
      expect.objectContaining({ id: answer.id, parentId: question.id }),
    ]);
    const data = json(await asker.get("/api/your-data"));
    expect(JSON.stringify(data)).not.toContain("Secret question");
    // Nobody can reply to, edit or delete the place again.
    expect((await t.visitor().reply(postId, question.id, "More", "Ravi")).statusCode).toBe(404);
    expect(
      (await asker.patch(`/api/comments/${question.id}`, { content: "x", userName: "Asha" }))
        .statusCode,
    ).toBe(404);

    expect((await answerer.delete(`/api/comments/${answer.id}`)).statusCode).toBe(204);
    expect(await listOf(t.visitor(), postId)).toMatchObject({ comments: [], total: 0 });
  });

  it("deletes a writer's comments together by the rules of one: places kept, emptied places gone, every event and the journal as for one", async () => {
    const postId = freshItem("science");
    const asha = t.visitor();
    const ravi = t.visitor();
    const write = async (visitor: Visitor, content: string, name: string, parent?: number) =>
      json(
        await (parent === undefined
          ? visitor.comment(postId, content, name)
          : visitor.reply(postId, parent, content, name)),
        commentResponseSchema,
      ).comment.id;
    const ravis = await write(ravi, "Ravi's question", "Ravi");
    const kept = await write(asha, "Asha's answered question", "Asha");
    const answer = await write(ravi, "Ravi's answer", "Ravi", kept);
    const lone = await write(asha, "Asha's lone question", "Asha");
    const own = await write(asha, "Asha answers herself", "Asha", lone);
    const last = await write(asha, "Asha's last reply to Ravi", "Asha", ravis);
    // Ravi's question keeps its place for Asha's reply alone.
    expect((await ravi.delete(`/api/comments/${ravis}`)).statusCode).toBe(204);
    const before = await runSql(t, "select max(id) as id from events");

    const removed = json(
      await asha.post("/api/your-data/delete", { confirm: true }),
      deleteYourDataResponseSchema,
    );
    expect(removed.deleted.comments).toBe(5);
    const list = await listOf(t.visitor(), postId);
    expect(list.comments.map((c) => [c.id, c.deleted, c.content, c.userName])).toEqual([
      [kept, true, "", ""],
      [answer, false, "Ravi's answer", "Ravi"],
    ]);
    // One event each, in the order of the comments, the emptied place's last.
    const events = (
      await runSql(t, "select topic, data from events where id > ? order by id", [
        Number(before[0]?.id),
      ])
    ).map((row) => [row.topic, JSON.parse(String(row.data))]);
    const topic = `science:${postId}`;
    expect(events.map(([at, data]) => [at, data.action, data.commentId])).toEqual([
      [topic, "updated", kept],
      [topic, "deleted", lone],
      [topic, "deleted", own],
      [topic, "deleted", last],
      [topic, "deleted", ravis],
    ]);
    expect(events[0]?.[1].comment).toMatchObject({ id: kept, deleted: true, content: "" });
    const journal = await runSql(t, "select data from events where topic = ?", [topic]);
    expect(journal.filter((row) => /Asha|Ravi's question/.test(String(row.data)))).toEqual([]);
    expect(journal.filter((row) => String(row.data).includes("Ravi's answer"))).toHaveLength(1);
  });

  it("keeps a thread's published replies in sight while its first comment is held again by an edit, whatever the owner decides", async () => {
    const { postId, asker, question, answer } = await answeredThenHeldAgain();
    const owner = new Owner(t);
    await owner.signIn();
    const place = { id: question.id, deleted: true, content: "", userName: "", html: "" };
    const reply = expect.objectContaining({ id: answer.id, parentId: question.id });
    // Everyone else: the reply under the place of a comment awaiting approval, counted alone.
    const others = await listOf(t.visitor(), postId);
    expect(others.comments).toEqual([expect.objectContaining({ ...place, held: true }), reply]);
    expect(others.total).toBe(1);
    // Its writer: their own words, awaiting approval, with the reply.
    const own = await listOf(asker, postId);
    expect(own.comments).toEqual([
      expect.objectContaining({ id: question.id, content: expect.stringContaining("gokart") }),
      reply,
    ]);
    expect(own.total).toBe(2);

    // Kept as spam, which the owner may still publish: the reply stays, under its place.
    expect((await owner.post(`/api/admin/comments/${question.id}/spam`)).statusCode).toBe(204);
    expect(await listOf(t.visitor(), postId)).toMatchObject({
      comments: [{ ...place, held: true }, { id: answer.id }],
      total: 1,
    });

    // Published after all: the comment itself again, for everyone.
    expect((await owner.post(`/api/admin/comments/${question.id}/approve`)).statusCode).toBe(204);
    expect(await listOf(t.visitor(), postId)).toMatchObject({
      comments: [{ id: question.id, deleted: false, userName: "Asha" }, { id: answer.id }],
      total: 2,
    });
  });

  it("shows published replies again as 'Comment deleted' and its answers once the owner rejects a comment held again by an edit", async () => {
    const { postId, question, answer } = await answeredThenHeldAgain();
    const owner = new Owner(t);
    await owner.signIn();
    expect((await owner.post(`/api/admin/comments/${question.id}/reject`)).statusCode).toBe(204);

    const list = await listOf(t.visitor(), postId);
    expect(list.comments).toEqual([
      expect.objectContaining({ id: question.id, deleted: true, content: "" }),
      expect.objectContaining({ id: answer.id, parentId: question.id }),
    ]);
    expect(list.comments[0]).not.toHaveProperty("held");
    expect(list.total).toBe(1);
  });

  it("lists a reply with the comment it answers in the owner's command line", async () => {
    const postId = freshItem("science");
    const { comment } = json(
      await t.visitor().comment(postId, "Root comment", "Asha"),
      commentResponseSchema,
    );
    const { comment: answer } = json(
      await t.visitor().reply(postId, comment.id, "A reply here", "Ravi"),
      commentResponseSchema,
    );
    const listed = await admin(adminEnv(t), "comments", "list", "--post", postId);
    expect(listed.code).toBe(0);
    const line = listed.stdout.split("\n").find((l) => l.includes("A reply here"));
    expect(line?.split("\t")).toEqual([
      String(answer.id),
      postId,
      answer.createdAt,
      "Ravi",
      "A reply here",
      "published",
      String(comment.id),
    ]);
  });
});

describe.each(backends)("the owner and replies on %s", (backend) => {
  let t: TestApp;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startTestApp(backend, { env: { SITE_OWNER_NAME: "Ravi Kumar" } });
    baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(() => t?.close());

  it("answers as the owner, with Author, and the console shows what each reply answers", async () => {
    const postId = freshItem("science");
    const { comment } = json(
      await t.visitor().comment(postId, "Which oil for a diesel?", "Asha"),
      commentResponseSchema,
    );
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const answered = await owner.post(`/api/items/science/${postId}/comments`, {
      content: "Follow the maker's grade.",
      userName: "ignored",
      parentId: comment.id,
    });
    expect(answered.statusCode).toBe(201);
    expect(json(answered, commentResponseSchema).comment).toMatchObject({
      parentId: comment.id,
      byOwner: true,
      userName: "Ravi Kumar",
    });
    const listed = json(
      await owner.get(`/api/admin/comments?post=${postId}`),
      consoleCommentsResponseSchema,
    ).comments;
    expect(listed).toEqual([
      expect.objectContaining({
        content: "Follow the maker's grade.",
        replyTo: { id: comment.id, userName: "Asha", excerpt: "Which oil for a diesel?" },
      }),
      expect.objectContaining({ content: "Which oil for a diesel?", replyTo: null }),
    ]);
  });

  it("replies from the console as the owner, with Author, live, audited, joining the thread of a reply", async () => {
    const postId = freshItem("science");
    const { comment: question } = json(
      await t.visitor().comment(postId, "Is a 13 A fuse enough for a kettle?", "Asha"),
      commentResponseSchema,
    );
    const { comment: follow } = json(
      await t.visitor().reply(postId, question.id, "Mine is 3 kW.", "Meera"),
      commentResponseSchema,
    );
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const stream = new EventStream(baseUrl, `science:${postId}`);
    try {
      await stream.ready();
      const answered = await owner.post(`/api/admin/comments/${follow.id}/reply`, {
        content: "@Meera 3 kW draws **12.5 A**: a 13 A fuse holds.",
      });
      expect(answered.statusCode).toBe(201);
      const { comment } = json(answered, commentResponseSchema);
      // Answering a reply joins the thread of the comment it answers.
      expect(comment).toMatchObject({
        parentId: question.id,
        byOwner: true,
        userName: "Ravi Kumar",
        mine: false,
        awaitingApproval: false,
      });
      expect(comment.html).toContain("<strong>12.5 A</strong>");
      const added = await stream.find("comment", (e) => e.commentId === comment.id);
      expect(added.json).toMatchObject({
        action: "added",
        comment: { parentId: question.id, byOwner: true, userName: "Ravi Kumar" },
      });
    } finally {
      stream.close();
    }
    // What a reader's page reads: the reply under its thread, by the owner.
    const list = await listOf(t.visitor(), postId);
    expect(list.comments.map((c) => [c.userName, c.parentId])).toEqual([
      ["Asha", null],
      ["Meera", question.id],
      ["Ravi Kumar", question.id],
    ]);
    expect(list.comments.at(-1)).toMatchObject({ byOwner: true });
    const trail = JSON.parse((await admin(adminEnv(t), "audit", "--json")).stdout);
    expect(
      trail.map((e: { action: string; object: string }) => [e.action, e.object]),
    ).toContainEqual(["comment reply", `${list.comments.at(-1)?.id}, answering ${follow.id}`]);
  });

  it("refuses a console reply to a missing, deleted or held comment, or with empty or over-long text, changing nothing", async () => {
    const postId = freshItem("science");
    const reader = t.visitor();
    const { comment: kept } = json(
      await reader.comment(postId, "Which wire gauge?", "Asha"),
      commentResponseSchema,
    );
    const { comment: gone } = json(
      await reader.comment(postId, "Soon deleted", "Asha"),
      commentResponseSchema,
    );
    await reader.delete(`/api/comments/${gone.id}`);
    // A link from a browser the site does not know yet is held.
    const { comment: held } = json(
      await t.visitor().comment(postId, "See https://example.com/gauge", "Kiran"),
      commentResponseSchema,
    );
    expect(held.awaitingApproval).toBe(true);
    const owner = new Owner(t);
    await owner.signIn();
    const attempts: [number, Record<string, unknown>, number, string][] = [
      [999_999, { content: "Hello" }, 404, "not_found"],
      [gone.id, { content: "Hello" }, 404, "not_found"],
      [held.id, { content: "Hello" }, 409, "conflict"],
      [kept.id, { content: "   " }, 400, "validation_failed"],
      [kept.id, { content: "x".repeat(2001) }, 400, "validation_failed"],
      [kept.id, {}, 400, "validation_failed"],
      [kept.id, { content: "Hello", userName: "Someone else" }, 400, "validation_failed"],
    ];
    for (const [id, body, status, code] of attempts) {
      const response = await owner.post(`/api/admin/comments/${id}/reply`, body);
      expect([id, response.statusCode, json(response, errorResponseSchema).error.code]).toEqual([
        id,
        status,
        code,
      ]);
    }
    // Only the owner's session, and only from the site's own pages.
    const stranger = await t.visitor().post(`/api/admin/comments/${kept.id}/reply`, {
      content: "Hello",
    });
    expect(stranger.statusCode).toBe(401);
    const forged = await owner.request(
      "POST",
      `/api/admin/comments/${kept.id}/reply`,
      { content: "Hello" },
      { origin: "https://evil.example" },
    );
    expect(forged.statusCode).toBe(403);
    expect((await listOf(t.visitor(), postId)).comments.map((c) => c.id)).toEqual([kept.id]);
    const trail = JSON.parse((await admin(adminEnv(t), "audit", "--json")).stdout);
    const answered = new Set(attempts.map(([id]) => `answering ${id}`));
    expect(
      trail.filter((e: { object: string }) => answered.has(e.object.replace(/^\d+, /, ""))),
    ).toEqual([]);
  });
});

describe.each(backends)("held replies on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { env: { MODERATION: "all" } });
  });
  afterAll(() => t?.close());

  it("cannot answer a held comment; a held reply is its writer's alone until approved", async () => {
    const postId = freshItem("science");
    const asker = t.visitor();
    const answerer = t.visitor();
    const { comment: question } = json(
      await asker.comment(postId, "Held question", "Asha"),
      commentResponseSchema,
    );
    const early = await answerer.reply(postId, question.id, "Too early", "Ravi");
    expect(early.statusCode).toBe(404);
    await admin(adminEnv(t), "comments", "approve", String(question.id));
    await expect
      .poll(async () => (await listOf(t.visitor(), postId)).total, { timeout: 10_000 })
      .toBe(1);

    const { comment: answer } = json(
      await answerer.reply(postId, question.id, "Held answer", "Ravi"),
      commentResponseSchema,
    );
    expect(answer).toMatchObject({ awaitingApproval: true, parentId: question.id });
    expect((await listOf(answerer, postId)).comments.map((c) => c.id)).toEqual([
      question.id,
      answer.id,
    ]);
    expect((await listOf(asker, postId)).comments.map((c) => c.id)).toEqual([question.id]);
    // Nobody can answer it while it is held, not even its writer.
    expect((await answerer.reply(postId, answer.id, "Again", "Ravi")).statusCode).toBe(404);
    const pending = await admin(adminEnv(t), "comments", "pending");
    expect(pending.stdout).toContain(`Held answer\t${question.id}`);

    await admin(adminEnv(t), "comments", "approve", String(answer.id));
    await expect
      .poll(async () => (await listOf(asker, postId)).comments.map((c) => c.id), {
        timeout: 10_000,
      })
      .toEqual([question.id, answer.id]);
  });
});

describe.each(backends)("replies under the owner's tools and the write limits on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: { MODERATION: "all", RATE_LIMIT_WRITES_PER_VISITOR: "3" },
    });
  });
  afterAll(() => t?.close());

  /** A published question, approved from the command line. */
  async function question(postId: string, content: string) {
    const { comment } = json(
      await t.visitor().comment(postId, content, "Asha"),
      commentResponseSchema,
    );
    await admin(adminEnv(t), "comments", "approve", String(comment.id));
    await expect
      .poll(async () => (await listOf(t.visitor(), postId)).comments.map((c) => c.id), {
        timeout: 10_000,
      })
      .toContain(comment.id);
    return comment.id as number;
  }

  it("limits a reply storm with 429 and Retry-After, storing none of the refused", async () => {
    const postId = freshItem("science");
    const asked = await question(postId, "How fast does a kettle boil at altitude?");
    const stormer = t.visitor();
    // The first write has no visitor cookie yet, so only the address counts it.
    const answered: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const response = await stormer.reply(postId, asked, `Storm reply ${i}`, "Kiran");
      expect(response.statusCode).toBe(201);
      answered.push(json(response, commentResponseSchema).comment.id);
    }
    const limited = await stormer.reply(postId, asked, "One reply too many", "Kiran");
    expect(limited.statusCode).toBe(429);
    expect(json(limited, errorResponseSchema).error.code).toBe("rate_limited");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    const own = await listOf(stormer, postId);
    expect(own.comments.map((c) => c.id)).toEqual([asked, ...answered]);
    expect(JSON.stringify(own)).not.toContain("One reply too many");
  });

  it("rejects, bans and purges a reply's writer like a comment's; the thread stays", async () => {
    const postId = freshItem("science");
    const asked = await question(postId, "Why does ice float?");
    const rejected = t.visitor();
    const { comment: junk } = json(
      await rejected.reply(postId, asked, "Buy cheap ice", "Spam"),
      commentResponseSchema,
    );
    expect((await admin(adminEnv(t), "comments", "reject", String(junk.id))).code).toBe(0);
    // Gone, for its writer too.
    await expect
      .poll(async () => (await listOf(rejected, postId)).comments.map((c) => c.id), {
        timeout: 10_000,
      })
      .toEqual([asked]);

    // A ban covers the writer's address too: theirs is their own here.
    const troll = t.visitor({ ip: "192.0.2.66" });
    const { comment: rude } = json(
      await troll.reply(postId, asked, "Rude answer", "Troll"),
      commentResponseSchema,
    );
    await admin(adminEnv(t), "comments", "approve", String(rude.id));
    const { comment: second } = json(
      await troll.reply(postId, asked, "Ruder answer", "Troll"),
      commentResponseSchema,
    );
    await admin(adminEnv(t), "comments", "approve", String(second.id));
    await expect
      .poll(async () => (await listOf(t.visitor(), postId)).total, { timeout: 10_000 })
      .toBe(3);
    const ban = await admin(adminEnv(t), "visitor", "ban", "--comment", String(rude.id));
    expect(ban.code).toBe(0);
    const refused = await troll.reply(postId, asked, "Let me back in", "Troll");
    expect(refused.statusCode).toBe(403);
    // The ban keeps the replies; the purge removes every one of them, and only those.
    expect((await listOf(t.visitor(), postId)).total).toBe(3);
    const purge = await admin(adminEnv(t), "visitor", "purge", "--comment", String(rude.id));
    expect(purge.stdout).toContain("Removed 2 comments");
    await expect
      .poll(
        async () => (await listOf(t.visitor(), postId)).comments.map((c) => [c.id, c.deleted]),
        {
          timeout: 10_000,
        },
      )
      .toEqual([[asked, false]]);
    expect((await listOf(t.visitor(), postId)).total).toBe(1);
  });

  it("lists a visitor's replies in Your data with the comment each answers, and deletes them", async () => {
    const postId = freshItem("science");
    const asked = await question(postId, "What is a heat pump's COP?");
    const reader = t.visitor();
    const { comment: own } = json(
      await reader.comment(postId, "My own question", "Meera"),
      commentResponseSchema,
    );
    const { comment: answer } = json(
      await reader.reply(postId, asked, "About 3 to 4", "Meera"),
      commentResponseSchema,
    );
    const data = json(await reader.get("/api/your-data"), yourDataResponseSchema);
    expect(data.comments.map((c) => [c.id, c.parentId])).toEqual([
      [own.id, null],
      [answer.id, asked],
    ]);
    const removed = json(
      await reader.post("/api/your-data/delete", { confirm: true }),
      deleteYourDataResponseSchema,
    );
    expect(removed.deleted.comments).toBe(2);
    expect((await listOf(reader, postId)).comments.map((c) => c.id)).toEqual([asked]);
  });
});
