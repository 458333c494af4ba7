import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import { defaultAvailability } from "../../contract/bookings.ts";
import { commentEventSchema } from "../../contract/live-events.ts";
import { writtenSchema } from "../../scripts/export-schema.ts";
import { exportTables, tablesLeftOut } from "../../server/portability/tables.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { requestSubscription } from "./support/newsletter.ts";
import { commentRow as comment, exportFile } from "./support/signed-export.ts";
import { runSql, seedConfirmed } from "./support/sql.ts";
import { type Backend, backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * `admin export` writes everything the owner owns; `admin import --from export`
 * reads it back whole into an empty database, on either engine: the way to
 * move from SQLite to PostgreSQL (docs/product.md, "Moving in and out").
 */

const scratch = () => mkdtempSync(path.join(os.tmpdir(), "ewe-export-"));

type ExportFile = {
  format: string;
  version: number;
  exportedAt: string;
  settings: Record<string, unknown>;
  tables: Record<string, Record<string, unknown>[]>;
};

const omitAudit = ({ owner_audit: _, ...rest }: ExportFile["tables"]) => rest;

/** The file but for its time, and for the whole file's signature, which covers the time. */
const withoutTime = (text: string) =>
  text
    .replace(/"exportedAt": "[^"]+"/, '"exportedAt": "(time)"')
    .replace(/"signature": "[0-9a-f]{64}"/, '"signature": "(of the time)"');

/** A site with some of everything: comments, a reply, a deleted comment, reactions, subscribers, an enquiry, a ban. */
async function seed(t: TestApp): Promise<void> {
  const reader = t.visitor();
  const first = json(
    await reader.comment("soap", "Why does soap lather less in hard water?", "Asha"),
    commentResponseSchema,
  );
  expect(first.comment.id).toBeGreaterThan(0);
  const reply = await t
    .visitor()
    .reply("soap", first.comment.id, "Calcium ions bind the **surfactant** first.", "Meera");
  expect(reply.statusCode).toBe(201);
  // The owner's answer, as the console writes one.
  const now = new Date().toISOString();
  await runSql(
    t,
    `insert into science_comments (post_id, parent_id, user_name, content, content_html, visitor_id, status, by_owner, created_at, updated_at)
     values ('soap', ?, 'The author', 'Yes: hard water holds calcium.', '<p>Yes: hard water holds calcium.</p>', 'owner', 'published', 1, ?, ?)`,
    [first.comment.id, now, now],
  );
  const gone = json(
    await t.visitor().comment("wifi", "Walls of brick slow my signal a lot.", "Ravi"),
    commentResponseSchema,
  );
  expect((await admin(adminEnv(t), "comments", "delete", String(gone.comment.id))).code).toBe(0);
  expect((await reader.react("science", "soap", "idea", "Asha")).statusCode).toBeLessThan(300);
  expect((await reader.react("mythology", "garuda", "love", "Asha")).statusCode).toBeLessThan(300);
  await seedConfirmed(t, ["reader.one@example.org"]);
  expect((await requestSubscription(t, "pending.reader@example.org")).statusCode).toBe(202);
  await runSql(
    t,
    `insert into enquiries (name, email, service, organisation, timeline, message, status, kept, ip_hash, thread_id, deletion_token_hash, created_at, updated_at)
     values (?, ?, 'dfmea', null, 'Spring', ?, 'answered', 0, 'hash-of-address', '<ack-1@ewe.test>', 'deletion-hash-1', ?, ?)`,
    ["Priya Raman", "priya@example.org", "A DFMEA workshop for six engineers, please.", now, now],
  );
  await runSql(
    t,
    // Moved twice, once by the owner (decision 071).
    `insert into bookings (starts_at, ends_at, name, email, service, note, reader_zone, status, uid, sequence, owner_moves, meeting_url, token_hash, visitor_id, ip_hash, address_hash, created_at, updated_at)
     values (?, ?, 'Meera Iyer', 'meera@example.org', 'dfmea', 'A second opinion on our DFMEA.', 'Asia/Kolkata', 'booked', 'booking.1@ewe.test', 2, 1, null, 'token-hash-1', null, 'hash-of-address', 'hash-of-mailbox', ?, ?)`,
    ["2030-03-04T10:00:00.000Z", "2030-03-04T10:30:00.000Z", now, now],
  );
  await runSql(
    t,
    "insert into booking_settings (id, availability, feed_token_hash, updated_at) values (1, ?, null, ?)",
    [JSON.stringify({ ...defaultAvailability, dailyMax: 3 }), now],
  );
  const [enquiry] = await runSql(t, "select id from enquiries");
  await runSql(
    t,
    "insert into assistant_questions (question, known, page, service, written, helpful, asked_at) values (?, 1, ?, null, 0, 1, ?)",
    ["Why does a pressure cooker whistle?", "/science/pressure-cooker#the-weight-valve", now],
  );
  await runSql(t, "insert into enquiry_answers (enquiry_id, body, created_at) values (?, ?, ?)", [
    Number(enquiry?.id),
    "Gladly: March suits me.",
    now,
  ]);
  await runSql(
    t,
    `insert into reply_addresses (visitor_id, email, status, unsubscribe_token, created_at, confirmed_at)
     values ('asha-visitor-credential', 'asha@example.org', 'confirmed', 'all-replies-token', ?, ?)`,
    [now, now],
  );
  const [address] = await runSql(t, "select id from reply_addresses");
  await runSql(
    t,
    `insert into reply_watches (address_id, thread_id, comment_id, unsubscribe_token, created_at)
     values (?, ?, ?, 'this-thread-token', ?)`,
    [Number(address?.id), first.comment.id, first.comment.id, now],
  );
  await runSql(t, "insert into bans (visitor_id, ip_hash, created_at) values (?, ?, ?)", [
    "banned-visitor-credential",
    "banned-address-hash",
    now,
  ]);
  // The rest of what an owner owns, so the move is checked on every table.
  await runSql(t, "insert into unsubscribed_tokens (token, unsubscribed_at) values (?, ?)", [
    "a-token-that-left",
    now,
  ]);
  await runSql(
    t,
    "insert into editions (slug, subject, html, text, created_at) values (?, ?, ?, ?, ?)",
    ["01-pressure", "Pressure in numbers", "<p>Bar and psi.</p>", "Bar and psi.", now],
  );
  const [edition] = await runSql(t, "select id from editions");
  const [subscriber] = await runSql(
    t,
    "select unsubscribe_token from subscribers where email = 'reader.one@example.org'",
  );
  await runSql(
    t,
    `insert into outbox (kind, edition_id, email, token, status, attempts, next_attempt_at, created_at, sent_at)
     values ('edition', ?, 'reader.one@example.org', ?, 'sent', 1, ?, ?, ?)`,
    [Number(edition?.id), String(subscriber?.unsubscribe_token), now, now, now],
  );
  await runSql(
    t,
    "insert into edition_links (edition_id, position, url, clicks) values (?, 0, ?, 4)",
    [Number(edition?.id), "http://ewe.test/science/pressure-cooker"],
  );
  // The next edition, scheduled for a time still ahead.
  await runSql(
    t,
    "insert into editions (slug, subject, html, text, created_at) values (?, ?, ?, ?, ?)",
    ["02-steam", "Steam tables", "<p>Saturation.</p>", "Saturation.", now],
  );
  const [next] = await runSql(t, "select id from editions where slug = '02-steam'");
  await runSql(
    t,
    "insert into edition_schedules (edition_id, send_at, created_at) values (?, ?, ?)",
    [Number(next?.id), "2031-06-03T07:00:00.000Z", now],
  );
  await runSql(
    t,
    "insert into suppressions (email_hash, domain, reason, source, detail, created_at) values (?, 'example.org', 'hard_bounce', 'smtp', ?, ?)",
    ["a-suppressed-mailbox-digest", "550 5.1.1 No such user here", now],
  );
  await runSql(t, "insert into reply_stops (mailbox_hash, created_at) values (?, ?)", [
    "a-stopped-mailbox-digest",
    now,
  ]);
  await runSql(
    t,
    "insert into soft_bounces (email_hash, ref, created_at) values ('a-busy-mailbox-digest', 'outbox:1', ?)",
    [now],
  );
  await runSql(t, "insert into approved_visitors (visitor_id, approved_at) values (?, ?)", [
    "trusted-visitor-credential",
    now,
  ]);
  await runSql(
    t,
    "insert into spam_examples (comment_id, label, source, content, created_at) values (?, 'ham', 'approve', ?, ?)",
    [first.comment.id, "Why does soap lather less in hard water?", now],
  );
  await runSql(
    t,
    "insert into import_sources (source, source_id, row_table, row_id, imported_at) values ('disqus', '9001', 'science_comments', ?, ?)",
    [first.comment.id, now],
  );
  // The open web's: its audience, the owner's blocks, what was sent, and what came back.
  const actor = "https://mastodon.social/users/ines";
  await runSql(
    t,
    "insert into fediverse_replies (comment_id, note_id, actor_id, handle, name, url, avatar, created_at) values (?, ?, ?, '@ines@mastodon.social', 'Inês', ?, ?, ?)",
    [
      first.comment.id,
      `${actor}/statuses/1`,
      actor,
      "https://mastodon.social/@ines/1",
      "image/gif;base64,R0lGODlhAQABAAAAACw=",
      now,
    ],
  );
  // Its comment came from her account, as the inbox writes one.
  await runSql(t, "update science_comments set visitor_id = ? where id = ?", [
    "fediverse:0123456789abcdef0123456789abcdef",
    first.comment.id,
  ]);
  await runSql(
    t,
    "insert into fediverse_followers (actor_id, handle, name, inbox, shared_inbox, follow_id, created_at) values (?, '@ines@mastodon.social', null, ?, ?, ?, ?)",
    [actor, `${actor}/inbox`, "https://mastodon.social/inbox", `${actor}#follows/1`, now],
  );
  await runSql(
    t,
    "insert into fediverse_blocks (target, created_at) values ('spam.example.net', ?)",
    [now],
  );
  // The owner's answer in that thread went back to its writer once; a moved site does not send it again.
  const [answer] = await runSql(t, "select id from science_comments where by_owner = 1");
  await runSql(
    t,
    "insert into fediverse_published (path, digest, published_at, updated_at, deleted_at) values ('/science/soap', 'digest-1', ?, ?, null), (?, ?, ?, ?, null)",
    [now, now, `/notes/${Number(answer?.id)}`, `${actor}/statuses/1`, now, now],
  );
  await runSql(
    t,
    "insert into fediverse_reactions (activity_id, kind, path, actor_id, created_at) values (?, 'like', '/science/soap', ?, ?)",
    [`${actor}#likes/1`, actor, now],
  );
  await runSql(
    t,
    "insert into webmentions (source, target, path, status, kind, author_name, author_url, content, received_at, verified_at) values (?, ?, '/science/soap', 'published', 'reply', 'Ada', null, 'Soap and steam.', ?, ?)",
    ["https://ada.blog/steam", "http://ewe.test/science/soap", now, now],
  );
  await runSql(
    t,
    "insert into webmentions_sent (path, target, outcome, sent_at) values ('/science/soap', 'https://ada.blog/steam', 'sent', ?)",
    [now],
  );
}

const backendsPairs: [from: Backend, to: Backend][] = [
  ["sqlite", "postgres"],
  ["postgres", "sqlite"],
];

describe.each(backendsPairs)("export from %s, import into an empty %s", (from, to) => {
  let source: TestApp;
  let target: TestApp;
  const dir = scratch();
  const exported = path.join(dir, "site.json");

  beforeAll(async () => {
    source = await startTestApp(from);
    // The site moves with its cookie secret (docs/backups.md, "Moving in and out").
    const targetData = path.join(dir, "target-data");
    mkdirSync(targetData, { mode: 0o700 });
    copyFileSync(
      path.join(source.dataDir, "cookie-secret"),
      path.join(targetData, "cookie-secret"),
    );
    target = await startTestApp(to, { dataDir: targetData });
    await seed(source);
  });
  afterAll(async () => {
    await source?.close();
    await target?.close();
  });

  it("writes one JSON file, readable by its owner only, with every table the owner owns", async () => {
    const run = await admin(adminEnv(source), "export", "--out", exported);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Exported \d+ rows to /);
    expect(statSync(exported).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(exported, "utf8")) as ExportFile;
    expect(file.format).toBe("engage-with-engineer-export");
    expect(file.version).toBe(5);
    expect(file.settings.SITE_URL).toBe("http://ewe.test");
    expect(JSON.stringify(file.settings)).not.toMatch(/DATABASE_URL|COOKIE_SECRET|SMTP_URL/);
    const { tables } = file;
    expect(tables.science_comments?.map((c) => c.content)).toEqual([
      "Why does soap lather less in hard water?",
      "Calcium ions bind the **surfactant** first.",
      "Yes: hard water holds calcium.",
    ]);
    expect(tables.science_comments?.[2]).toMatchObject({ by_owner: 1, visitor_id: "owner" });
    expect(tables.science_comments?.[1]?.parent_id).toBe(tables.science_comments?.[0]?.id);
    expect(tables.subscribers?.map((s) => [s.email, s.status])).toEqual([
      ["reader.one@example.org", "confirmed"],
      ["pending.reader@example.org", "pending"],
    ]);
    expect(tables.science_reactions).toHaveLength(1);
    expect(tables.mythology_reactions?.[0]).toMatchObject({ story_id: "garuda", type: "love" });
    expect(tables.enquiries?.[0]).toMatchObject({ name: "Priya Raman", status: "answered" });
    expect(tables.enquiry_answers?.[0]?.body).toBe("Gladly: March suits me.");
    expect(tables.bookings?.[0]).toMatchObject({
      name: "Meera Iyer",
      starts_at: "2030-03-04T10:00:00.000Z",
      sequence: 2,
      owner_moves: 1,
    });
    expect(tables.bans).toHaveLength(1);
    // A reader's stop of reply mails moves with the site, as a suppression does.
    expect(tables.reply_stops?.map((stop) => stop.mailbox_hash)).toEqual([
      "a-stopped-mailbox-digest",
    ]);
    expect(tables.edition_links?.[0]).toMatchObject({ position: 0, clicks: 4 });
    // The schedule, without the lease of the instance that would queue it.
    expect(tables.edition_schedules).toEqual([
      expect.objectContaining({ send_at: "2031-06-03T07:00:00.000Z", queued_at: null }),
    ]);
    expect(tables.edition_schedules?.[0]).not.toHaveProperty("claimed_until");
    expect(tables.reply_addresses?.[0]).toMatchObject({
      email: "asha@example.org",
      status: "confirmed",
    });
    expect(tables.reply_watches?.[0]?.thread_id).toBe(tables.science_comments?.[0]?.id);
    expect(tables.owner_audit?.map((a) => a.action)).toContain("comment delete");
    // Every table holds a row, so the round trip below is checked on each of them.
    for (const { name } of exportTables) expect(tables[name], name).not.toHaveLength(0);
    expect(Object.keys(tables)).not.toContain("owner_sessions");
    expect(Object.keys(tables)).not.toContain("events");
    // docs/export-schema.json describes it, as a validator of its own reads the schema.
    const valid = new Ajv2020({ validateFormats: false }).compile(JSON.parse(writtenSchema()));
    expect(valid(file), JSON.stringify(valid.errors)).toBe(true);
  });

  it("reads it back whole into the empty database; the new export is the same file", async () => {
    const before = json(
      await target.visitor().get("/api/items/science/soap/comments"),
      commentsResponseSchema,
    );
    expect(before.total).toBe(0);

    const dry = await admin(adminEnv(target), "import", "--from", "export", "--dry-run", exported);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("Dry run: nothing was written");
    expect(dry.stdout).toMatch(/science_comments: 3 to add/);
    expect(await runSql(target, "select id from science_comments")).toEqual([]);

    const run = await admin(adminEnv(target), "import", "--from", "export", exported);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/science_comments: 3 added/);
    expect(run.stdout).toMatch(/subscribers: 2 added/);
    // Each address with its digest under this site's secret, which the suppressions list finds it by.
    const held = await runSql(
      target,
      "select email, email_hash from subscribers union all select email, email_hash from reply_addresses",
    );
    expect(held).toHaveLength(3);
    for (const row of held) expect(row.email_hash).toBe(target.addressKey(String(row.email)));

    const again = path.join(dir, `again-${to}.json`);
    const exportedAgain = await admin(adminEnv(target), "export", "--out", again);
    expect(exportedAgain.stderr).toBe("");
    expect(exportedAgain.code).toBe(0);
    const original = readFileSync(exported, "utf8");
    const copy = readFileSync(again, "utf8");
    // The same file, the comments' signature included, but for its time and the trail's line about the import.
    const importLine = /,\n\{[^\n]*"action":"import export","object":"site\.json"\}(?=\n\])/;
    expect(copy).toMatch(importLine);
    expect(withoutTime(copy.replace(importLine, ""))).toBe(withoutTime(original));
    expect(JSON.parse(copy).commentsSignature).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(copy).signature).toMatch(/^[0-9a-f]{64}$/);
    // The open site shows what arrived, without a restart, the owner's answer as the owner's.
    const soap = async () =>
      json(await target.visitor().get("/api/items/science/soap/comments"), commentsResponseSchema);
    await expect.poll(async () => (await soap()).total, { timeout: 15_000 }).toBe(3);
    expect((await soap()).comments.map((c) => [c.userName, c.byOwner])).toContainEqual([
      "The author",
      true,
    ]);
    // Open pages got the Fediverse reply with its writer, as the list shows it.
    const listed = (await soap()).comments.find((c) => c.remote !== undefined);
    expect(listed?.remote).toEqual({
      handle: "@ines@mastodon.social",
      url: "https://mastodon.social/@ines/1",
      avatar: `/fediverse/avatars/${listed?.id}`,
    });
    const added = (
      await runSql(
        target,
        "select data from events where topic = 'science:soap' and type = 'comment'",
      )
    )
      .map((row) => commentEventSchema.parse(JSON.parse(String(row.data))))
      .find((event) => event.action === "added" && event.commentId === listed?.id);
    expect(added && "comment" in added ? added.comment : null).toEqual(
      expect.objectContaining({ remote: listed?.remote }),
    );
  });

  it("changes nothing when the same file is read again", async () => {
    const run = await admin(adminEnv(target), "import", "--from", "export", exported);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/science_comments: 0 added, 3 already there/);
    const again = path.join(dir, `twice-${to}.json`);
    const exportedAgain = await admin(adminEnv(target), "export", "--out", again);
    expect(exportedAgain.stderr).toBe("");
    expect(exportedAgain.code).toBe(0);
    const { tables: first } = JSON.parse(readFileSync(exported, "utf8")) as ExportFile;
    const { tables: second } = JSON.parse(readFileSync(again, "utf8")) as ExportFile;
    // The trail adds the imports and exports made since, and nothing else.
    const { owner_audit: trail = [], ...rest } = second;
    expect(rest).toEqual(omitAudit(first));
    expect(trail.slice(first.owner_audit?.length).map((row) => row.action)).toEqual([
      "import export",
      "export",
      "import export",
    ]);
  });

  it("goes on numbering after the imported rows", async () => {
    const response = await target
      .visitor()
      .comment("soap", "Soft water rinses off more slowly, I noticed.", "Kiran");
    expect(response.statusCode).toBe(201);
    const ids = (await runSql(target, "select id from science_comments order by id")).map((r) =>
      Number(r.id),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(json(response, commentResponseSchema).comment.id).toBe(Math.max(...ids));
  });
});

