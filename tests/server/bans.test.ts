import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema, errorResponseSchema } from "../../contract/api.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import { backends, freshItem, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * `visitor ban --comment ID [--scope browser|address] [--days N]`
 * (docs/moderation.md, "Bans"): the writer's credential (and with the scope
 * "address", every browser at the address the comment came from) is refused
 * comments, replies, edits and reactions, politely, until the ban lapses or is
 * lifted; across a restart, and on every instance.
 */

const politely = /not accepted at the moment/;

describe.each(backends)("bans on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  it("refuse the writer's browser, politely, wherever it connects from, and nobody else at its address", async () => {
    const postId = freshItem("science");
    const troll = t.visitor({ ip: "203.0.113.10" });
    const { comment } = json(await troll.comment(postId, "Something rude"), commentResponseSchema);
    const { comment: answer } = json(
      await t.visitor({ ip: "203.0.113.11" }).comment(postId, "A fair question"),
      commentResponseSchema,
    );

    const run = await admin(adminEnv(t), "visitor", "ban", "--comment", String(comment.id));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Ban \d+: the writer of comment \d+ \(browser\)/);

    const again = await troll.comment(postId, "Something else");
    expect(again.statusCode).toBe(403);
    expect(json(again, errorResponseSchema).error).toMatchObject({
      code: "banned",
      message: expect.stringMatching(politely),
    });
    expect(json(again, errorResponseSchema).error.message).not.toMatch(/ban|comment \d/i);
    // Every write it may try: a reply, an edit, a reaction, and from another address.
    for (const refused of [
      await troll.reply(postId, answer.id, "A reply"),
      await troll.patch(`/api/comments/${comment.id}`, { content: "edited", userName: "Alex" }),
      await troll.react("science", postId, "dislike"),
    ]) {
      expect(json(refused, errorResponseSchema).error).toMatchObject({
        code: "banned",
        message: expect.stringMatching(politely),
      });
    }
    const elsewhere = t.visitor({ ip: "203.0.113.99" });
    elsewhere.cookie = troll.cookie;
    expect((await elsewhere.comment(postId, "From the phone")).statusCode).toBe(403);
    // Another browser behind the same office or carrier address is not touched.
    const colleague = t.visitor({ ip: "203.0.113.10" });
    expect((await colleague.comment(postId, "Same office, my own words")).statusCode).toBe(201);
    expect((await colleague.react("science", postId, "like")).statusCode).toBe(201);

    const listed = await admin(adminEnv(t), "visitor", "bans");
    expect(listed.stdout).toMatch(
      new RegExp(
        `^id\\tcomment\\tcreated_at\\texpires_at\\tcovers\\n\\d+\\t${comment.id}\\t\\S+Z\\tnever\\tbrowser\\n$`,
      ),
    );

    const lifted = await admin(adminEnv(t), "visitor", "unban", "--comment", String(comment.id));
    expect(lifted).toMatchObject({ code: 0, stdout: "Lifted 1 ban.\n" });
    expect((await troll.comment(postId, "I will behave")).statusCode).toBe(201);
    expect((await admin(adminEnv(t), "visitor", "bans", "--json")).stdout.trim()).toBe("[]");
    // The writer may still take their own words back.
    expect((await troll.delete(`/api/comments/${comment.id}`)).statusCode).toBe(204);
  });

  it("refuse, with --scope address, every browser at the address the comment came from", async () => {
    const postId = freshItem("science");
    const troll = t.visitor({ ip: "203.0.113.40" });
    const { comment } = json(await troll.comment(postId, "Something rude"), commentResponseSchema);
    const run = await admin(
      adminEnv(t),
      ...["visitor", "ban", "--comment", String(comment.id), "--scope", "address"],
    );
    expect(run.stdout).toMatch(/^Ban \d+: the writer of comment \d+ \(browser and address\)/);

    const freshCookie = t.visitor({ ip: "203.0.113.40" });
    const refused = await freshCookie.comment(postId, "New browser, same line");
    expect(refused.statusCode).toBe(403);
    expect(refused.cookies).toEqual([]);
    const moved = t.visitor({ ip: "203.0.113.41" });
    moved.cookie = troll.cookie;
    expect((await moved.react("science", postId, "like")).statusCode).toBe(403);
    expect((await t.visitor({ ip: "203.0.113.41" }).comment(postId, "Hello")).statusCode).toBe(201);
    expect((await admin(adminEnv(t), "visitor", "bans")).stdout).toContain("\tbrowser+address\n");
    await admin(adminEnv(t), "visitor", "unban", "--comment", String(comment.id));

    // A comment older than bans names no address: that ban is refused, and nothing changes.
    await runSql(t, "update science_comments set ip_hash = null where id = ?", [comment.id]);
    const old = await admin(
      adminEnv(t),
      ...["visitor", "ban", "--comment", String(comment.id), "--scope", "address"],
    );
    expect(old.code).toBe(1);
    expect(old.stderr).toContain("only its browser can be banned");
    expect((await admin(adminEnv(t), "visitor", "bans", "--json")).stdout.trim()).toBe("[]");
  });

  it("lapse after --days", async () => {
    const postId = freshItem("science");
    const writer = t.visitor({ ip: "203.0.113.20" });
    const { comment } = json(await writer.comment(postId, "Borderline"), commentResponseSchema);
    const run = await admin(
      adminEnv(t),
      "visitor",
      "ban",
      "--comment",
      String(comment.id),
      "--days",
      "2",
    );
    const expires = /until (\S+Z)\./.exec(run.stdout)?.[1];
    expect(Date.parse(expires ?? "") - Date.now()).toBeGreaterThan(2 * 86_400_000 - 60_000);
    expect((await writer.comment(postId, "Still here")).statusCode).toBe(403);

    // Two days later, as far as the ban is concerned.
    await runSql(t, "update bans set expires_at = ? where comment_id = ?", [
      new Date(Date.now() - 1000).toISOString(),
      comment.id,
    ]);
    expect((await writer.comment(postId, "Back again")).statusCode).toBe(201);
    expect(
      (await admin(adminEnv(t), "visitor", "unban", "--comment", String(comment.id))).code,
    ).toBe(3);
  });

  it("are forgotten once they have lapsed or been lifted, when an instance starts and hourly", async () => {
    const postId = freshItem("science");
    const ids: number[] = [];
    for (const [n, ip] of ["203.0.113.50", "203.0.113.51", "203.0.113.52"].entries()) {
      const writer = t.visitor({ ip });
      const { comment } = json(await writer.comment(postId, `Rude ${n}`), commentResponseSchema);
      ids.push(comment.id);
      const scope = ["--scope", "address"];
      expect(
        (await admin(adminEnv(t), "visitor", "ban", "--comment", String(comment.id), ...scope))
          .code,
      ).toBe(0);
    }
    const [lapsed, lifted, standing] = ids;
    await runSql(t, "update bans set expires_at = ? where comment_id = ?", [
      new Date(Date.now() - 1000).toISOString(),
      Number(lapsed),
    ]);
    await admin(adminEnv(t), "visitor", "unban", "--comment", String(lifted));
    const banned = async () =>
      (
        await runSql(t, "select comment_id from bans where comment_id in (?, ?, ?)", [
          Number(lapsed),
          Number(lifted),
          Number(standing),
        ])
      ).map((row) => Number(row.comment_id));

    // A second instance on the same database prunes as it starts.
    const second = await startTestApp(backend, {
      ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : { dataDir: t.dataDir }),
    });
    try {
      await expect.poll(banned, { timeout: 20_000 }).toEqual([standing]);
    } finally {
      await second.close();
    }
    expect((await t.visitor({ ip: "203.0.113.52" }).comment(postId, "Still me")).statusCode).toBe(
      403,
    );
  });

  it("refuse wrong usage and unknown comments without changing anything", async () => {
    const env = adminEnv(t);
    expect((await admin(env, "visitor", "ban")).code).toBe(2);
    expect((await admin(env, "visitor", "ban", "--comment", "1", "--days", "0")).code).toBe(2);
    expect((await admin(env, "visitor", "ban", "--comment", "1", "--days", "1.5")).code).toBe(2);
    expect((await admin(env, "visitor", "ban", "--comment", "999999")).code).toBe(3);
    expect((await admin(env, "visitor", "ban", "--comment", "1", "--scope", "office")).code).toBe(
      2,
    );
    expect((await admin(env, "visitor", "unban")).code).toBe(2);
    expect((await admin(env, "visitor", "unban", "--ban", "1", "--comment", "1")).code).toBe(2);
    expect((await admin(env, "visitor", "unban", "--ban", "999999")).code).toBe(3);
  });

  it("refuse the owner's own comment, from the console and the command line: nobody to ban, no junk to teach", async () => {
    const postId = freshItem("science");
    const { comment } = json(
      await t.visitor({ ip: "203.0.113.50" }).comment(postId, "How hot does an iron get?"),
      commentResponseSchema,
    );
    const owner = new Owner(t);
    await owner.signIn();
    const answered = await owner.post(`/api/admin/comments/${comment.id}/reply`, {
      content: "About 200 degrees on cotton.",
    });
    expect(answered.statusCode).toBe(201);
    const mine = json(answered, commentResponseSchema).comment.id;
    const refusal = `Comment ${mine} is your own: it cannot be marked as spam, nor its writer banned. Delete it if it should go.`;
    for (const asked of [
      await owner.post(`/api/admin/comments/${mine}/ban`, { days: 30, scope: "browser" }),
      await owner.post(`/api/admin/comments/${mine}/spam`),
    ]) {
      expect(asked.statusCode).toBe(409);
      expect(json(asked, errorResponseSchema).error.message).toBe(refusal);
    }
    for (const argv of [
      ["visitor", "ban", "--comment", String(mine)],
      ["comments", "spam", String(mine)],
    ]) {
      const run = await admin(adminEnv(t), ...argv);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`${refusal}\n`);
    }
    // Nothing changed: no ban, still published, and the filter learnt nothing.
    expect(await runSql(t, "select id from bans where comment_id = ?", [mine])).toEqual([]);
    expect(await runSql(t, "select status from science_comments where id = ?", [mine])).toEqual([
      { status: "published" },
    ]);
    expect(await runSql(t, "select id from spam_examples where comment_id = ?", [mine])).toEqual(
      [],
    );
    expect((await owner.post(`/api/admin/comments/${comment.id}/spam`)).statusCode).toBe(204);
  });
});

