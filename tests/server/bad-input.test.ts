import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  commentResponseSchema,
  commentsResponseSchema,
  errorResponseSchema,
  reactionsResponseSchema,
} from "../../contract/api.ts";
import { backends, json, startTestApp, type TestApp, type Visitor } from "./support/test-app.ts";

/** Text a browser might legitimately send: stored and returned exactly as given. */
const literalText = [
  ["a script tag", "<script>alert(1)</script>"],
  ["an image with onerror", '<img src=x onerror="alert(1)">'],
  ["a javascript: URL", "javascript:alert(document.cookie)"],
  ["quotes and SQL", `Robert'); DROP TABLE x;--`],
  ["SQL comment and wildcard", `" OR 1=1 -- %_`],
  ["Devanagari", "राम और सीता"],
  ["an emoji", "Ananya 🙏"],
  ["a backslash and NUL-looking text", "C:\\temp\\0"],
] as const;

/** Characters that disguise text shown to others: refused in names. */
const disguisedNames = [
  ["a right-to-left override", "Alex\u202Egnp.exe"],
  ["a left-to-right isolate", "\u2066Alex"],
  ["a zero-width space", "Al\u200Bex"],
  ["a zero-width joiner", "Al\u200Dex"],
  ["a byte-order mark", "\uFEFFAlex"],
  ["a NUL", "Alex\u0000"],
  ["a bell", "Alex\u0007"],
  ["an escape sequence", "\u001B[31mAlex"],
  ["a newline", "Alex\nSmith"],
  ["a tab", "Alex\tSmith"],
  ["a C1 control", "Alex\u0085"],
  ["DEL", "Alex\u007F"],
  ["a line separator", "Alex\u2028"],
  ["a left-to-right mark", "Alex\u200E"],
  ["a right-to-left mark", "\u200FAlex"],
  ["an Arabic letter mark", "Al\u061Cex"],
  ["only a Hangul filler", "\u3164"],
  ["only blank braille patterns", "\u2800\u2800"],
  ["only spaces", "   "],
  ["only a combining mark", "\u0301"],
  ["six marks on one letter", `A${"\u0301".repeat(6)}`],
] as const;