/** The migrated database's own tables and their columns. */
async function databaseColumns(t: TestApp): Promise<Map<string, Set<string>>> {
  const rows = t.databaseUrl
    ? await runSql(
        t,
        "select table_name as t, column_name as c from information_schema.columns where table_schema = current_schema()",
      )
    : await runSql(
        t,
        "select m.name as t, p.name as c from sqlite_master m join pragma_table_info(m.name) p where m.type = 'table' and m.name not like 'sqlite_%'",
      );
  const tables = new Map<string, Set<string>>();
  for (const row of rows) {
    const name = String(row.t);
    tables.set(name, (tables.get(name) ?? new Set()).add(String(row.c)));
  }
  return tables;
}

/**
 * Each index of the migrated database with the columns it holds, in its keys,
 * expressions (lower(email)) and condition alike.
 */
async function databaseIndexes(
  t: TestApp,
): Promise<Map<string, { table: string; columns: Set<string> }>> {
  const indexes = new Map<string, { table: string; columns: Set<string> }>();
  const add = (index: string, table: string, column: string) => {
    const entry = indexes.get(index) ?? { table, columns: new Set<string>() };
    indexes.set(index, { table, columns: entry.columns.add(column) });
  };
  if (t.databaseUrl) {
    const rows = await runSql(
      t,
      `select i.indexrelid::regclass::text as i, c.relname as t, a.attname as c
       from pg_index i join pg_class c on c.oid = i.indrelid
       join pg_attribute a on a.attrelid = i.indrelid and a.attnum > 0
       where c.relnamespace = current_schema()::regnamespace
         and (a.attnum = any(i.indkey) or exists (select 1 from pg_depend d
           where d.classid = 'pg_class'::regclass and d.objid = i.indexrelid
             and d.refobjid = i.indrelid and d.refobjsubid = a.attnum))`,
    );
    for (const row of rows) add(String(row.i), String(row.t), String(row.c));
    return indexes;
  }
  const tables = await databaseColumns(t);
  const rows = await runSql(
    t,
    "select m.name as i, m.tbl_name as t, m.sql as s, p.name as c from sqlite_master m join pragma_index_info(m.name) p where m.type = 'index'",
  );
  for (const row of rows) {
    const [index, table] = [String(row.i), String(row.t)];
    if (row.c !== null) add(index, table, String(row.c));
    // An expression's or a condition's columns, by name.
    const body = String(row.s ?? "").replace(/^.*? on \S+/is, "");
    for (const column of tables.get(table) ?? []) {
      if (new RegExp(`\\b${column}\\b`).test(body)) add(index, table, column);
    }
  }
  return indexes;
}