describe.each(backends)("a ban on %s", (backend) => {
  it("holds across a restart", async () => {
    const first = await startTestApp(backend, {
      env: { COOKIE_SECRET: "restart-secret-0123456789abcdefghijkl" },
    });
    let second: TestApp | undefined;
    try {
      const writer = first.visitor({ ip: "192.0.2.30" });
      const { comment } = json(
        await writer.comment("wifi", "Before the restart"),
        commentResponseSchema,
      );
      expect(
        (
          await admin(
            adminEnv(first),
            ...["visitor", "ban", "--comment", String(comment.id), "--scope", "address"],
          )
        ).code,
      ).toBe(0);
      await first.app.close();

      second = await startTestApp(backend, {
        env: { COOKIE_SECRET: "restart-secret-0123456789abcdefghijkl" },
        dataDir: first.dataDir,
        ...(first.databaseUrl ? { databaseUrl: first.databaseUrl } : {}),
      });
      const after = second.visitor({ ip: "192.0.2.31" });
      after.cookie = writer.cookie;
      expect((await after.comment("wifi", "After the restart")).statusCode).toBe(403);
      expect(
        (await second.visitor({ ip: "192.0.2.30" }).comment("wifi", "Same line")).statusCode,
      ).toBe(403);
    } finally {
      await second?.close();
      await first.close();
    }
  });
});

