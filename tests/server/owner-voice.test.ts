import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  commentResponseSchema,
  commentsResponseSchema,
  errorResponseSchema,
} from "../../contract/api.ts";
import { auditResponseSchema } from "../../contract/console.ts";
import { commentIn, EventStream } from "../support/event-stream.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import { backends, freshItem, json, seen, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The owner speaks as the owner (docs/decisions/016-owner-voice.md): signed in
 * to the console, the owner comments through the readers' comment form, under
 * SITE_OWNER_NAME and with the "Author" badge no visitor can earn, and edits or
 * deletes any comment from the page, audited and live. Every comment here is
 * held for approval (MODERATION=all) and the form's minimum time is the
 * default, so what the owner skips shows.
 */

const ownerName = "Ravi Kumar";

const ironingPage = `<!doctype html><html><head></head><body><h1>Ironing</h1>
<section><ewe-fragment data-for="science:ironing" data-part="comments" data-title="Ironing"></ewe-fragment></section></body></html>`;

describe.each(backends)("the owner's voice on %s", (backend) => {
  let t: TestApp;
  let baseUrl: string;
  const owner = () => new Owner(t);
  let signedIn: Owner;

  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: {
        SITE_OWNER_NAME: ownerName,
        MODERATION: "all",
        COMMENT_MIN_SECONDS: "3",
        OWNER_EMAIL: "owner@example.com",
      },
      clientFiles: { "science/ironing/index.html": ironingPage },
    });
    baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
    signedIn = owner();
    expect((await signedIn.signIn()).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  const read = (postId: string, cookie?: string) =>
    t.app.inject({
      method: "GET",
      url: `/api/items/science/${postId}/comments`,
      headers: cookie ? { cookie } : {},
    });
  const ownerComment = (postId: string, content: string, userName = "Anything") =>
    signedIn.post(`/api/items/science/${postId}/comments`, { content, userName });
  /** A visitor's comment, published by the owner's approval (everything is held here). */
  async function publishedVisitorComment(postId: string, content: string, userName = "Asha") {
    const writer = t.visitor();
    const posted = await writer.comment(postId, content, userName);
    expect(posted.statusCode).toBe(201);
    const { id } = json(posted, commentResponseSchema).comment;
    expect((await signedIn.post(`/api/admin/comments/${id}/approve`)).statusCode).toBe(204);
    return { writer, id };
  }
  const auditOf = async () =>
    json(await signedIn.get("/api/admin/audit"), auditResponseSchema).entries;

  it("publishes the owner's comment at once, under SITE_OWNER_NAME, with the badge in API reads and the served page", async () => {
    // No form token: the owner waits for no form timing; no hold either.
    const posted = await ownerComment("ironing", "Steam helps the fibres relax.", "Typed name");
    expect(posted.statusCode).toBe(201);
    const { comment } = json(posted, commentResponseSchema);
    expect(comment).toMatchObject({
      content: "Steam helps the fibres relax.",
      userName: ownerName,
      byOwner: true,
      awaitingApproval: false,
      mine: false,
    });

    const everyone = json(await read("ironing"), commentsResponseSchema);
    expect(everyone.owner).toBeUndefined();
    expect(everyone.comments).toEqual([
      expect.objectContaining({ id: comment.id, userName: ownerName, byOwner: true }),
    ]);

    const page = await t.app.inject({ method: "GET", url: "/science/ironing" });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(
      new RegExp(`>${ownerName}</span><span class="comment-badge"[^>]*>Author</span>`),
    );
    expect(page.body.match(/>Author</g)).toHaveLength(1);

    expect(await auditOf()).toContainEqual(
      expect.objectContaining({ action: "comment write", object: String(comment.id) }),
    );
  });

  it("mails the owner about readers' comments, not their own", async () => {
    const postId = freshItem("science");
    // A notice forgets which comment it was about once sent: they are counted.
    const notices = async () =>
      Number(
        (await runSql(t, "select count(*) as n from outbox where kind = 'comment_notice'"))[0]?.n,
      );
    const before = await notices();
    expect((await ownerComment(postId, "My own words.")).statusCode).toBe(201);
    expect(await notices()).toBe(before);
    await publishedVisitorComment(postId, "A reader's words.");
    expect(await notices()).toBe(before + 1);
  });

  it("still holds the owner's text to the comment rules", async () => {
    const postId = freshItem("science");
    const blank = await ownerComment(postId, "   ");
    expect(blank.statusCode).toBe(400);
    expect(json(blank, errorResponseSchema).error.code).toBe("validation_failed");
    const links = await ownerComment(postId, "a.example.com b.example.com c.example.com");
    expect(links.statusCode).toBe(422);
    expect(json(links, errorResponseSchema).error.code).toBe("too_many_links");
    expect(json(await read(postId), commentsResponseSchema).comments).toEqual([]);
  });

  it("gives no visitor the badge: not by the owner's name, a request field or a forged cookie", async () => {
    const postId = freshItem("science");
    const visitor = t.visitor();

    for (const name of [ownerName, "ravi  KUMAR", "R4vi Kumar"]) {
      const byName = await visitor.comment(postId, "I am the owner, honestly.", name);
      expect(byName.statusCode).toBe(422);
      expect(json(byName, errorResponseSchema).error.code).toBe("reserved_name");
    }

    for (const field of [{ byOwner: true }, { owner: { name: ownerName } }, { author: true }]) {
      const byBody = await visitor.post(`/api/items/science/${postId}/comments`, {
        content: "Trust me.",
        userName: "Mallory",
        formToken: t.commentToken(),
        ...field,
      });
      expect(byBody.statusCode).toBe(400);
      expect(json(byBody, errorResponseSchema).error.code).toBe("validation_failed");
    }

    // A made-up session cookie, a visitor cookie naming the owner's comments'
    // writer, and the session of an owner who has signed out: a visitor each time.
    const leaving = owner();
    await leaving.signIn();
    const revoked = leaving.cookie ?? "";
    expect((await leaving.post("/api/admin/sign-out")).statusCode).toBe(204);
    const cookies = [`ewe_owner=${"A".repeat(43)}`, "ewe_visitor=owner", revoked];
    for (const [index, cookie] of cookies.entries()) {
      const forged = await visitor.request(
        "POST",
        `/api/items/science/${postId}/comments`,
        {
          // Three texts apart, or the duplicate rule answers 409: the revoked
          // cookie's first characters can be the made-up one's ("ewe_owner=AA").
          content: `Forged, try ${index + 1}`,
          userName: "Mallory",
          formToken: t.commentToken(),
        },
        { cookie: [visitor.cookie, cookie].filter(Boolean).join("; ") },
      );
      expect(forged.statusCode).toBe(201);
      expect(json(forged, commentResponseSchema).comment).toMatchObject({
        byOwner: false,
        awaitingApproval: true,
      });
      // A reader's read with it carries no owner overlay either.
      expect(json(await read(postId, cookie), commentsResponseSchema).owner).toBeUndefined();
    }

    // Nor does the form's timing let a visitor through without its token.
    const untimed = await visitor.post(`/api/items/science/${postId}/comments`, {
      content: "No token",
      userName: "Mallory",
    });
    expect(untimed.statusCode).toBe(400);
    expect(json(untimed, errorResponseSchema).error.code).toBe("form_token_invalid");
  });

  it("tells the owner alone, in a private answer, while everyone else shares the cached bytes", async () => {
    const postId = freshItem("science");
    await publishedVisitorComment(postId, "Why does a hot iron glide?");

    const before = await read(postId);
    const mine = await read(postId, signedIn.cookie);
    expect(mine.headers["cache-control"]).toBe("private, no-cache");
    expect(json(mine, commentsResponseSchema).owner).toEqual({ name: ownerName });
    expect(mine.headers.etag).not.toBe(before.headers.etag);
    const after = await read(postId);
    expect(after.headers["cache-control"]).toBe("no-cache");
    expect(after.headers.etag).toBe(before.headers.etag);
    expect(after.body).toBe(before.body);
    expect(after.body).not.toContain('"owner"');

    // A visitor's own flags come without the owner's.
    const writer = t.visitor();
    expect((await writer.comment(postId, "Mine, held", "Bo")).statusCode).toBe(201);
    const own = await writer.get(`/api/items/science/${postId}/comments`);
    expect(json(own, commentsResponseSchema).owner).toBeUndefined();
    expect(seen(own).comments.at(-1)).toMatchObject({ mine: true, awaitingApproval: true });

    // The owner's comment reaches the shared answer at once.
    const posted = json(
      await ownerComment(postId, "It rides on steam."),
      commentResponseSchema,
    ).comment;
    const fresh = await read(postId);
    expect(fresh.headers.etag).not.toBe(before.headers.etag);
    expect(json(fresh, commentsResponseSchema).comments.map((c) => [c.id, c.byOwner])).toEqual([
      [expect.any(Number), false],
      [posted.id, true],
    ]);
  });

  it("sends the badge with the live event, to readers without a cookie too", async () => {
    const postId = freshItem("science");
    const stream = new EventStream(baseUrl, `science:${postId}`);
    await stream.ready();
    const posted = json(
      await ownerComment(postId, "Welcome, everyone."),
      commentResponseSchema,
    ).comment;
    const event = await stream.next("comment");
    expect(event.json).toMatchObject({
      action: "added",
      commentId: posted.id,
      comment: { userName: ownerName, byOwner: true, content: "Welcome, everyone." },
    });
    expect(commentIn(event.json)).not.toHaveProperty("mine");
    stream.close();
  });

  it("lets the owner edit and delete a visitor's comment: audited, published live", async () => {
    const postId = freshItem("science");
    const { writer, id } = await publishedVisitorComment(postId, "Irons need water, right?");
    const stream = new EventStream(baseUrl, `science:${postId}`);
    await stream.ready();

    const edited = await signedIn.patch(`/api/admin/comments/${id}`, {
      content: "Irons need distilled water.",
    });
    expect(edited.statusCode).toBe(200);
    expect(json(edited, commentResponseSchema).comment).toMatchObject({
      id,
      userName: "Asha",
      content: "Irons need distilled water.",
      byOwner: false,
    });
    // Delivery is at least once: the stream, opened just after the comment was
    // published, may hear of that too; the edit is looked for by what it says.
    expect(
      (await stream.find("comment", (event) => event.action === "updated")).json,
    ).toMatchObject({
      action: "updated",
      commentId: id,
      comment: { content: "Irons need distilled water.", userName: "Asha", byOwner: false },
    });
    // Still its writer's: the owner's edit takes nothing from them.
    const theirs = seen(await writer.get(`/api/items/science/${postId}/comments`)).comments;
    expect(theirs).toEqual([expect.objectContaining({ id, mine: true })]);

    // The text rules hold for the owner's edits too; nothing changes.
    const refused = await signedIn.patch(`/api/admin/comments/${id}`, {
      content: "a.example.com b.example.com c.example.com",
    });
    expect(refused.statusCode).toBe(422);
    const unknownField = await signedIn.patch(`/api/admin/comments/${id}`, {
      content: "ok",
      userName: "Someone",
    });
    expect(unknownField.statusCode).toBe(400);

    expect((await signedIn.delete(`/api/admin/comments/${id}`)).statusCode).toBe(204);
    expect(
      (await stream.find("comment", (event) => event.action === "deleted")).json,
    ).toMatchObject({
      action: "deleted",
      commentId: id,
    });
    expect(json(await read(postId), commentsResponseSchema).comments).toEqual([]);
    expect(
      (await signedIn.patch(`/api/admin/comments/${id}`, { content: "gone" })).statusCode,
    ).toBe(404);
    stream.close();

    const audit = await auditOf();
    expect(audit).toContainEqual(
      expect.objectContaining({ action: "comment edit", object: String(id) }),
    );
    expect(audit).toContainEqual(
      expect.objectContaining({ action: "comment delete", object: String(id) }),
    );
    // The command line prints the same trail.
    const printed = await admin(adminEnv(t), "audit", "--json");
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toContainEqual(
      expect.objectContaining({ action: "comment edit", object: String(id) }),
    );
  });

  it("edits and deletes the owner's own comments only through the owner's session", async () => {
    const postId = freshItem("science");
    const { id } = json(
      await ownerComment(postId, "First thoughts."),
      commentResponseSchema,
    ).comment;
    const edited = await signedIn.patch(`/api/admin/comments/${id}`, {
      content: "Second thoughts.",
    });
    expect(json(edited, commentResponseSchema).comment).toMatchObject({
      byOwner: true,
      userName: ownerName,
    });
    // No visitor owns it, whatever cookie they hold.
    const visitor = t.visitor();
    await visitor.comment(postId, "hello", "Bo");
    expect((await visitor.delete(`/api/comments/${id}`)).statusCode).toBe(403);
    expect((await signedIn.delete(`/api/admin/comments/${id}`)).statusCode).toBe(204);
  });

  it("answers a visitor 401, 403 and 404 as before, and changes nothing", async () => {
    const postId = freshItem("science");
    const { id } = await publishedVisitorComment(postId, "Leave mine alone.", "Asha");
    const stranger = t.visitor();
    await stranger.comment(postId, "I have a cookie too", "Bo");

    expect(
      (await stranger.patch(`/api/comments/${id}`, { content: "hacked", userName: "Asha" }))
        .statusCode,
    ).toBe(403);
    expect((await stranger.delete(`/api/comments/${id}`)).statusCode).toBe(403);
    expect((await stranger.delete("/api/comments/2147483647")).statusCode).toBe(404);
    const consoleEdit = await stranger.patch(`/api/admin/comments/${id}`, { content: "hacked" });
    expect(consoleEdit.statusCode).toBe(401);
    expect((await stranger.delete(`/api/admin/comments/${id}`)).statusCode).toBe(401);
    const forged = await stranger.request("DELETE", `/api/admin/comments/${id}`, undefined, {
      cookie: `${stranger.cookie}; ewe_owner=${"B".repeat(43)}`,
    });
    expect(forged.statusCode).toBe(401);

    // The owner's own session, from another site's page: refused before anything.
    const crossSite = await signedIn.request("DELETE", `/api/admin/comments/${id}`, undefined, {
      origin: "https://evil.example",
    });
    expect(crossSite.statusCode).toBe(403);
    expect(json(crossSite, errorResponseSchema).error.code).toBe("cross_origin");
    const crossSiteComment = await signedIn.request(
      "POST",
      `/api/items/science/${postId}/comments`,
      { content: "Sent from elsewhere", userName: ownerName },
      { origin: "https://evil.example" },
    );
    expect(crossSiteComment.statusCode).toBe(403);

    expect(json(await read(postId), commentsResponseSchema).comments).toEqual([
      expect.objectContaining({ id, content: "Leave mine alone." }),
    ]);
  });
});
