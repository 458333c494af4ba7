import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema } from "../../contract/api.ts";
import { deleteYourDataResponseSchema } from "../../contract/your-data.ts";
import { runSql } from "./support/sql.ts";
import { backends, freshItem, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A browser that wrote hundreds or thousands of comments under one post, or a spammer
 * the owner purges, deletes them all in one transaction: each deletion
 * rewrites that comment's earlier events in the journal (deleted means
 * deleted, docs/product.md, "Privacy"), found by the comment's index
 * (migration 055) rather than by reading every comment event of the post
 * each time. The deletion finishes and the journal keeps none of the text.
 */
// Enough to show each one's events are found and emptied; that they are found by the
// index, not by reading the post's, is pinned by lookups-by-index.test.ts.
const many = 600;

describe.each(backends)("deleting hundreds of comments on one post on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  it("leaves none of their text in the journal", { timeout: 180_000 }, async () => {
    const post = freshItem("science");
    const sam = t.visitor();
    const sams = json(
      await sam.comment(post, "Sam's comment stays.", "Sam"),
      commentResponseSchema,
    ).comment;
    const alex = t.visitor();
    await alex.comment(post, "Alex's words, number 0.", "Alex");
    const [first] = await runSql(t, "select id from science_comments where content = ?", [
      "Alex's words, number 0.",
    ]);
    const firstId = Number(first?.id);
    // Alex's other comments, each with the event that showed it, as the app writes them.
    await runSql(
      t,
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${many - 1})
       insert into science_comments (post_id, content, user_name, visitor_id, created_at, updated_at, status)
       select post_id, 'Alex''s words, number ' || i || '.', user_name, visitor_id, created_at, updated_at, status
       from science_comments, n where id = ?`,
      [firstId],
    );
    await runSql(
      t,
      `insert into events (topic, type, data, created_at)
       select e.topic, e.type,
         replace(replace(replace(e.data, 'number 0.', substr(c.content, 15)),
           '"commentId":${firstId},', '"commentId":' || c.id || ','),
           '"id":${firstId},', '"id":' || c.id || ','),
         e.created_at
       from events e, science_comments c
       where e.topic = ? and e.type = 'comment' and e.data like ? and c.post_id = ? and c.id > ?
       order by c.id`,
      [`science:${post}`, "%number 0.%", post, firstId],
    );
    const texts = await runSql(
      t,
      "select count(*) as n from events where topic = ? and data like ? and data like ?",
      [`science:${post}`, "%Alex's words, number%", '%"action":"added"%'],
    );
    expect(Number(texts[0]?.n)).toBe(many);

    const deleted = await alex.post("/api/your-data/delete", { confirm: true });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(json(deleted, deleteYourDataResponseSchema).deleted.comments).toBe(many);

    const journal = await runSql(t, "select data from events where topic = ? order by id", [
      `science:${post}`,
    ]);
    expect(journal.filter((row) => String(row.data).includes("Alex's words"))).toEqual([]);
    // Both events of each, its showing and its deletion, keep their place and carry no text;
    // Sam's comment is as it was.
    const events = journal.map((row) => JSON.parse(String(row.data)));
    const alexs = events.filter((event) => event.commentId !== sams.id);
    expect(alexs).toHaveLength(2 * many);
    for (const event of alexs)
      expect(Object.keys(event).sort()).toEqual(["action", "commentId", "item"]);
    expect(new Set(alexs.map((event) => event.action))).toEqual(new Set(["deleted"]));
    expect(
      events.filter((event) => event.comment?.content === "Sam's comment stays."),
    ).toHaveLength(1);
  });
});