describe.each(backends)("bad input on %s", (backend) => {
  let t: TestApp;
  let alex: Visitor;
  const postId = "ironing";
  const storyId = "rama-duty";

  /** Everything a visitor can see of the items these tests write to. */
  const snapshot = async () => ({
    comments: json(
      await t.visitor().get(`/api/items/science/${postId}/comments`),
      commentsResponseSchema,
    ).comments,
    post: json(
      await t.visitor().get(`/api/items/science/${postId}/reactions`),
      reactionsResponseSchema,
    ).counts,
    story: json(
      await t.visitor().get(`/api/items/mythology/${storyId}/reactions`),
      reactionsResponseSchema,
    ).counts,
  });

  beforeAll(async () => {
    t = await startTestApp(backend);
    alex = t.visitor();
    await alex.comment(postId, "a comment to aim edits at");
  });
  afterAll(() => t?.close());

  it.each(literalText)("stores %s literally as a comment and a name", async (_case, text) => {
    const added = await alex.comment(postId, text, text.slice(0, 40));
    expect(added.statusCode).toBe(201);
    expect(added.headers["content-type"]).toMatch(/^application\/json/);
    const { comment } = json(added, commentResponseSchema);
    expect(comment.content).toBe(text);
    expect(comment.userName).toBe(text.slice(0, 40));
    const listed = json(
      await t.visitor().get(`/api/items/science/${postId}/comments`),
      commentsResponseSchema,
    ).comments;
    expect(listed.find((c) => c.id === comment.id)).toMatchObject({
      content: text,
      userName: text.slice(0, 40),
    });
    const reacted = await t.visitor().react("mythology", storyId, "idea", text.slice(0, 40));
    expect(reacted.statusCode).toBe(201);
  });

  it("keeps a zero-width joiner inside an emoji in a comment", async () => {
    const text = "Engineers 👩‍💻 unite";
    const added = await alex.comment(postId, text);
    expect(json(added, commentResponseSchema).comment.content).toBe(text);
  });

  it.each(disguisedNames)("refuses a name with %s, changing nothing", async (_case, userName) => {
    const before = await snapshot();
    const responses = [
      await alex.comment(postId, "hello", userName),
      await alex.react("science", postId, "like", userName),
      await alex.react("mythology", storyId, "love", userName),
      await alex.patch("/api/comments/1", { content: "edited", userName }),
    ];
    for (const response of responses) {
      expect(response.statusCode).toBe(400);
      expect(json(response, errorResponseSchema).error.code).toBe("validation_failed");
    }
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ["a right-to-left override", "Nice \u202Eevil\u202C post"],
    ["a NUL", "Nice\u0000post"],
    ["an escape sequence", "\u001B[2Jcleared"],
    ["2,001 characters", "x".repeat(2001)],
    ["a left-to-right mark", "Nice\u200E post", "text-direction"],
    ["a right-to-left mark", "\u200FNice post", "text-direction"],
    ["an Arabic letter mark", "Nice\u061C post", "text-direction"],
    ["a left-to-right embedding", "Nice \u202Apost", "text-direction"],
    ["a first-strong isolate", "Nice \u2068post\u2069", "text-direction"],
    // Markdown renders a character reference as the character: the page would show it.
    ["a right-to-left override as a reference", "Nice &#x202E;evil&#x202C; post", "text-direction"],
    ["an isolate as a decimal reference", "Nice &#8296;post&#8297;", "text-direction"],
    [
      "an override as a reference in a link's title",
      '[a](https://a.org "&#x202E;eltit")',
      "text-direction",
    ],
    ["only Hangul fillers", "\u3164\u3164", "visible character"],
    ["only a blank braille pattern", "\u2800", "visible character"],
    ["only zero-width spaces", "\u200B\u200B\u200B", "visible character"],
    ["only a word joiner and a zero-width joiner", "\u2060\u200D", "visible character"],
    ["zalgo", `Z${"\u0336\u0301\u0308".repeat(100)}algo`, "marks on one character"],
    ["six marks on one letter", `e${"\u0301".repeat(6)}`, "marks on one character"],
    ["1,990 line breaks", `top${"\n".repeat(1990)}bottom`, "blank lines in a row"],
    ["three blank lines in a row", "one\n\n\n\ntwo", "blank lines in a row"],
    ["three blank CRLF lines in a row", "one\r\n \r\n\t\r\n\r\ntwo", "blank lines in a row"],
    ["lines of invisible fillers", "one\n\u3164\n\u2800\n\u200B\ntwo", "blank lines in a row"],
  ])("refuses a comment with %s, changing nothing", async (_case, content, reason = "") => {
    const before = await snapshot();
    const added = await alex.comment(postId, content);
    expect(added.statusCode).toBe(400);
    expect(json(added, errorResponseSchema).error.message).toContain(reason);
    expect((await alex.patch("/api/comments/1", { content, userName: "Alex" })).statusCode).toBe(
      400,
    );
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ["two blank lines in a row", "one\n\n\ntwo"],
    ["Vietnamese, decomposed", "Tie\u0302\u0301ng Vie\u0323\u0302t"],
    [
      "Hebrew with points and cantillation",
      "\u05D1\u05BC\u05B0\u0591\u05BD\u05E8\u05B5\u05D0\u05E9\u05C1\u05B4\u0596\u05D9\u05EA",
    ],
    ["Tibetan stacks", "\u0F56\u0F66\u0F92\u0FB2\u0F74\u0F56\u0F66"],
    ["an emoji keycap and a flag", "1\uFE0F\u20E3 \u{1F1EE}\u{1F1F3}"],
    ["five marks on one letter", `e${"\u0301".repeat(5)}`],
    ["a text-direction reference as code, which shows as typed", "Type `&#x202E;` to flip"],
  ])("accepts a comment and a name with %s", async (_case, text) => {
    const added = await alex.comment(postId, text, text.replaceAll("\n", " ").slice(0, 40));
    expect(added.statusCode).toBe(201);
    expect(json(added, commentResponseSchema).comment.content).toBe(text);
  });

  it("keeps line breaks and tabs inside a comment, each break as a line feed", async () => {
    const added = await alex.comment(postId, "line one\r\nline two\rline three\n\tindented");
    expect(json(added, commentResponseSchema).comment.content).toBe(
      "line one\nline two\nline three\n\tindented",
    );
  });

  it.each([
    ["a lone surrogate in a name", '{"content":"hi","userName":"\\ud800"}'],
    ["a lone surrogate in a comment", '{"content":"hi \\udfff","userName":"Alex"}'],
  ])("refuses %s with 400", async (_case, payload) => {
    const before = await snapshot();
    const response = await alex.post(`/api/items/science/${postId}/comments`, payload);
    expect(response.statusCode).toBe(400);
    expect(await snapshot()).toEqual(before);
  });

  it("answers every malformed request with a 4xx JSON error, never a 500, changing nothing", async () => {
    const before = await snapshot();
    const attempts: Array<
      [string, string, string | Record<string, unknown> | undefined, Record<string, string>?]
    > = [
      ["POST", `/api/items/science/${postId}/comments`, "{not json"],
      [
        "POST",
        `/api/items/science/${postId}/comments`,
        JSON.stringify({ content: "x".repeat(1 << 20), userName: "A" }),
      ],
      [
        "POST",
        `/api/items/science/${postId}/comments`,
        { content: "hi", userName: "Alex", isAdmin: true },
      ],
      ["POST", `/api/items/science/${postId}/comments`, { content: ["hi"], userName: "Alex" }],
      ["POST", `/api/items/science/${postId}/comments`, { content: { $gt: "" }, userName: "Alex" }],
      ["POST", `/api/items/science/${postId}/comments`, "hi", { "content-type": "text/plain" }],
      [
        "POST",
        `/api/items/science/${postId}/reactions`,
        { type: "like' OR '1'='1", userName: "Alex" },
      ],
      [
        "POST",
        `/api/items/science/${encodeURIComponent("wifi' --")}/reactions`,
        { type: "like", userName: "A" },
      ],
      ["POST", "/api/items/science/%E0%A4%A/comments", { content: "hi", userName: "Alex" }],
      [
        "DELETE",
        `/api/items/science/${postId}/reactions/${encodeURIComponent("like;drop")}`,
        undefined,
      ],
      ["PATCH", "/api/comments/1%20OR%201=1", { content: "x", userName: "Alex" }],
      ["DELETE", "/api/comments/1e3", undefined],
      ["GET", `/api/items/science/${"a".repeat(5000)}/comments`, undefined],
      ["GET", "/api/events?topic=science:<script>", undefined],
      ["GET", "/api/events", undefined],
      ["PUT", "/api/comments/1", { content: "x", userName: "Alex" }],
    ];
    for (const [method, url, body, headers] of attempts) {
      const response = await alex.request(method as "POST", url, body, headers);
      expect(response.statusCode, `${method} ${url}`).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, `${method} ${url}`).toBeLessThan(500);
      expect(json(response, errorResponseSchema).error.code, `${method} ${url}`).toEqual(
        expect.any(String),
      );
    }
    expect(await snapshot()).toEqual(before);
  });

  it("reads ids and page sizes written one way only: digits, no sign, no leading zero", async () => {
    const before = await snapshot();
    // Number() reads each of these as a whole number; none is how an id is written.
    for (const id of ["01", "0x1", "1e0", "1.0", "+1", "%201", "1%20", "0b1", "0o1"]) {
      for (const [method, body] of [
        ["PATCH", { content: "edited through another spelling", userName: "Alex" }],
        ["DELETE", undefined],
      ] as const) {
        const response = await alex.request(method, `/api/comments/${id}`, body);
        expect(response.statusCode, `${method} ${id}`).toBe(400);
        expect(json(response, errorResponseSchema).error.issues, `${method} ${id}`).toEqual([
          expect.objectContaining({ path: "params.id" }),
        ]);
      }
    }
    for (const limit of ["1e1", "0x10", "010", "10.0", "+10"]) {
      const response = await t
        .visitor()
        .get(`/api/items/science/${postId}/comments?limit=${limit}`);
      expect(response.statusCode, limit).toBe(400);
      expect(json(response, errorResponseSchema).error.issues, limit).toEqual([
        expect.objectContaining({ path: "querystring.limit" }),
      ]);
    }
    expect(
      (await t.visitor().get(`/api/items/science/${postId}/comments?limit=10`)).statusCode,
    ).toBe(200);
    expect(await snapshot()).toEqual(before);
  });
});