describe("a ban with two instances on one PostgreSQL", () => {
  const env = { COOKIE_SECRET: "two-instances-secret-0123456789abcdefgh" };
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp("postgres", { env });
    b = await startTestApp("postgres", { env, databaseUrl: a.databaseUrl });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("is refused by both, and lifted on both", async () => {
    const postId = freshItem("science");
    const onA = a.visitor({ ip: "198.51.100.40" });
    const { comment } = json(await onA.comment(postId, "Written on A"), commentResponseSchema);
    const onB = b.visitor({ ip: "198.51.100.41" });
    onB.cookie = onA.cookie;
    expect((await onB.comment(postId, "Written on B")).statusCode).toBe(201);

    await admin(
      adminEnv(a),
      ...["visitor", "ban", "--comment", String(comment.id), "--scope", "address"],
    );
    expect((await onA.comment(postId, "Again on A")).statusCode).toBe(403);
    expect((await onB.comment(postId, "Again on B")).statusCode).toBe(403);
    expect(
      (await b.visitor({ ip: "198.51.100.40" }).react("science", postId, "like")).statusCode,
    ).toBe(403);

    await admin(adminEnv(b), "visitor", "unban", "--comment", String(comment.id));
    expect((await onA.comment(postId, "Free on A")).statusCode).toBe(201);
    expect((await onB.comment(postId, "Free on B")).statusCode).toBe(201);
  });
});
