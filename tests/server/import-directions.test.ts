import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentsResponseSchema } from "../../contract/api.ts";
import { renderComment } from "../../server/comments/markdown.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * An export taken before a text-direction character written as a character
 * reference (`&#x202E;`) was refused may be the only copy a disaster leaves:
 * its import, and the dry run before it, take such a comment and clean it as
 * migration 061 cleans a stored one (the characters typed too, which older
 * versions took), and say how many; one that held nothing
 * else comes in empty, as the migration leaves it, and its site's export of
 * it imports too. A reader's new comment with one is still refused.
 */

const at = "2026-12-01T10:00:00.000Z";
/** As the version before 7 December 2026 stored them: the HTML rendered when written. */
const stored: [content: string, html: string | null][] = [
  ["Nice &#x202E;evil&#x202C; post", renderComment("Nice &#x202E;evil&#x202C; post")],
  ['[a](https://a.org "&#X202e;eltit")', renderComment('[a](https://a.org "&#X202e;eltit")')],
  // Older than Markdown: rendered when read.
  ["&#x2067;older than Markdown", null],
  // Typed, as the site took a right-to-left mark before 23 November 2026.
  ["A mark \u200Fhere", renderComment("A mark \u200Fhere")],
  // Nothing but the reference: the migration leaves it empty.
  ["&#x202E;", renderComment("&#x202E;")],
  // In code the reference shows as typed, and stays.
  ["Type `&#x202E;` to flip", renderComment("Type `&#x202E;` to flip")],
];
/** What migration 061 leaves of them (tests/server/comment-directions-migrated.test.ts). */
const cleaned = [
  "Nice evil post",
  '[a](https://a.org "eltit")',
  "older than Markdown",
  "A mark here",
  "",
  "Type `&#x202E;` to flip",
];

describe.each(backends)("an export taken before the text-direction rule, on %s", (backend) => {
  let source: TestApp;
  let target: TestApp;
  const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-directions-"));
  const exported = path.join(dir, "before-the-upgrade.json");
  const comments = async () =>
    json(await target.visitor().get("/api/items/science/soap/comments"), commentsResponseSchema)
      .comments;

  beforeAll(async () => {
    source = await startTestApp(backend);
    // Restored where it was taken, with the site's cookie secret (docs/backups.md).
    const targetData = path.join(dir, "target-data");
    mkdirSync(targetData, { mode: 0o700 });
    copyFileSync(
      path.join(source.dataDir, "cookie-secret"),
      path.join(targetData, "cookie-secret"),
    );
    target = await startTestApp(backend, { dataDir: targetData });
    for (const [content, html] of stored) {
      await runSql(
        source,
        `insert into science_comments (post_id, user_name, content, content_html, visitor_id, status, by_owner, created_at, updated_at)
         values ('soap', 'Asha', ?, ?, 'imported:test:asha', 'published', 0, ?, ?)`,
        [content, html, at, at],
      );
    }
    const run = await admin(adminEnv(source), "export", "--out", exported);
    expect(run.code).toBe(0);
  });
  afterAll(async () => {
    await source?.close();
    await target?.close();
  });

  it("imports, dry run first, each such comment cleaned as the upgrade cleans it, and says how many", async () => {
    const said = [
      "5 comments had text-direction characters removed",
      "1 comment has no text: it held nothing but text-direction characters",
    ];
    const dry = await admin(adminEnv(target), "import", "--from", "export", "--dry-run", exported);
    expect(dry.stderr).toBe("");
    expect(dry.code).toBe(0);
    for (const words of said) expect(dry.stdout).toContain(words);
    expect(await runSql(target, "select id from science_comments")).toEqual([]);

    const run = await admin(adminEnv(target), "import", "--from", "export", exported);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    for (const words of said) expect(run.stdout).toContain(words);
    const shown = await comments();
    expect(shown.map((comment) => comment.content)).toEqual(cleaned);
    // What pages and mails show: no text-direction character, each as its text renders.
    expect(shown.map((comment) => comment.html)).toEqual(
      cleaned.map((text) => renderComment(text)),
    );
    expect(shown.map((comment) => comment.html).join("")).not.toMatch(
      /[\u202A-\u202E\u2066-\u2069]/,
    );
    // The empty one keeps its writer, its name and its time, as the upgraded site keeps it.
    expect(shown[4]).toMatchObject({ userName: "Asha", deleted: false, html: "" });
  });

  it("imports the upgraded site's own export of the emptied comment again", async () => {
    const again = path.join(dir, "after-the-upgrade.json");
    expect((await admin(adminEnv(target), "export", "--out", again)).code).toBe(0);
    const run = await admin(adminEnv(target), "import", "--from", "export", "--dry-run", again);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("1 comment has no text");
    expect(run.stdout).not.toContain("text-direction characters removed");
  });

  it("still refuses a reader's new comment that holds one", async () => {
    const posted = await target.visitor().comment("soap", "Nice &#x202E;evil&#x202C; post", "Ravi");
    expect(posted.statusCode).toBe(400);
    expect(posted.body).toContain("text-direction");
    expect(await comments()).toHaveLength(cleaned.length);
  });
});
