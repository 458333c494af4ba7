import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { followersResponseSchema } from "../../contract/fediverse.ts";
import { encodeListPlace, suppressionsResponseSchema } from "../../contract/list-pages.ts";
import { migrateToLatest } from "../../server/db/store.ts";
import { createFediverseRepository } from "../../server/fediverse/repository.ts";
import { suppressionKey } from "../../server/lib/mailbox.ts";
import { createSuppressions } from "../../server/outbox/suppressions.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { Owner } from "./support/owner.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { runSql, seedSuppressed } from "./support/sql.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The owner's long lists a page at a time (server/db/list-pages.ts): the
 * suppressed addresses and the Fediverse followers, newest first, each page
 * from where the last ended. Seeded with three rows to a second, so that
 * pages end inside a second and the key decides; a row added between two
 * pages is on the first and makes no later page skip or repeat one.
 */

const suppressed = 230;
const following = 120;
const second = (i: number) => new Date(Date.UTC(2026, 10, 1) + Math.floor(i / 3) * 1000);
const address = (i: number) => `reader${i}@example.com`;
const account = (i: number) => `https://social.example/users/u${i}`;

/** Newest first, ties by key from the last: the order every page comes in. */
const newestFirst = (rows: { at: Date; key: string }[]) =>
  rows
    .toSorted((a, b) => b.at.getTime() - a.at.getTime() || (a.key < b.key ? 1 : -1))
    .map((row) => row.key);