/** PostgreSQL's largest index row (btree version 4). */
const indexRowMax = 2704;

describe.each(backends)("what an export covers, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(() => t?.close());

  it("writes every column of every table, but those left out on purpose, each with its reason", async () => {
    const database = await databaseColumns(t);
    const exported = new Map(exportTables.map((table) => [table.name as string, table]));
    for (const [name, columns] of database) {
      if (name in tablesLeftOut) continue;
      const table = exported.get(name);
      expect(table, `${name} is neither exported nor left out on purpose`).toBeDefined();
      const written = table?.columns.map((c) => c.name) ?? [];
      const leftOut = Object.keys(table?.columnsLeftOut ?? {});
      expect(new Set([...written, ...leftOut]), `the columns of ${name}`).toEqual(columns);
    }
    for (const name of [...exported.keys(), ...Object.keys(tablesLeftOut)]) {
      if (!name.startsWith("kysely_")) expect(database.has(name), name).toBe(true);
    }
  });

  it("holds each text column an index takes to a length whose index row the database keeps", async () => {
    const exported = new Map(exportTables.map((table) => [table.name as string, table]));
    const seen: string[] = [];
    for (const [index, { table: name, columns }] of await databaseIndexes(t)) {
      const table = exported.get(name);
      if (!table) continue;
      // Each column's most bytes, and 8 for its header or a number or time; 8 for the row's.
      let bytes = 8;
      for (const name of columns) {
        const column = table.columns.find((c) => c.name === name);
        bytes += 8;
        if (column?.type !== "text") continue;
        seen.push(`${table.name}.${name}`);
        const most = column.bytes ?? Math.max(0, ...(column.oneOf ?? []).map((v) => v.length));
        expect(most, `${table.name}.${name}, in ${index}, has no length limit`).toBeGreaterThan(0);
        bytes += most;
      }
      expect(bytes, `${index}'s row`).toBeLessThanOrEqual(indexRowMax);
    }
    // The walk finds what it should: a unique key, an expression's column, a condition's.
    expect(seen).toEqual(
      expect.arrayContaining(["webmentions.source", "subscribers.email", "bookings.status"]),
    );
  });

  it.runIf(backend === "postgres")(
    "is signed with the instances' secret, never one a shell without COOKIE_SECRET makes up",
    async () => {
      const shell = { ...adminEnv(t), DATA_DIR: scratch() };
      const out = path.join(shell.DATA_DIR, "site.json");
      const bounces = {
        BOUNCE_ADDRESS: "bounces@ewe.test",
        BOUNCE_IMAP_URL: "imap://u:p@127.0.0.1:9/",
      };
      for (const run of [
        await admin(shell, "export", "--out", out),
        await admin({ ...shell, ...bounces }, "mail", "bounces"),
        await admin(shell, "suppressions", "lift", "reader@example.com"),
        await admin(shell, "suppressions", "list"),
      ]) {
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(/^Set COOKIE_SECRET to the secret your instances share/);
        // Refused before its first row: not even a list's header is printed.
        expect(run.stdout).toBe("");
      }
      expect(existsSync(out)).toBe(false);
      // What needs no secret still works, and leaves none behind.
      // The repositories open too: only a write keeping an address's digest would be refused.
      expect((await admin(shell, "subscribers", "list")).code).toBe(0);
      expect((await admin(shell, "comments", "pending")).code).toBe(0);
      expect(existsSync(path.join(shell.DATA_DIR, "cookie-secret"))).toBe(false);
      const COOKIE_SECRET = readFileSync(path.join(t.dataDir, "cookie-secret"), "utf8");
      expect((await admin({ ...shell, COOKIE_SECRET }, "export", "--out", out)).code).toBe(0);
    },
  );
});

