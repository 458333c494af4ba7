import { CompiledQuery as Compiled, type CompiledQuery, type KyselyPlugin, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bookingLimits } from "../../server/bookings/limits.ts";
import { queueMovedReminders } from "../../server/bookings/queued-mails.ts";
import { createBookingsRepository } from "../../server/bookings/repository.ts";
import { watchMailKinds } from "../../server/comments/forget-watches.ts";
import { createCommentOwnerQueries } from "../../server/comments/owner-queries.ts";
import { createCommentReads } from "../../server/comments/reads.ts";
import { commentShapes } from "../../server/comments/rows.ts";
import { createInsightsRepository } from "../../server/console/insights-repository.ts";
import { migrations } from "../../server/db/migrations.ts";
import type { Db, Store } from "../../server/db/store.ts";
import { hourlyForgetting } from "../../server/engagement/subscribers-retention.ts";
import { createVisitorDataRepository } from "../../server/engagement/visitor-data-repository.ts";
import { createEnquiriesRepository } from "../../server/enquiries/repository.ts";
import { createEventJournal } from "../../server/events/journal.ts";
import { createFediverseRepository } from "../../server/fediverse/repository.ts";
import { createListHealth } from "../../server/newsletter/list-health.ts";
import { forget } from "../../server/outbox/forget.ts";
import { createOutboxRepository, enqueue } from "../../server/outbox/queue.ts";
import { createSuppressions } from "../../server/outbox/suppressions.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { backends, siteUrl } from "./support/test-app.ts";

/*
 * The lookups a visitor, a webhook or the Fediverse sets off read the rows
 * they need by an index (migration 041, docs/architecture.md, "Reads"),
 * not the whole table: among 20,000 rows of each table the plan
 * of every statement the code issues on it names the index.
 */

/** A stand-in for the site's keyed digest of an address, which sorts as the seeded rows do. */
const standIn = (email: string) => email.trim().toLowerCase();

const rows = 20_000;

/** The console's reads, with no titles for the posts. */
const insights = (store: Store) =>
  createInsightsRepository(
    store,
    { of: () => "" } as unknown as Parameters<typeof createInsightsRepository>[1],
    () => new Date(),
  );

