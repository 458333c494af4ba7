import { appendFileSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  commentResponseSchema,
  commentsResponseSchema,
  errorResponseSchema,
  formTokenResponseSchema,
} from "../../contract/api.ts";
import { resolveCookieSecret } from "../../server/engagement/visitor.ts";
import { createWriterKeys } from "../../server/engagement/writer-keys.ts";
import { addressScope } from "../../server/lib/address-scope.ts";
import { createCommentFormTokens } from "../../server/moderation/defences.ts";
import { junkComments, ordinaryComments } from "../support/comment-samples.ts";
import { commentIn, EventStream } from "../support/event-stream.ts";
import { backends, freshItem, json, seen, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The spam defences, always on (docs/moderation.md, "Spam defences";
 * docs/decisions/010-moderation-and-spam.md), against the real server with
 * their default settings: each refusal is a clear 4xx that stores nothing and
 * sets no cookie; the honeypot alone answers as if the comment were posted,
 * and nobody but its sender ever sees it.
 */

describe.each(backends)("spam defences on %s", (backend) => {
  let t: TestApp;
  let baseUrl: string;
  const streams: EventStream[] = [];
  beforeAll(async () => {
    t = await startTestApp(backend, { env: { SITE_OWNER_NAME: "Ravi Kumar" } });
    baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(() => t?.close());

  const comments = async (postId: string) =>
    json(await t.visitor().get(`/api/items/science/${postId}/comments`), commentsResponseSchema)
      .comments as {
      content: string;
    }[];

  /** Posts as a fresh visitor and expects a refusal that changed nothing. */
  async function expectRefused(
    body: Record<string, unknown>,
    status: number,
    code: string,
    message: RegExp,
  ) {
    const postId = freshItem("science");
    const visitor = t.visitor();
    const response = await visitor.post(`/api/items/science/${postId}/comments`, {
      userName: "Alex",
      formToken: t.commentToken(),
      ...body,
    });
    expect(response.statusCode).toBe(status);
    expect(json(response, errorResponseSchema).error).toMatchObject({
      code,
      message: expect.stringMatching(message),
    });
    expect(response.cookies).toEqual([]);
    expect(await comments(postId)).toEqual([]);
  }

  describe("the form's timing", () => {
    it("refuses a comment sent sooner than a person could write it", async () => {
      const secret = resolveCookieSecret({ DATA_DIR: t.dataDir });
      const justIssued = createCommentFormTokens(secret, 3000).issue();
      await expectRefused(
        { content: "Fast fingers", formToken: justIssued },
        400,
        "too_fast",
        /faster than a person/,
      );
    });

    it("refuses a comment without the form's token, or with an altered one", async () => {
      await expectRefused(
        { content: "No token", formToken: undefined },
        400,
        "form_token_invalid",
        /reload the page/,
      );
      const [time, nonce, signature] = t.commentToken().split(".");
      await expectRefused(
        { content: "Forged", formToken: `${Number(time) - 1}.${nonce}.${signature}` },
        400,
        "form_token_invalid",
        /missing or altered/,
      );
      // The newsletter form's token is of no use here.
      await expectRefused(
        { content: "Wrong form", formToken: t.formToken() },
        400,
        "form_token_invalid",
        /missing or altered/,
      );
    });

    it("takes one comment per token: sent again, at once or later, by anyone, it is refused", async () => {
      const postId = freshItem("science");
      const url = `/api/items/science/${postId}/comments`;
      const formToken = t.commentToken();
      // Texts of this test's own: the same text twice from one address is refused as a repeat.
      const [a, b, c, d, e, f] = [
        "Does the tea cool faster if I blow on it?",
        "Nice to read about steam irons",
        "Which metal makes the best pressure cooker?",
        "Loved the part about the whistle",
        "Is a ceramic cup better for keeping tea warm?",
        "Thanks, the diagram helped a lot",
      ];
      const sent = await Promise.all(
        [a, b, c, d].map((content, i) =>
          t.visitor().post(url, { userName: `Meera ${i}`, content, formToken }),
        ),
      );
      expect(sent.map((r) => r.statusCode).sort()).toEqual([201, 400, 400, 400]);
      const later = await t.visitor().post(url, { userName: "Meera", content: e, formToken });
      expect(later.statusCode).toBe(400);
      expect(json(later, errorResponseSchema).error).toMatchObject({
        code: "form_token_invalid",
        message: expect.stringMatching(/sent already/),
      });
      expect(await comments(postId)).toHaveLength(1);
      // The form's next token is taken.
      const fresh = await t
        .visitor()
        .post(url, { userName: "Meera", content: f, formToken: t.commentToken() });
      expect(fresh.statusCode).toBe(201);
    });

    it("spends the token on a refused comment too: one fetch serves one answer", async () => {
      const postId = freshItem("science");
      const url = `/api/items/science/${postId}/comments`;
      const formToken = t.commentToken();
      const refused = await t.visitor().post(url, {
        userName: "Meera",
        content: "Claim your casino bonus at https://paypa1-secure.com today",
        formToken,
      });
      expect(refused.statusCode).toBe(422);
      const again = await t.visitor().post(url, {
        userName: "Meera",
        content: "Why does a thermos keep tea hot for so long?",
        formToken,
      });
      expect(again.statusCode).toBe(400);
      expect(json(again, errorResponseSchema).error).toMatchObject({
        code: "form_token_invalid",
        message: expect.stringMatching(/sent already/),
      });
      expect(await comments(postId)).toHaveLength(0);
    });

    it("answers a form sent too soon, or with a bad token, in one shape, whichever form it is", async () => {
      const postId = freshItem("science");
      const forms = [
        {
          token: "/api/comments/form-token",
          send: `/api/items/science/${postId}/comments`,
          body: { userName: "Alex", content: "How hot does an iron get on the cotton setting?" },
        },
        {
          token: "/api/enquiries/form-token",
          send: "/api/enquiries",
          body: {
            name: "Priya Raman",
            email: "priya.shape@example.org",
            service: "dfmea",
            message: "We need a DFMEA workshop for a fuel pump module in March.",
          },
        },
        {
          token: "/api/newsletter/form-token",
          send: "/api/subscribers",
          body: { email: "shape@example.org" },
        },
      ];
      const answers = [];
      for (const form of forms) {
        const visitor = t.visitor();
        // Every form's token comes in one shape, with the minimum the page waits out.
        const issued = formTokenResponseSchema.strict().parse(json(await visitor.get(form.token)));
        expect(issued.minimumMs).toBeGreaterThan(0);
        const tooSoon = await visitor.post(form.send, {
          ...form.body,
          formToken: issued.formToken,
        });
        const forged = await visitor.post(form.send, {
          ...form.body,
          formToken: `${issued.formToken.slice(0, -4)}AAAA`,
        });
        answers.push([
          [tooSoon.statusCode, json(tooSoon, errorResponseSchema).error],
          [forged.statusCode, json(forged, errorResponseSchema).error],
        ]);
      }
      expect(answers[0]?.[0]).toEqual([
        400,
        { code: "too_fast", message: expect.stringMatching(/faster than a person/) },
      ]);
      expect(answers[0]?.[1]).toEqual([
        400,
        { code: "form_token_invalid", message: expect.stringMatching(/missing or altered/) },
      ]);
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
    });

    // Once, on SQLite: the form token is signed in memory, never stored.
    if (backend === "sqlite") {
      describe("whatever the database", () => {
        it("hands out a token with the minimum the page waits out", async () => {
          const response = await t.visitor().get("/api/comments/form-token");
          expect(response.headers["cache-control"]).toBe("no-store");
          expect(json(response)).toEqual({
            formToken: expect.stringMatching(/^\d{13}\./),
            minimumMs: 3000,
          });
        });
      });
    }
  });

  describe("the honeypot", () => {
    it("looks posted to its sender, and reaches nobody else: not their list, stream or count", async () => {
      const postId = freshItem("science");
      const watcher = new EventStream(baseUrl, `science:${postId}`);
      streams.push(watcher);
      await watcher.ready();
      const bot = t.visitor();
      const response = await bot.post(`/api/items/science/${postId}/comments`, {
        content: "Totally human comment",
        userName: "Bot",
        formToken: t.commentToken(),
        website: "http://spam.example",
      });
      expect(response.statusCode).toBe(201);
      expect(json(response, commentResponseSchema).comment).toMatchObject({
        mine: true,
        awaitingApproval: false,
      });
      const own = seen(await bot.get(`/api/items/science/${postId}/comments`)).comments;
      expect(own.map((c) => c.content)).toEqual(["Totally human comment"]);
      expect(await comments(postId)).toEqual([]);

      await t.visitor().comment(postId, "A real reader");
      expect(commentIn((await watcher.next("comment")).json)?.content).toBe("A real reader");
      expect(watcher.events.filter((e) => e.event === "comment")).toHaveLength(1);
    });
  });

  describe("the text", () => {
    it("refuses more links than COMMENT_MAX_LINKS (2)", async () => {
      await expectRefused(
        { content: "See https://a.example, https://b.example and https://c.example" },
        422,
        "too_many_links",
        /at most 2 links; this one has 3/,
      );
      const postId = freshItem("science");
      const two = await t.visitor().comment(postId, "See https://a.example and https://b.example");
      expect(two.statusCode).toBe(201);
    });

    it.each([
      ["HTML", '<a href="https://shop.example">shop</a>'],
      ["BBCode", "[url=https://shop.example]shop[/url]"],
    ])("refuses a link written as %s", async (_kind, content) => {
      await expectRefused({ content }, 422, "blocked_content", /HTML or BBCode/);
    });

    it("refuses blocked words in any spelling, shorteners and look-alike addresses", async () => {
      for (const content of [
        "Best CASINO in town",
        "c@s1n0 night",
        "ｃａｓｉｎｏ",
        "c a s i n o",
        "Try the ca-si-no tonight",
        "Try the ca_si_no tonight",
        "Try the cas\nino tonight",
        "Try the ᏟᎪᏚᎥΝᎾ tonight",
        "Try the 🇨🇦🇸🇮🇳🇴 tonight",
        "Online kasino bonus",
      ]) {
        await expectRefused({ content }, 422, "blocked_content", /blocks because spam uses them/);
      }
      await expectRefused({ content: "more at bit.ly/x1" }, 422, "blocked_content", /shorteners/);
      await expectRefused(
        { content: "log in at https://xn--pypal-4ve.com" },
        422,
        "blocked_content",
        /look-alike/,
      );
    });

    it("refuses phone numbers and email addresses", async () => {
      await expectRefused(
        { content: "Call +1 (888) 555-0199 now" },
        422,
        "blocked_content",
        /phone numbers or email/,
      );
      await expectRefused(
        { content: "Write to me at someone@mail.example" },
        422,
        "blocked_content",
        /phone numbers or email/,
      );
    });

    it("read the text as the page shows it: character references and escapes hide nothing", async () => {
      for (const content of ["Try the c&#97;sino tonight", "Try the c&#x61;sino tonight"]) {
        await expectRefused({ content }, 422, "blocked_content", /blocks because spam uses them/);
      }
      await expectRefused(
        { content: "Write to me at someone&#64;mail.example" },
        422,
        "blocked_content",
        /phone numbers or email/,
      );
      for (const content of [
        "The figures are [here](https&#58;//bit&#46;ly/x1).",
        "The figures are [here](https\\://bit\\.ly/x1).",
      ]) {
        await expectRefused({ content }, 422, "blocked_content", /shorteners/);
      }
      await expectRefused(
        {
          content:
            "See [one](https&#58;//a.example), [two](https&#58;//b.example) and [three](https&#58;//c.example)",
        },
        422,
        "too_many_links",
        /at most 2 links; this one has 3/,
      );
      const postId = freshItem("science");
      const writer = t.visitor();
      const { comment } = json(
        await writer.comment(postId, "Fish &amp; chips, and a \\*literal\\* star", "Alex"),
        commentResponseSchema,
      );
      expect(comment.html).toBe("<p>Fish &amp; chips, and a *literal* star</p>");
      const edit = await writer.patch(`/api/comments/${comment.id}`, {
        content: "Now at the c&#97;sino",
        userName: "Alex",
      });
      expect(edit.statusCode).toBe(422);
      expect(json(edit, errorResponseSchema).error.code).toBe("blocked_content");
    });

    it("read code as the page shows it, as typed, and a word split by emphasis or a link as one", async () => {
      const postId = freshItem("science");
      const writer = t.visitor();
      for (const content of [
        "My config matches `(gitlab\\.com|github\\.com|bitbucket\\.org)` and nothing else.",
        'In the template, write `&lt;a href="https://example.org"&gt;` to show the tag.',
        "The check was\n\n```\nmatch = /^[^@]+@example\\.com$/\n```\n\nand it never matched.",
      ]) {
        const response = await writer.comment(postId, content, "Alex");
        expect(response.statusCode, content).toBe(201);
      }
      for (const content of [
        "Try the ca**s**ino tonight",
        "Try the c*a*sino tonight",
        "Try the [ca](https://example.org/a)sino tonight",
      ]) {
        await expectRefused({ content }, 422, "blocked_content", /blocks because spam uses them/);
      }
    });

    it("apply to edits too: a published comment cannot be turned into spam", async () => {
      const postId = freshItem("science");
      const writer = t.visitor();
      const { comment } = json(
        await writer.comment(postId, "An honest question", "Alex"),
        commentResponseSchema,
      );
      const edit = await writer.patch(`/api/comments/${comment.id}`, {
        content: "Cheap cialis at https://a.example",
        userName: "Alex",
      });
      expect(edit.statusCode).toBe(422);
      expect(json(edit, errorResponseSchema).error.code).toBe("blocked_content");
      expect((await comments(postId)).map((c) => c.content)).toEqual(["An honest question"]);
    });

    it("reads the owner's blocklist file again when it changes, without a restart", async () => {
      const file = path.join(t.dataDir, "blocklist.txt");
      expect(readFileSync(file, "utf8")).toContain("# Blocked words, links and domains");
      const post = async (content: string) =>
        (await t.visitor().comment(freshItem("science"), content)).statusCode;

      expect(await post("I love turbochargers")).toBe(201);
      expect(await post("Read gearbox-tips.example/guide")).toBe(201);
      appendFileSync(file, "turbocharger\nturbochargers\ngearbox-tips.example\n!casino\n");
      // A coarse file system clock must not hide the change.
      utimesSync(file, new Date(), new Date(Date.now() + 2000));
      expect(await post("I love turbochargers")).toBe(422);
      expect(await post("Read www.gearbox-tips.example/guide")).toBe(422);
      expect(await post("A casino is a building")).toBe(201);

      writeFileSync(file, "# nothing of mine\n");
      utimesSync(file, new Date(), new Date(Date.now() + 4000));
      expect(await post("I love turbochargers")).toBe(201);
      expect(await post("Another casino story")).toBe(422);
    });
  });

  describe("repeats", () => {
    it("refuses the same text from the same visitor within minutes, not from someone else", async () => {
      const postId = freshItem("science");
      const visitor = t.visitor();
      expect((await visitor.comment(postId, "Thanks!")).statusCode).toBe(201);
      const again = await visitor.comment(freshItem("science"), "Thanks!");
      expect(again.statusCode).toBe(409);
      // Refused under another post, where it is not: the message says where it is.
      expect(json(again, errorResponseSchema).error).toMatchObject({
        code: "duplicate_comment",
        message:
          "You have just posted this same comment, on this post or another; it is not posted twice.",
      });
      expect((await t.visitor().comment(postId, "Thanks!")).statusCode).toBe(201);
      // The same text to a reader, typed otherwise; a different one still goes.
      expect((await visitor.comment(postId, "Th&#97;nks\\!")).statusCode).toBe(409);
      expect((await visitor.comment(postId, "Thanks again!")).statusCode).toBe(201);
    });

    it("refuses a long text repeated from the same address under a new cookie", async () => {
      const text = "This exact paragraph, long enough not to be said twice by chance.";
      const ip = "198.51.100.23";
      expect((await t.visitor({ ip }).comment(freshItem("science"), text)).statusCode).toBe(201);
      expect((await t.visitor({ ip }).comment(freshItem("science"), text)).statusCode).toBe(409);
      const elsewhere = t.visitor({ ip: "198.51.100.24" });
      expect((await elsewhere.comment(freshItem("science"), text)).statusCode).toBe(201);
    });
  });

  describe("the owner's name", () => {
    it.each([
      "Ravi Kumar",
      "ravi kumar",
      "RAVI  KUMAR",
      "Rаvi Kumаr", // Cyrillic а
      "Ravi\u200bKumar",
      "Ｒａｖｉ Ｋｕｍａｒ",
      "R4vi Kum4r",
      "Ravi-Kumar.",
      // With more around it, or the surname cut to its initial.
      "Ravi Kumar (author)",
      "The real Ravi Kumar",
      "RaviKumar official",
      "Ravi K.",
      "ravi k",
      "Rаvi К", // Cyrillic а and К
    ])("refuses %j", async (userName) => {
      await expectRefused(
        { content: "Hello", userName },
        userName.includes("\u200b") ? 400 : 422,
        userName.includes("\u200b") ? "validation_failed" : "reserved_name",
        userName.includes("\u200b") ? /invisible/ : /site owner's name/,
      );
    });

    it("accepts other names, the owner's first name alone included", async () => {
      for (const userName of [
        "Ravi",
        "Ravi Kumari",
        "Kumar Ravi",
        "Ravindra Kumar",
        "R. Kumar",
        "R K",
        "Ravi from Pune",
      ]) {
        const response = await t.visitor().comment(freshItem("science"), "Hi", userName);
        expect(response.statusCode).toBe(201);
      }
    });
  });

  describe("the writer's name", () => {
    // Shown under the comment, in the owner's notification and in reply mails: the
    // text rules read it as they read the comment.
    it.each([
      ["Approve: https://evil.example/a", /link or a web address/],
      ["deals at bit.ly/x7", /link or a web address/],
      ["www.cheap-pills.example", /link or a web address/],
      ["Asha asha@example.com", /phone numbers or email addresses/],
      ["Call +91 98765 43210", /phone numbers or email addresses/],
      ["Viagra Sam", /words this blog blocks/],
      ["c a s i n o king", /words this blog blocks/],
    ])("refuses %j", async (userName, message) => {
      await expectRefused({ content: "Hello", userName }, 422, "blocked_content", message);
    });

    it("accepts names with initials, dots and numbers", async () => {
      for (const userName of [
        "A. B. Singh",
        "Dr. Asha Rao",
        "J.R.R. Fan",
        "Kiran (M.Tech)",
        "Team 42",
        "@asha",
      ]) {
        const response = await t.visitor().comment(freshItem("science"), "Hi", userName);
        expect([userName, response.statusCode]).toEqual([userName, 201]);
      }
    });
  });

  describe("the Author label", () => {
    it.each([
      "Sam Author",
      "Sam (author)",
      "Sam · АUTHОR", // Cyrillic А and О
      "Site Owner",
      "admin",
      "Moderator Sam",
    ])("is in no reader's name: refuses %j", async (userName) => {
      await expectRefused(
        { content: "Hello", userName },
        422,
        "reserved_name",
        /label of the site owner's own comments/,
      );
    });

    it("leaves names that merely hold its letters", async () => {
      for (const userName of ["Authority Fan", "Samowner", "Ownerson", "Adminah"]) {
        const response = await t.visitor().comment(freshItem("science"), "Hi", userName);
        expect(response.statusCode).toBe(201);
      }
    });
  });

  describe("the default lists", () => {
    it("leaves nothing of about thirty kinds of junk for other readers, and publishes ordinary comments", async () => {
      const postId = freshItem("science");
      for (const { kind, text } of junkComments) {
        const response = await t.visitor().comment(postId, text, "Visitor");
        expect([response.statusCode, kind]).toEqual([422, kind]);
      }
      expect(await comments(postId)).toEqual([]);
      for (const text of ordinaryComments) {
        const response = await t.visitor().comment(postId, text, "Reader");
        expect([
          response.statusCode,
          text,
          json(response, commentResponseSchema).comment?.awaitingApproval,
        ]).toEqual([201, text, false]);
      }
      expect((await comments(postId)).map((c) => c.content)).toEqual(ordinaryComments);
    });
  });

  describe("avatars", () => {
    it("differ between two visitors of one name, stay with one visitor, and reveal no credential", async () => {
      const postId = freshItem("science");
      const first = t.visitor();
      const second = t.visitor();
      const a1 = json(await first.comment(postId, "One", "Sam"), commentResponseSchema).comment
        .avatar;
      const a2 = json(await first.comment(postId, "Two", "Sam"), commentResponseSchema).comment
        .avatar;
      const b1 = json(await second.comment(postId, "Three", "Sam"), commentResponseSchema).comment
        .avatar;
      expect(a1).toMatch(/^[0-9a-f]{16}$/);
      expect(a2).toBe(a1);
      expect(b1).not.toBe(a1);
      const visitorId = (first.cookie ?? "").split("=")[1]!.split(".")[0]!;
      const keys = createWriterKeys(resolveCookieSecret({ DATA_DIR: t.dataDir }));
      expect(a1).toBe(keys.avatarOf(visitorId));
      expect(a1).not.toContain(visitorId);
    });
  });
});

describe("the address a ban names", () => {
  it("is an IPv4 address as it is, and an IPv6 address by its /64", () => {
    expect(addressScope("203.0.113.7")).toBe("203.0.113.7");
    expect(addressScope("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressScope("::ffff:cb00:7107")).toBe("203.0.113.7");
    expect(addressScope("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(addressScope("2001:db8:1:2::9")).toBe("2001:db8:1:2::/64");
    expect(addressScope("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressScope("::1")).toBe("0:0:0:0::/64");
  });
});
