import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasNoControlOrDirectionCharacters } from "../../contract/text.ts";
import { markdownRefusal, renderComment } from "../../server/comments/markdown.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { backends } from "./support/test-app.ts";

/*
 * Migration 061: comments stored before a text-direction character written as a
 * character reference (`&#x202E;`) was refused keep it no more, in their text or
 * their HTML, so they no longer run backwards on pages and in mails, and an
 * export of them imports. What never showed such a character is left as it was.
 */
describe.each(backends)("comments' text-direction characters, migrated, on %s", (backend) => {
  let scratch: Awaited<ReturnType<typeof scratchStore>>;
  beforeAll(async () => {
    scratch = await scratchStore(backend);
  });
  afterAll(async () => {
    await scratch?.drop();
  });

  it("takes them out of the text and the HTML of the comments that showed them, and of no other", async () => {
    await scratch.migrateTo("060_bookings_made");
    const db = scratch.store.db;
    // As the site stored them: the HTML rendered when written, or none on comments older than Markdown.
    const stored: [content: string, html: string | null][] = [
      ["Nice &#x202E;evil&#x202C; post", renderComment("Nice &#x202E;evil&#x202C; post")],
      ["A mark &rlm;here and &#8296;there&#0008297;", renderComment("A mark &rlm;here")],
      ['[a](https://a.org "&#X202e;eltit")', renderComment('[a](https://a.org "&#X202e;eltit")')],
      ["&#x2067;older than Markdown", null],
      ["Type `&#x202E;` to flip", renderComment("Type `&#x202E;` to flip")],
      ["&#x000202E; is not a reference", renderComment("&#x000202E; is not a reference")],
      ["Plain &amp; simple", null],
    ];
    for (const [index, [content, html]] of stored.entries()) {
      await sql`insert into science_comments
          (id, post_id, content, content_html, user_name, visitor_id, created_at, updated_at)
        values (${index + 1}, 'soap', ${content}, ${html}, 'Asha', 'visitor', '2026-12-01T10:00:00.000Z',
          '2026-12-01T10:00:00.000Z')`.execute(db);
    }
    await scratch.migrateTo("061_comment_directions");
    const { rows } = await sql<{ content: string; content_html: string | null }>`
      select content, content_html from science_comments order by id`.execute(db);
    expect(rows.map((row) => row.content)).toEqual([
      "Nice evil post",
      "A mark here and there",
      '[a](https://a.org "eltit")',
      "older than Markdown",
      "Type `&#x202E;` to flip",
      "&#x000202E; is not a reference",
      "Plain &amp; simple",
    ]);
    expect(rows.map((row) => row.content_html)).toEqual([
      renderComment("Nice evil post"),
      renderComment("A mark here"),
      renderComment('[a](https://a.org "eltit")'),
      null,
      stored[4]?.[1],
      stored[5]?.[1],
      null,
    ]);
    // Each would now be taken as a new comment: what a page renders carries no such character.
    for (const row of rows) {
      expect(markdownRefusal(row.content), row.content).toBeNull();
      expect(
        hasNoControlOrDirectionCharacters(row.content_html ?? renderComment(row.content)),
      ).toBe(true);
    }
  });
});