describe.each(backends)("lookups by index on %s", (backend) => {
  let scratch: Awaited<ReturnType<typeof scratchStore>>;
  let store: Store;
  /** Runs `insert` with the numbers 1 to `rows`, as `i`: one statement a table. */
  let seed: (insert: string) => Promise<unknown>;

  beforeAll(async () => {
    scratch = await scratchStore(backend);
    store = scratch.store;
    await scratch.migrateTo(Object.keys(migrations(backend)).at(-1) as string);
    seed = (insert: string) =>
      sql
        .raw(
          `with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows}) ${insert}`,
        )
        .execute(store.db);
    await seed(`insert into outbox (kind, email, token, status, next_attempt_at, created_at, sent_at)
      select 'edition', 'Reader' || i || '@example.com', 'token-' || i, 'sent',
        current_timestamp, current_timestamp, current_timestamp from n`);
    // Published comments under 100 posts, their writers each at an address of their own.
    await seed(`insert into science_comments
        (post_id, content, user_name, visitor_id, created_at, updated_at, status, ip_hash)
      select 'post-' || (i % 100), 'A comment.', 'Reader', 'visitor-' || i,
        current_timestamp, current_timestamp, 'published', 'ip-' || i from n`);
    // Each with its digest beside it (`standIn`'s), as the site writes them.
    await seed(`insert into subscribers (email, email_hash, unsubscribe_token, created_at, status)
      select 'reader' || i || '@example.com', 'reader' || i || '@example.com', 'token-' || i,
        current_timestamp, 'confirmed' from n`);
    // Beside them, as a site keeps them, 2,000 caught as spam and 20 held for the owner.
    await seed(`insert into science_comments
        (post_id, content, user_name, visitor_id, created_at, updated_at, status, ip_hash)
      select 'post-' || (i % 100), 'A comment.', 'Reader', 'visitor-s' || i, current_timestamp,
        current_timestamp, case when i % 100 = 0 then 'pending' else 'spam' end, 'ip-s' || i
      from n where i <= 2000`);
    for (const [table, item] of [
      ["science_reactions", "post_id"],
      ["mythology_reactions", "story_id"],
    ]) {
      await seed(`insert into ${table} (${item}, type, user_name, visitor_id, created_at)
        select 'item-' || i, 'like', 'Reader', 'visitor-' || i, current_timestamp from n`);
    }
    await seed(`insert into fediverse_replies
        (comment_id, note_id, actor_id, handle, name, url, created_at)
      select i, 'https://remote.example/notes/' || i, 'https://remote.example/users/' || i,
        '@u' || i || '@remote.example', 'U', 'https://remote.example/@u' || i, current_timestamp from n`);
    await seed(`insert into fediverse_reactions (activity_id, kind, path, actor_id, created_at)
      select 'https://remote.example/likes/' || i, 'like', '/science/post-' || (i % 100),
        'https://remote.example/users/' || i, current_timestamp from n`);
    await seed(`insert into events (topic, type, data, created_at)
      select 'science:post-' || (i % 100), 'reaction', '{}', current_timestamp from n`);
    // Calls an hour apart, ending up to 20,000 hours ago, every fifth cancelled.
    const hoursAgo =
      backend === "postgres"
        ? "now() - i * interval '1 hour'"
        : "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || i || ' hours')";
    // A hundred from each network.
    await seed(`insert into bookings (starts_at, ends_at, name, email, service, note, reader_zone,
        status, uid, ip_hash, network_hash, address_hash, created_at, updated_at)
      select ${hoursAgo}, ${hoursAgo}, 'Reader', 'reader' || i || '@example.com', 'call', '',
        'UTC', case when i % 5 = 0 then 'cancelled' else 'booked' end, 'uid-' || i, 'ip-' || i,
        'network-' || (i % 200), 'address-' || i, current_timestamp, current_timestamp from n`);
    // What the bookings' hourly limits count, as many rows (erasure leaves them).
    await seed(`insert into bookings_made (address_hash, ip_hash, network_hash, made_at)
      select 'address-' || i, 'ip-' || i, 'network-' || (i % 200), ${hoursAgo} from n`);
    await seed(`insert into enquiries (name, email, service, message, ip_hash, network_hash,
        thread_id, deletion_token_hash, created_at, updated_at)
      select 'Reader', 'reader' || i || '@example.com', 'other', 'A question.', 'ip-' || i,
        'network-' || (i % 200), 'thread-' || i, 'token-' || i, current_timestamp,
        current_timestamp from n`);
    // Suppressed addresses and followers, ten to a second.
    const second = (i: string) =>
      backend === "postgres"
        ? `timestamptz '2026-11-01T00:00:00Z' + (${i} / 10) * interval '1 second'`
        : `strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-01T00:00:00Z', '+' || (${i} / 10) || ' seconds')`;
    // Each keyed by a stand-in for its digest, which sorts as the address would.
    await seed(`insert into suppressions (email_hash, domain, reason, source, created_at)
      select 'reader' || i || '@example.com', 'example.com', 'hard_bounce', 'smtp', ${second("i")} from n`);
    await seed(`insert into fediverse_followers (actor_id, handle, inbox, follow_id, created_at)
      select 'https://remote.example/users/' || i, '@u' || i || '@remote.example',
        'https://remote.example/inbox', 'https://remote.example/follows/' || i, ${second("i")} from n`);
    if (backend === "postgres") await sql`analyze`.execute(store.db);
  }, 120_000);

  afterAll(async () => {
    await scratch?.drop();
  });

  /**
   * The plans of the statements `run` issues on `table`, run on the store
   * as the code would.
   */
  async function plansOf(table: string, run: (store: Store) => Promise<unknown>) {
    const issued: CompiledQuery[] = [];
    const recorder: KyselyPlugin = {
      transformQuery: (args) => {
        issued.push(store.db.getExecutor().compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    await run({ ...store, db: store.db.withPlugin(recorder) });
    const explain = backend === "postgres" ? "explain" : "explain query plan";
    const plans = [];
    for (const query of issued.filter((q) => q.sql.includes(`"${table}"`))) {
      const plan = await store.db.executeQuery(
        Compiled.raw(`${explain} ${query.sql}`, [...query.parameters]),
      );
      plans.push(`${query.sql}\n  ${JSON.stringify(plan.rows)}`);
    }
    expect(plans).not.toEqual([]);
    return plans;
  }

  it("finds a provider's report's address, and an address removed, among the outbox's rows by its index", async () => {
    for (const plan of await plansOf("outbox", async (recorded) => {
      const health = createListHealth({
        store: recorded,
        suppressions: {} as never,
        subscribers: {} as never,
        bounceAddress: undefined,
        verpKey: "unused",
      });
      // An address never mailed: the report changes nothing.
      expect(
        await health.handleProviderReport(" Nobody@Example.com ", "hard", {
          source: "ses",
          ref: "r",
          detail: null,
        }),
      ).toBe("ignored");
      await forget(recorded.db, {
        kinds: ["confirmation", "edition"],
        addresses: ["Nobody@Example.com"],
      });
    })) {
      expect(plan).toContain("outbox_by_email");
    }
  });

  it("reads bookings by time by an index: the times taken, the owner's lists, reminders, retention", async () => {
    for (const plan of await plansOf("bookings", async (recorded) => {
      const bookings = createBookingsRepository(recorded);
      const now = new Date();
      await bookings.taken(now);
      await bookings.list("upcoming");
      await bookings.since(now);
      await bookings.perWeek(12, "UTC");
      await recorded.db
        .transaction()
        .execute((trx) => queueMovedReminders(trx, now, undefined, undefined, [1, 2]));
      await bookings.prune(365 * 10);
    })) {
      expect(plan).not.toMatch(/SCAN bookings(?! USING)|Seq Scan/);
    }
  });

  it("counts a network's bookings and enquiries by an index, not every row", async () => {
    const hourAgo = new Date(Date.now() - 3_600_000);
    const from = { ipHash: "ip-1", networkHash: "network-1" };
    const run = (table: string, count: (recorded: Store, trx: Db) => Promise<unknown>) =>
      plansOf(table, (recorded) =>
        recorded.db.transaction().execute((trx) => count(recorded, trx)),
      );
    const connectionFull = (recorded: Store, trx: Db) =>
      bookingLimits(recorded, () => new Date()).connectionFull(trx, from, hourAgo, 1_000_000);
    const plans = [
      // The calls still ahead, in bookings; the bookings made in the hour, in bookings_made.
      ...(await run("bookings", connectionFull)),
      ...(await run("bookings_made", connectionFull)),
      ...(await run("enquiries", (recorded, trx) =>
        createEnquiriesRepository(recorded).limited(
          { ...from, email: "nobody@example.com", now: new Date(), max: 1_000_000 },
          trx,
        ),
      )),
    ].filter((plan) => plan.includes("network_hash"));
    expect(plans).toHaveLength(3);
    for (const plan of plans) {
      expect(plan).not.toMatch(/SCAN (bookings|bookings_made|enquiries)\b(?! USING)|Seq Scan/);
    }
  });

  it("lists the owner's past bookings, latest first, from the end of their time index, not by sorting them all", async () => {
    const listed: string[][] = [];
    for (const plan of await plansOf("bookings", async (recorded) => {
      listed.push((await createBookingsRepository(recorded).list("past", 50)).map((b) => b.end));
    })) {
      expect(plan).toContain("bookings_by_end");
      // Only calls that end at the same moment are put in order by their id.
      expect(plan).not.toMatch(/Seq Scan|(?<!Incremental )Sort {2}\(|TEMP B-TREE FOR ORDER BY/);
    }
    // The 50 that ended last, latest first.
    expect(listed[0]).toHaveLength(50);
    expect(listed[0]).toEqual(listed[0]?.toSorted().reverse());
    expect(Date.parse(listed[0]?.[0] ?? "")).toBeGreaterThan(Date.now() - 2 * 3600_000);
  });

  it("reads, in each hourly pass after the first, only the mails that turned 30 days old since, by their time's index", async () => {
    const start = Date.now();
    const plans = await plansOf("outbox", async (recorded) => {
      const pass = hourlyForgetting(recorded.db, standIn);
      expect(await pass(new Date(start))).toBe(0);
      expect(await pass(new Date(start + 3_600_000))).toBe(0);
    });
    expect(plans).toHaveLength(2);
    // The second between the first's 30 days ago and its own: a seek, not every mail kept.
    expect(plans[1]).toMatch(
      /coalesce\(sent_at, created_at\) > .*coalesce\(sent_at, created_at\) <=|coalesce\(sent_at, created_at\) <= .*coalesce\(sent_at, created_at\) >/,
    );
    for (const plan of plans) {
      expect(plan).toContain("outbox_by_age");
      expect(plan).not.toMatch(/SCAN outbox(?! USING)|Seq Scan on outbox/);
    }
  });

  it("finds a reply mail's stop link's token among the outbox's rows by its index", async () => {
    for (const plan of await plansOf("outbox", (recorded) =>
      forget(recorded.db, { kinds: watchMailKinds, tokens: ["no such token"] }),
    )) {
      expect(plan).toContain("outbox_by_token");
    }
  });

  it("forgets mails by their payload among the rows of their kinds, not every edition's", async () => {
    // One of each, in a state no other test leaves: each is still found.
    await sql`insert into outbox (kind, email, status, next_attempt_at, created_at, payload)
      values ('reply_confirmation', 'a@example.com', 'failed', current_timestamp, current_timestamp, '{"addressId":-1}'),
        ('webhook', null, 'cancelled', current_timestamp, current_timestamp, '{"type":"enquiry.created","enquiryId":-1,"at":"now"}')`.execute(
      store.db,
    );
    let forgotten = 0;
    for (const plan of await plansOf("outbox", async (recorded) => {
      forgotten += await forget(recorded.db, {
        kinds: ["reply_confirmation"],
        payloads: ['{"addressId":-1}'],
      });
      forgotten += await forget(recorded.db, {
        kinds: ["webhook"],
        payloadsLike: ['{"type":"enquiry.%","enquiryId":-1,%'],
      });
    })) {
      // By state and kind, not a walk of the whole index (PostgreSQL's plan without the state).
      expect(plan).toMatch(
        /outbox_due \(status=\? AND kind=\?\)|outbox_due.*Index Cond: \(\(status = ANY .* AND \(kind = /,
      );
    }
    expect(forgotten).toBe(2);
  });

  it("claims the next kind's turn of due mail by the outbox's index, not a walk of its sent rows", async () => {
    const now = new Date().toISOString();
    await enqueue(store.db, now, [
      { kind: "confirmation", email: "a@example.com" },
      { kind: "enquiry_notice", email: "owner@example.com" },
    ]);
    const claimed: string[] = [];
    for (const plan of await plansOf("outbox", async (recorded) => {
      const outbox = createOutboxRepository(recorded);
      const kinds = ["confirmation", "edition", "enquiry_notice"] as const;
      if (backend === "postgres") {
        const deliver = async (row: { kind: string }) => {
          claimed.push(row.kind);
          return { outcome: "sent" } as const;
        };
        while (await outbox.processNext(deliver, { kinds })) {}
      } else {
        for (let page = await outbox.claimPage(kinds, 8); page.length > 0; ) {
          claimed.push(...page.map((row) => row.kind));
          await outbox.recordTogether(page.map((row) => ({ row, delivery: { outcome: "sent" } })));
          page = await outbox.claimPage(kinds, 8);
        }
      }
    })) {
      expect(plan).not.toMatch(/SCAN outbox|Seq Scan on outbox/);
    }
    expect(claimed).toEqual(["confirmation", "enquiry_notice"]);
  });

  it("claims due mail behind an edition's backlog by its rows' ids, not a walk of every due row", async () => {
    const due = new Date(Date.now() - 60_000).toISOString();
    await seed(`insert into outbox (kind, email, status, next_attempt_at, created_at)
      select 'edition', 'backlog' || i || '@example.com', 'queued', '${due}', '${due}' from n`);
    await enqueue(store.db, due, [{ kind: "confirmation", email: "backlog-a@example.com" }]);
    const claimed: string[] = [];
    const plans = await plansOf("outbox", async (recorded) => {
      const outbox = createOutboxRepository(recorded);
      const kinds = ["confirmation", "edition", "enquiry_notice"] as const;
      for (let turn = 0; turn < 3; turn++) {
        if (backend === "postgres") {
          await outbox.processNext(
            async (row) => {
              claimed.push(row.kind);
              return { outcome: "sent" };
            },
            { kinds },
          );
        } else {
          const page = await outbox.claimPage(kinds, 8);
          claimed.push(...new Set(page.map((row) => row.kind)));
          await outbox.recordTogether(page.map((row) => ({ row, delivery: { outcome: "sent" } })));
        }
      }
    });
    await sql`delete from outbox where email like 'backlog%'`.execute(store.db);
    for (const plan of plans) {
      // SQLite read every queued row's entry (`outbox_due (status=?)`) to mark a page of ids.
      expect(plan).not.toMatch(/SCAN outbox|Seq Scan on outbox|outbox_due \(status=\?\)/);
    }
    expect(claimed).toEqual(["confirmation", "edition", "edition"]);
  });

  it("tells a returning live stream the journal's first and last event at its ends, not by reading it", async () => {
    const ends: (number | null)[] = [];
    for (const plan of await plansOf("events", async (recorded) => {
      const journal = createEventJournal(recorded);
      ends.push(await journal.oldestId(), await journal.latestId());
    })) {
      expect(plan).not.toMatch(/SCAN events|Seq Scan/);
    }
    expect(ends[1]! - ends[0]!).toBe(rows - 1);
  });

  it("reads a commenter's recent texts, and whether they were approved, by their own rows", async () => {
    const queries = (recorded: Store) =>
      createCommentOwnerQueries(
        recorded,
        commentShapes(() => ""),
      );
    const [texts, approved] = [
      await plansOf("science_comments", (recorded) =>
        queries(recorded).textsSentSince({
          visitorId: "visitor-new",
          ipHash: "ip-new",
          since: new Date(Date.now() - 60_000),
        }),
      ),
      await plansOf("science_comments", (recorded) => queries(recorded).isApproved("visitor-new")),
    ];
    expect(texts.join()).toContain("science_comments_by_ip");
    expect(texts.join()).toMatch(/science_comments_by_visitor/);
    expect(approved.join()).toMatch(
      backend === "sqlite" ? /science_comments_by_visitor_status/ : /science_comments_by_visitor/,
    );
  });

  it("opens a post's discussion by the post's and its threads' rows, not every published comment", async () => {
    const plans = await plansOf("science_comments", (recorded) =>
      createCommentReads(
        recorded,
        commentShapes(() => ""),
      ).openingCandidates("post-7", null, 5),
    );
    for (const plan of plans) {
      expect(plan).toMatch(/science_comments_by_(post|parent)/);
      expect(plan).not.toContain("science_comments_by_status");
    }
    if (backend === "sqlite") {
      expect(plans.join()).toContain("science_comments_by_post_status");
      expect(plans.join()).toContain("science_comments_by_parent_status");
    }
  });

  it("lists the console's newest comments from the end of their time index, not by sorting them all", async () => {
    // A search reads every comment anyway; PostgreSQL, judging a text rare, rightly scans for it.
    for (const query of backend === "sqlite" ? [{}, { q: "comment" }] : [{}]) {
      for (const plan of await plansOf("science_comments", (recorded) =>
        insights(recorded).searchComments({
          ...query,
          limit: 50,
        }),
      )) {
        expect(plan).toContain("science_comments_by_time");
      }
    }
  });

  it("shows a page of each of the console's comment tabs by status and time, not by sorting the status's comments", async () => {
    for (const status of ["pending", "spam", "published"] as const) {
      const plans = await plansOf("science_comments", (recorded) =>
        insights(recorded).searchComments({
          status,
          limit: 50,
        }),
      );
      for (const plan of plans) {
        expect(plan).not.toMatch(/TEMP B-TREE|Sort/);
        // The published, nearly every comment, from the newest of all.
        expect(plan).toContain(
          status === "published"
            ? "science_comments_by_time"
            : "science_comments_unpublished_by_time",
        );
      }
    }
  });

  it("lists the console's newest subscribers, searched or not, from the end of their time index", async () => {
    // As for comments, PostgreSQL rightly scans for a text it judges rare.
    for (const q of backend === "sqlite" ? [undefined, "reader1"] : [undefined]) {
      for (const plan of await plansOf("subscribers", (recorded) =>
        insights(recorded).searchSubscribers({
          q,
          limit: 100,
        }),
      )) {
        expect(plan).toContain("subscribers_by_time");
        expect(plan).not.toMatch(/TEMP B-TREE|Sort/);
      }
    }
  });

  it("pages the suppressed addresses and the followers from the end of their time index, deep in the list as at its start", async () => {
    const deep = { at: "2026-11-01T00:10:00.000Z", key: "zz" };
    const listed: string[][] = [];
    for (const [table, index, read] of [
      [
        "suppressions",
        "suppressions_by_time",
        async (recorded: Store) => {
          const suppressions = createSuppressions(recorded, standIn);
          for (const after of [undefined, deep]) {
            listed.push((await suppressions.list({ after, limit: 50 })).entries.map((s) => s.id));
          }
        },
      ],
      [
        "fediverse_followers",
        "fediverse_followers_by_time",
        async (recorded: Store) => {
          const repository = createFediverseRepository(recorded);
          for (const after of [undefined, deep]) {
            listed.push(
              (await repository.followersPage({ after, limit: 50 })).entries.map((f) => f.actorId),
            );
          }
        },
      ],
    ] as const) {
      for (const plan of await plansOf(table, read)) {
        expect(plan).toContain(index);
        expect(plan).not.toMatch(/Seq Scan|Sort|TEMP B-TREE/);
      }
    }
    // Ten to a second: the first page the last five seconds', the deep one from 00:10:00 back.
    expect(listed.map((page) => page.length)).toEqual([50, 50, 50, 50]);
    expect(listed[0]?.[0]).toBe(`reader${rows}@example.com`);
    expect(listed[1]?.[0]).toBe("reader6009@example.com");
    expect(listed[3]?.[0]).toBe("https://remote.example/users/6009");
  });

  it("finds one suppressed address by its key", async () => {
    for (const plan of await plansOf("suppressions", (recorded) =>
      createSuppressions(recorded, standIn).list({ email: "Reader7@Example.com", limit: 50 }),
    )) {
      expect(plan).toMatch(/sqlite_autoindex_suppressions_1 \(email_hash=\?\)|suppressions_pkey/);
    }
  });

  it("counts the comments of each tab from an index alone", async () => {
    // PostgreSQL reads an index alone once the table's pages are marked all visible, as
    // autovacuum marks them (the tests' databases run without it).
    if (backend === "postgres") await sql`vacuum science_comments`.execute(store.db);
    const counts: unknown[] = [];
    for (const plan of await plansOf("science_comments", async (recorded) => {
      counts.push(await insights(recorded).commentCounts());
    })) {
      expect(plan).toMatch(
        backend === "sqlite"
          ? /USING COVERING INDEX science_comments_counted/
          : /Index Only Scan using science_comments_counted/,
      );
    }
    expect(counts).toEqual([{ published: rows, pending: 20, spam: 1980 }]);
  });

  it("reads a visitor's reactions, and a remote actor's replies and reactions, by their index", async () => {
    const reactions = await plansOf("science_reactions", (recorded) =>
      createVisitorDataRepository(recorded).reactionsBy("visitor-7", siteUrl),
    );
    expect(reactions.join()).toContain("science_reactions_by_visitor");
    const stories = await plansOf("mythology_reactions", (recorded) =>
      createVisitorDataRepository(recorded).reactionsBy("visitor-7", siteUrl),
    );
    expect(stories.join()).toContain("mythology_reactions_by_visitor");
    const actor = "https://remote.example/users/none";
    for (const [table, index] of [
      ["fediverse_replies", "fediverse_replies_by_actor"],
      ["fediverse_reactions", "fediverse_reactions_by_actor"],
    ] as const) {
      for (const plan of await plansOf(table, async (recorded) => {
        const repository = createFediverseRepository(recorded);
        await repository.repliesByActor(actor);
        await repository.forgetActor(actor);
      })) {
        expect(plan).toContain(index);
      }
    }
  });
  it("finds a deleted comment's earlier events in the journal by its index, not every comment event of its post", async () => {
    // A post's 2,000 comments, each shown once, with its text.
    const data = (id: string) =>
      `'{"action":"added","item":{"kind":"science","id":"post-7"},"commentId":' || ${id} || ',"comment":{"id":' || ${id} || ',"content":"Words ' || ${id} || '"}}'`;
    await seed(`insert into events (topic, type, data, created_at)
      select 'science:post-7', 'comment', ${data("i")}, current_timestamp from n where i <= 2000`);
    if (backend === "postgres") await sql`analyze events`.execute(store.db);
    const plans = await plansOf("events", (recorded) =>
      recorded.db.transaction().execute((trx) =>
        createEventJournal(recorded).record(trx, "science:post-7", "comment", async () => ({
          action: "deleted",
          item: { kind: "science", id: "post-7" },
          commentId: 7,
        })),
      ),
    );
    const lookups = plans.filter((plan) => plan.includes("commentId"));
    expect(lookups).toHaveLength(1);
    // By the comment's id too, not only by the post and type its index begins with: the
    // index's expression is the lookup's own.
    for (const plan of lookups) {
      expect(plan).toMatch(
        /events_by_comment \(topic=\? AND type=\? AND <expr>=\?\)|events_by_comment.*Index Cond: .*commentId/,
      );
    }
    // The comment's text is gone from its earlier event; its neighbours' stay.
    const left = await sql<{ data: string }>`select data from events
      where topic = 'science:post-7' and type = 'comment' order by id`.execute(store.db);
    expect(left.rows.filter((row) => row.data.includes('"Words 7"'))).toEqual([]);
    expect(left.rows.filter((row) => row.data.includes('"Words 8"'))).toHaveLength(1);
  });
});