describe("reading a bad export", () => {
  let target: TestApp;
  beforeAll(async () => {
    target = await startTestApp("sqlite");
  });
  afterAll(() => target?.close());

  const importExport = (file: string) =>
    admin(adminEnv(target), "import", "--from", "export", file);

  it("lists every problem with its row and writes nothing", async () => {
    const file = exportFile({
      science_comments: [
        comment(1),
        comment(1),
        comment(2, { status: "maybe" }),
        comment(3, { parent_id: 99 }),
        comment(4, { created_at: "yesterday" }),
        comment(5, { created_at: "2025-02-30T12:00:00.000Z" }),
      ],
      passwords: [],
    });
    const run = await importExport(file);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Nothing was imported: the input has 6 problems.");
    expect(run.stderr).toContain("tables.passwords: is not a table this site exports");
    expect(run.stderr).toContain("tables.science_comments[1]: repeats the id");
    expect(run.stderr).toContain("tables.science_comments[2].status: must be one of");
    expect(run.stderr).toContain(
      "tables.science_comments[3].parent_id: refers to science_comments 99",
    );
    expect(run.stderr).toContain("tables.science_comments[4].created_at: must be an ISO-8601");
    expect(run.stderr).toContain("tables.science_comments[5].created_at: must be an ISO-8601");
    expect(await runSql(target, "select id from science_comments")).toEqual([]);
  });

  it("refuses, naming them, numbers the site holds to one value or to 0 and 1, which the dry run passed", async () => {
    const now = "2025-01-01T00:00:00.000Z";
    const file = exportFile({
      booking_settings: [{ id: 2, availability: "{}", feed_token_hash: null, updated_at: now }],
      assistant_questions: [
        {
          id: 1,
          question: "Why does a pressure cooker whistle?",
          known: 1000,
          page: null,
          service: null,
          written: 0,
          helpful: -1,
          asked_at: now,
        },
      ],
    });
    for (const dry of [["--dry-run"], []]) {
      const run = await admin(adminEnv(target), "import", "--from", "export", ...dry, file);
      expect(run.code, dry.join()).toBe(1);
      expect(run.stderr).toContain("Nothing was imported: the input has 3 problems.");
      expect(run.stderr).toContain("tables.booking_settings[0].id: must be 1");
      expect(run.stderr).toContain("tables.assistant_questions[0].known: must be 0 or 1");
      expect(run.stderr).toContain("tables.assistant_questions[0].helpful: must be 0 or 1");
    }
    expect(await runSql(target, "select id from booking_settings")).toEqual([]);
    expect(await runSql(target, "select id from assistant_questions")).toEqual([]);
  });

  it("stops at the 200th problem, listing those, so a few bytes a row cannot fill the memory", async () => {
    // 50,000 rows of "{}" (150 kB), each with nine missing columns.
    const file = path.join(scratch(), "empties.json");
    writeFileSync(
      file,
      `{"format": "engage-with-engineer-export", "version": 3, "tables": {"science_comments": [${Array(50_000).fill("{}").join(",")}]}}`,
    );
    const run = await importExport(file);
    expect(run.code).toBe(1);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe("Nothing was imported: the input has more than 200 problems.");
    expect(lines[1]).toBe("  tables.science_comments[0].id: is missing");
    expect(lines).toHaveLength(202);
    expect(lines.at(-1)).toBe(
      "  … the check stopped there: correct these and import the file again",
    );
    expect(await runSql(target, "select id from science_comments")).toEqual([]);
  });

  it("reads a file an editor saved with a byte order mark, and refuses one not in UTF-8, naming its line", async () => {
    const dir = scratch();
    const lines = (name: string) =>
      [
        '{"format": "engage-with-engineer-export", "version": 2,',
        '"exportedAt": "2025-01-01T00:00:00.000Z", "settings": {}, "tables": {"science_comments": [',
        JSON.stringify(comment(7, { user_name: name })),
        "]}}",
      ].join("\n");
    // Latin-1, as a spreadsheet or an old editor may save it: é is one byte, no UTF-8.
    writeFileSync(path.join(dir, "latin1.json"), Buffer.from(lines("José"), "latin1"));
    const latin1 = await importExport(path.join(dir, "latin1.json"));
    expect(latin1.code).toBe(1);
    expect(latin1.stderr).toContain(
      "latin1.json line 3: is not UTF-8 text: save the file as UTF-8 and import it again",
    );
    expect(await runSql(target, "select id from science_comments")).toEqual([]);
    // The same file in UTF-8 after a byte order mark, with a U+FFFD of its own.
    writeFileSync(path.join(dir, "bom.json"), `\ufeff${lines("José \ufffd")}`);
    const bom = await importExport(path.join(dir, "bom.json"));
    expect(bom.stderr).toBe("");
    expect(bom.code).toBe(0);
    expect(await runSql(target, "select user_name from science_comments")).toEqual([
      { user_name: "José \ufffd" },
    ]);
  });

  it("refuses a file that is not JSON, or of a later version, saying so", async () => {
    const dir = scratch();
    writeFileSync(path.join(dir, "torn.json"), '{"format": "engage-with-engineer-export", "tab');
    const torn = await importExport(path.join(dir, "torn.json"));
    expect(torn.code).toBe(1);
    expect(torn.stderr).toMatch(/torn\.json: .*JSON/);
    writeFileSync(
      path.join(dir, "later.json"),
      JSON.stringify({ format: "engage-with-engineer-export", version: 9, tables: {} }),
    );
    const later = await importExport(path.join(dir, "later.json"));
    expect(later.code).toBe(1);
    expect(later.stderr).toContain("version: is 9, newer than this version of the site reads");
  });
});