describe.each(backends)("the owner's long lists a page at a time, on %s", (backend) => {
  let t: TestApp;
  let owner: Owner;

  beforeAll(async () => {
    t = await startTestApp(backend, { env: { FEDIVERSE_HANDLE: "arjun" } });
    owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const values = (n: number, row: (i: number) => string) =>
      Array.from({ length: n }, (_, i) => row(i)).join(", ");
    await runSql(
      t,
      `insert into suppressions (email_hash, domain, reason, source, detail, created_at) values ${values(
        suppressed,
        (i) =>
          `('${t.addressKey(address(i))}', 'example.com', 'hard_bounce', 'smtp', null, '${second(i).toISOString()}')`,
      )}`,
    );
    await runSql(
      t,
      `insert into fediverse_followers (actor_id, handle, name, inbox, follow_id, created_at) values ${values(
        following,
        (i) =>
          `('${account(i)}', '@u${i}@social.example', null, '${account(i)}/inbox', '${account(i)}#follow', '${second(i).toISOString()}')`,
      )}`,
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  const suppressions = async (body: Record<string, unknown>) =>
    json(await owner.post("/api/admin/suppressions/search", body), suppressionsResponseSchema);
  /** The suppressed rows' ids, in the order of every page. */
  const listOrder = () =>
    newestFirst(
      Array.from({ length: suppressed }, (_, i) => ({
        at: second(i),
        key: t.addressKey(address(i)),
      })),
    );

  it("pages through the suppressed addresses newest first, each once, one suppressed meanwhile on the first page only", async () => {
    const seen: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const page = await suppressions(next ? { after: next, limit: 50 } : { limit: 50 });
      expect(page.suppressions.length).toBeLessThanOrEqual(50);
      seen.push(...page.suppressions.map((s) => s.id));
      next = page.next;
      pages += 1;
      // Between the first and the second page, an address is suppressed: it is the newest.
      if (pages === 1) {
        await seedSuppressed(t, [
          { email: "late@example.com", reason: "complaint", source: "ses" },
        ]);
      }
    } while (next);
    expect(pages).toBe(5);
    expect(seen).toEqual(listOrder());
    // The next visit's first page has it on top; the default page is 50.
    const first = await suppressions({});
    expect(first.suppressions.map((s) => s.id).slice(0, 2)).toEqual([
      t.addressKey("late@example.com"),
      seen[0],
    ]);
    expect(first.suppressions).toHaveLength(50);
    // No address is kept and the site holds none of these: each shows its domain only.
    expect(new Set(first.suppressions.map((s) => `${s.email} ${s.domain}`))).toEqual(
      new Set(["null example.com"]),
    );
    await runSql(t, "delete from suppressions where email_hash = ?", [
      t.addressKey("late@example.com"),
    ]);
  });

  it("finds one suppressed address in any letter case, and says none for one that is not", async () => {
    const found = await suppressions({ email: "  Reader17@Example.COM " });
    expect(found).toEqual({
      suppressions: [
        {
          id: t.addressKey(address(17)),
          email: "reader17@example.com",
          domain: "example.com",
          reason: "hard_bounce",
          source: "smtp",
          detail: null,
          createdAt: second(17).toISOString(),
        },
      ],
      next: null,
    });
    // Exact: a part of an address finds nothing.
    expect(await suppressions({ email: "reader1" })).toEqual({ suppressions: [], next: null });
  });

  it("pages through the followers newest first with their number, the command line listing the same", async () => {
    const seen: string[] = [];
    let query = "";
    let added = false;
    for (;;) {
      const page = json(await owner.get(`/api/admin/followers${query}`), followersResponseSchema);
      expect(page.total).toBe(following + (added ? 1 : 0));
      seen.push(...page.followers.map((f) => f.actorId));
      if (!page.next) break;
      if (!added) {
        await runSql(
          t,
          "insert into fediverse_followers (actor_id, handle, name, inbox, follow_id, created_at) values (?, '@new@social.example', null, ?, ?, ?)",
          [
            account(999),
            `${account(999)}/inbox`,
            `${account(999)}#follow`,
            new Date().toISOString(),
          ],
        );
        added = true;
      }
      query = `?after=${encodeURIComponent(page.next)}`;
    }
    const expected = newestFirst(
      Array.from({ length: following }, (_, i) => ({ at: second(i), key: account(i) })),
    );
    expect(seen).toEqual(expected);

    // The command line walks the same pages, 200 at a time: every row, once, in that order.
    const env = adminEnv(t);
    const printed = await admin(env, "fediverse", "followers");
    expect(printed.code).toBe(0);
    const lines = printed.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("handle\tname\tfollowed_at\tactor");
    expect(lines.slice(1).map((line) => line.split("\t")[3])).toEqual([account(999), ...expected]);
    const listed = await admin(env, "suppressions", "list", "--json");
    const all = JSON.parse(listed.stdout) as { id: string }[];
    expect(all.map((s) => s.id)).toEqual(listOrder());
    expect(listed.stdout).toBe(`${JSON.stringify(all, null, 2)}\n`);
  });

  it("refuses a cursor it did not write and a page too large with a 400 that says so, and changes nothing", async () => {
    const count = async () => (await runSql(t, "select count(*) as n from suppressions"))[0]?.n;
    const before = await count();
    const place = encodeListPlace({ at: second(9).toISOString(), key: t.addressKey(address(9)) });
    for (const [body, says] of [
      [{ after: "not-a-cursor!" }, "This is not a cursor from this list."],
      [{ after: `${place}=` }, "This is not a cursor from this list."],
      [{ after: btoa("yesterday~reader9@example.com") }, "This is not a cursor from this list."],
      [{ after: "x".repeat(5000) }, "This is not a cursor from this list."],
      [{ limit: 100_000 }, "limit is a whole number from 1 to 200."],
      [{ limit: 0 }, "limit is a whole number from 1 to 200."],
      [{ limit: 2.5 }, "body.limit"],
    ] as const) {
      const response = await owner.post("/api/admin/suppressions/search", body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(json(response, errorResponseSchema).error.message).toContain(says);
    }
    for (const query of ["?after=not-a-cursor", "?limit=100000", "?limit=-1", "?after="]) {
      const response = await owner.get(`/api/admin/followers${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(json(response, errorResponseSchema).error.code).toBe("validation_failed");
    }
    expect(await count()).toEqual(before);
    // A cursor of ours reads the page after its place: in its second, the keys before it.
    const after = await suppressions({ after: place, limit: 3 });
    const order = listOrder();
    const at = order.indexOf(t.addressKey(address(9)));
    expect(after.suppressions.map((s) => s.id)).toEqual(order.slice(at + 1, at + 4));
  });
});

/*
 * A page's cursor holds its last row's time to the millisecond (contract/list-pages.ts).
 * A time stored finer (PostgreSQL's now() keeps microseconds) would sort after the
 * cursor made from it, and a row of that millisecond could be skipped at a page's end.
 * No path writes one: the site's writers give JavaScript's ISO times, an import
 * normalizes its times so, and no column defaults to the database's clock.
 */
describe.each(backends)("the lists' times, to the millisecond, on %s", (backend) => {
  it("are written so by the site's writers, with no default from the database's clock", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { store } = scratch;
      await migrateToLatest(store);
      await createSuppressions(store, suppressionKey("a test secret of 32 characters.")).suppress(
        "late@example.com",
        "hard_bounce",
        {
          source: "smtp",
        },
      );
      await createFediverseRepository(store).follow({
        actorId: account(1),
        handle: "@u1@social.example",
        name: null,
        inbox: `${account(1)}/inbox`,
        sharedInbox: null,
        followId: `${account(1)}#follow`,
      });
      for (const table of ["suppressions", "fediverse_followers"]) {
        const finer =
          backend === "postgres"
            ? sql`select created_at from ${sql.table(table)} where created_at <> date_trunc('milliseconds', created_at)`
            : sql`select created_at from ${sql.table(table)} where created_at not glob '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z'`;
        expect((await finer.execute(store.db)).rows, table).toEqual([]);
        const written = sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`;
        expect(Number((await written.execute(store.db)).rows[0]?.n), table).toBe(1);
        const defaults =
          backend === "postgres"
            ? sql`select column_default from information_schema.columns where table_name = ${table} and column_name = 'created_at'`
            : sql`select dflt_value as column_default from pragma_table_info(${table}) where name = 'created_at'`;
        expect((await defaults.execute(store.db)).rows, table).toEqual([{ column_default: null }]);
      }
    } finally {
      await scratch.drop();
    }
  });
});
