import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { yourDataResponseSchema } from "../../contract/your-data.ts";
import { runSql } from "./support/sql.ts";
import { freshItem, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A browser that wrote for a long time (docs/product.md, "Your data"), or a
 * spammer's the owner purges: more comments than SQLite takes parameters in
 * one statement (32,766; PostgreSQL's 65,535 would take minutes to seed and
 * delete, and goes through the same parts). Its download and its deletion
 * still answer, and the deletion takes every one and nobody else's.
 */
const many = 33_000;

describe("a long history's data on sqlite", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(() => t?.close());

  it("is downloaded and deleted whole", { timeout: 120_000 }, async () => {
    const post = freshItem("science");
    const alex = t.visitor();
    await alex.comment(post, "The first of very many comments.");
    const [first] = await runSql(t, "select id from science_comments where post_id = ?", [post]);
    await runSql(
      t,
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${many - 1})
       insert into science_comments (post_id, content, user_name, visitor_id, created_at, updated_at, status)
       select post_id || '-' || i, content, user_name, visitor_id, created_at, updated_at, status
       from science_comments, n where id = ?`,
      [Number(first?.id)],
    );
    const sam = t.visitor();
    await sam.comment(post, "Sam's comment stays.", "Sam");

    const downloaded = await alex.get("/api/your-data");
    expect(downloaded.statusCode).toBe(200);
    expect(json(downloaded, yourDataResponseSchema).comments).toHaveLength(many);

    const deleted = await alex.post("/api/your-data/delete", { confirm: true });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(json(deleted)).toMatchObject({ deleted: { comments: many } });
    const left = await runSql(t, "select user_name from science_comments where post_id like ?", [
      `${post}%`,
    ]);
    expect(left).toEqual([{ user_name: "Sam" }]);
  });
});
