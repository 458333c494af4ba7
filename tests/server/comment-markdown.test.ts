import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema, errorResponseSchema } from "../../contract/api.ts";
import { markdownRefusal } from "../../server/comments/markdown.ts";
import { fakeSciencePage } from "../support/built-site.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { backends, freshItem, json, seen, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The Markdown of comments (docs/product.md, "Comments"): rendered on the
 * server when written, carried as `html` by every answer and served page, the
 * same for the writer of a held comment as for everyone once it is approved.
 */

const markdown =
  "**x** and `y`, per [a source](https://www.iso.org/standard/62085.html). <b>no</b>";
const rendered =
  '<p><strong>x</strong> and <code>y</code>, per <a href="https://www.iso.org/standard/62085.html" rel="nofollow ugc noopener">a source</a>. &lt;b&gt;no&lt;/b&gt;</p>';

describe.each(backends)("comment Markdown on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: { MODERATION: "all" },
      clientFiles: { "science/index.html": fakeSciencePage },
    });
  });
  afterAll(() => t?.close());

  const publicList = async (postId: string) =>
    seen(await t.visitor().get(`/api/items/science/${postId}/comments`)).comments;

  it("renders strong, code and a nofollow ugc link for the writer at once and for everyone once approved; HTML stays text", async () => {
    const postId = "soap";
    const writer = t.visitor();
    const { comment } = json(await writer.comment(postId, markdown, "Asha"), commentResponseSchema);
    expect(comment).toMatchObject({ content: markdown, html: rendered, awaitingApproval: true });
    const own = seen(await writer.get(`/api/items/science/${postId}/comments`)).comments;
    expect(own).toEqual([expect.objectContaining({ id: comment.id, html: rendered })]);
    expect(await publicList(postId)).toEqual([]);

    expect(await admin(adminEnv(t), "comments", "approve", String(comment.id))).toMatchObject({
      code: 0,
    });
    // The command line's approval reaches this server through the events journal.
    await expect
      .poll(() => publicList(postId), { timeout: 10_000 })
      .toEqual([expect.objectContaining({ id: comment.id, content: markdown, html: rendered })]);
    const page = await t.app.inject({ method: "GET", url: "/science" });
    expect(page.body).toContain(`<div class="comment-text">${rendered}</div>`);
    expect(page.body).not.toContain("<b>no</b>");
  });

  it("renders again on an edit", async () => {
    const postId = freshItem("science");
    const writer = t.visitor();
    const { comment } = json(await writer.comment(postId, "plain", "Ravi"), commentResponseSchema);
    const edited = json(
      await writer.patch(`/api/comments/${comment.id}`, {
        content: "now *emphatic*",
        userName: "Ravi",
      }),
      commentResponseSchema,
    ).comment;
    expect(edited.html).toBe("<p>now <em>emphatic</em></p>");
  });

  it("keeps links to other schemes, images and headings as the text typed", async () => {
    const postId = freshItem("science");
    const { comment } = json(
      await t
        .visitor()
        .comment(postId, "# Title\n[run](javascript:alert(1)) [here](/admin)", "Ravi"),
      commentResponseSchema,
    );
    expect(comment.html).toBe("<p># Title<br>\n[run](javascript:alert(1)) [here](/admin)</p>");
  });

  it("counts Markdown links under COMMENT_MAX_LINKS (2)", async () => {
    const postId = freshItem("science");
    const response = await t
      .visitor()
      .comment(
        postId,
        "See [one](https://a.example/x), [two](https://b.example/y) and [three](https://c.example/z)",
        "Ravi",
      );
    expect(response.statusCode).toBe(422);
    expect(json(response, errorResponseSchema).error.code).toBe("too_many_links");
    const two = await t
      .visitor()
      .comment(postId, "See [one](https://a.example/x) and [two](https://b.example/y)", "Ravi");
    expect(two.statusCode).toBe(201);
  });

  it("refuses link text that is another site's address, and quotes nested too deep, changing nothing", async () => {
    const postId = freshItem("science");
    const writer = t.visitor();
    const lookAlike = await writer.comment(
      postId,
      "Log in at [https://www.paypal.com](https://paypal.example-login.net/)",
      "Ravi",
    );
    expect(lookAlike.statusCode).toBe(422);
    expect(json(lookAlike, errorResponseSchema).error).toMatchObject({
      code: "blocked_content",
      message: expect.stringMatching(/another site/),
    });
    const deep = await writer.comment(postId, "> > > > four deep", "Ravi");
    expect(deep.statusCode).toBe(400);
    expect(json(deep, errorResponseSchema).error).toMatchObject({ code: "validation_failed" });
    const { comment } = json(await writer.comment(postId, "fine", "Ravi"), commentResponseSchema);
    const edit = await writer.patch(`/api/comments/${comment.id}`, {
      content: "[example.org](https://example.net)",
      userName: "Ravi",
    });
    expect(edit.statusCode).toBe(422);
    const own = seen(await writer.get(`/api/items/science/${postId}/comments`)).comments;
    expect(own.map((c: { content: string }) => c.content)).toEqual(["fine"]);
    // The same address as its text is what it says it is.
    const honest = await t
      .visitor()
      .comment(postId, "[iso.org/standard](https://www.iso.org/standard/62085.html)", "Ravi");
    expect(honest.statusCode).toBe(201);
  });

  // Once, on SQLite: the Markdown's rules read the text alone, before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("reads a link's text as a reader would: look-alike dots, hidden characters, a trailing full stop, an IP", () => {
        for (const text of [
          "paypal.com.",
          "paypal。com",
          "paypal．com",
          "pay\u00ADpal.com",
          "paypal\u200B.com",
          "https://en.wikipedia.org/ wiki",
          "log in at https://paypal.com now",
          "192.0.2.7",
          "ＰＡＹＰＡＬ.ＣＯＭ",
        ]) {
          expect([text, markdownRefusal(`[${text}](https://evil.example/login)`)?.code]).toEqual([
            text,
            "blocked_content",
          ]);
        }
        for (const [text, href] of [
          ["wikipedia.org", "https://en.wikipedia.org/wiki/OFDM"],
          ["OFDM on Wikipedia", "https://en.wikipedia.org/wiki/OFDM"],
          ["section 3.2 of the paper", "https://arxiv.org/abs/1706.03762"],
          ["see e.g. the Node.js docs", "https://nodejs.org/api/"],
          ["https://www.iso.org/standard/62085.html", "https://iso.org/standard/62085.html"],
        ]) {
          expect([text, markdownRefusal(`[${text}](${href})`)]).toEqual([text, null]);
        }
      });
    });
  }
});
