import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import { tokenDigest } from "../../server/lib/tokens.ts";
import { fakeSciencePage } from "../support/built-site.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { editionFile, tokenOfMail } from "./support/newsletter.ts";
import { Owner } from "./support/owner.ts";
import { type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { runSql, seedConfirmed } from "./support/sql.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * What a file that is not the site's own signed export may say about people
 * (docs/decisions/060-what-an-unsigned-file-may-say.md): its addresses come
 * in pending and are mailed nothing until the owner asks them to confirm,
 * one mail per mailbox a day; its readers' names obey the comment form's
 * rules; and the signature covers the whole file, so the site's own export
 * changed by hand keeps nothing it vouched for but what it still covers.
 */

const scratch = () => mkdtempSync(path.join(os.tmpdir(), "ewe-unsigned-"));
const fixture = (name: string) => path.resolve(import.meta.dirname, "../fixtures/import", name);

type Row = Record<string, string | number | null>;
type ExportFile = { tables: Record<string, Row[]> } & Record<string, unknown>;

/** A file shaped as `admin export` writes one, without its signatures. */
function unsignedFile(tables: Record<string, Row[]>): string {
  const file = path.join(scratch(), "backup.json");
  const document = {
    format: "engage-with-engineer-export",
    version: 2,
    exportedAt: "2026-01-01T00:00:00.000Z",
    settings: {},
    tables,
  };
  writeFileSync(file, JSON.stringify(document));
  return file;
}

const at = "2026-01-01T00:00:00.000Z";
const subscriber = (id: number, email: string): Row => ({
  id,
  email,
  unsubscribe_token: `token-of-subscriber-${id}`,
  created_at: at,
  status: "confirmed",
  confirmed_at: at,
  confirmation_sent_at: null,
});
const comment = (id: number, name: string): Row => ({
  id,
  post_id: "soap",
  parent_id: null,
  user_name: name,
  content: "Hard water wastes soap.",
  content_html: null,
  visitor_id: "imported:test:reader",
  status: "published",
  by_owner: 0,
  ip_hash: null,
  created_at: at,
  updated_at: at,
  deleted_at: null,
});
const count = async (t: TestApp, table: string, where = "1 = 1") =>
  Number((await runSql(t, `select count(*) as n from ${table} where ${where}`))[0]?.n);

describe.each(backends)("a file from elsewhere, on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp(backend, {
      clientFiles: { "science/index.html": fakeSciencePage },
      env: { SMTP_URL: smtp.url },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it("brings its subscribers and reply addresses in pending, mails them nothing, and says how many", async () => {
    const file = unsignedFile({
      // One Gmail inbox spelt three ways, and another reader's.
      subscribers: [
        subscriber(1, "asha.rao@gmail.com"),
        subscriber(2, "asharao+news@gmail.com"),
        subscriber(3, "AshaRao@gmail.com"),
        subscriber(4, "ravi@example.org"),
      ],
      science_comments: [comment(1, "Asha")],
      reply_addresses: [
        {
          id: 1,
          visitor_id: "imported:test:reader",
          email: "stranger@example.net",
          status: "confirmed",
          confirm_token_hash: null,
          confirm_expires_at: null,
          confirmation_sent_at: null,
          unsubscribe_token: "all-replies-of-a-stranger",
          created_at: new Date().toISOString(),
          confirmed_at: at,
        },
      ],
      reply_watches: [
        {
          id: 1,
          address_id: 1,
          thread_id: 1,
          comment_id: 1,
          unsubscribe_token: "this-thread-of-a-stranger",
          window_ends_at: null,
          created_at: at,
        },
      ],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      '4 subscribers come in pending (4 marked as confirmed in the file), and will be sent no edition until they confirm: only this site\'s own export, read back with its cookie secret, keeps a subscription confirmed. "newsletter reconfirm" asks each to confirm',
    );
    expect(run.stdout).toContain("1 address for reply mails comes in pending");
    expect(await count(t, "subscribers", "status = 'confirmed'")).toBe(0);
    expect(await count(t, "reply_addresses", "status = 'confirmed'")).toBe(0);
    // Counted as imported by a key that is no address, which would outlive a deletion.
    const keys = await runSql(t, "select source_id from import_sources");
    expect(keys).toHaveLength(4);
    expect(JSON.stringify(keys)).not.toContain("@");

    // An edition goes to nobody of the file.
    const sent = await admin(adminEnv(t), "newsletter", "send", editionFile("01-soap"), "--yes");
    expect(sent.stdout).toContain("for 0 subscribers");
    expect(await count(t, "outbox", "kind = 'edition'")).toBe(0);
    // A reply in the thread the file says the stranger follows is mailed to nobody.
    const reply = await t.visitor().reply("soap", 1, "Soft water rinses slowly.", "Meera");
    expect(reply.statusCode).toBe(201);
    expect(await count(t, "outbox", "kind in ('reply_notice', 'reply_digest')")).toBe(0);
  });

  it("brings booked calls in without a mail or a working link, leaves its followers out, keeps its blocks", async () => {
    // A call in half an hour: its hour-before reminder fell due after the file was written.
    const start = Date.now() + 30 * 60_000;
    const link = "a-link-the-file-writer-knows-0123456789abcd";
    const file = unsignedFile({
      bookings: [
        {
          id: 1,
          starts_at: new Date(start).toISOString(),
          ends_at: new Date(start + 30 * 60_000).toISOString(),
          name: "Meera Iyer",
          email: "stranger-of-the-call@example.net",
          service: "dfmea",
          note: "A second opinion on our DFMEA.",
          reader_zone: "Asia/Kolkata",
          status: "booked",
          uid: "booking.1@elsewhere.test",
          sequence: 0,
          meeting_url: null,
          token_hash: tokenDigest(link),
          visitor_id: null,
          ip_hash: "hash-of-address",
          address_hash: "hash-of-mailbox",
          cancelled_by: null,
          cancel_message: null,
          created_at: at,
          updated_at: at,
        },
      ],
      fediverse_followers: [
        {
          actor_id: "https://listener.example/users/ines",
          handle: "@ines@listener.example",
          name: null,
          inbox: "https://listener.example/users/ines/inbox",
          shared_inbox: null,
          follow_id: "https://listener.example/follows/1",
          created_at: at,
        },
      ],
      fediverse_blocks: [{ target: "spam.example.net", created_at: at }],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "1 call still ahead comes in with no reminder and no working link for its reader",
    );
    expect(run.stdout).toContain(`dfmea with "Meera Iyer"`);
    expect(run.stdout).toContain("1 Fediverse follower was left out");
    expect(await count(t, "bookings", "status = 'booked'")).toBe(1);
    // Nothing queued to anyone, so nothing sent: not the reminder, not the owner's copy.
    expect(await count(t, "outbox", "kind like 'booking%'")).toBe(0);
    expect(smtp.to("stranger-of-the-call@example.net")).toEqual([]);
    // The link the file's writer knows neither shows the call nor moves it (which would mail it).
    expect((await t.visitor().get(`/book/cancel?token=${link}`)).statusCode).toBe(404);
    expect((await t.visitor().get(`/book/reschedule?token=${link}`)).statusCode).toBe(404);
    // No new post goes to the file's inbox; its block takes away as the owner's does.
    expect(await count(t, "fediverse_followers")).toBe(0);
    expect(await count(t, "fediverse_blocks")).toBe(1);
  });

  it("leaves out what it says the Fediverse was sent, so no file says whom your answers went to", {
    // Asking for a reply's Fediverse address loads Fedify: seconds, or a minute on a busy machine.
    timeout: 240_000,
  }, async () => {
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const asked = await t.visitor().post("/api/items/science/soap/comments", {
      content: "Does soap work in cold water?",
      userName: "Kavya",
      formToken: t.commentToken(),
    });
    expect(asked.statusCode, asked.body).toBe(201);
    const question = json(asked, commentResponseSchema).comment.id;
    const answered = await owner.post(`/api/admin/comments/${question}/reply`, {
      content: "It does, more slowly.",
    });
    expect(answered.statusCode, answered.body).toBe(201);
    const answer = json(answered, commentResponseSchema).comment.id;
    const note = () =>
      t.app.inject({
        method: "GET",
        url: `/fediverse/notes/${answer}`,
        headers: { accept: "application/activity+json" },
      });
    // An answer to a reader of the site's own is nothing on the Fediverse.
    expect((await note()).statusCode).toBe(404);
    // The file says it went to an account of its choosing, which its edits would then reach.
    const file = unsignedFile({
      fediverse_published: [
        {
          path: `/notes/${answer}`,
          digest: "https://elsewhere.example/notes/1 https://elsewhere.example/users/eve",
          published_at: at,
          updated_at: at,
          deleted_at: null,
        },
      ],
    });
    const run = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("1 record of what the Fediverse was sent was left out");
    expect((await note()).statusCode).toBe(404);
    expect(await count(t, "fediverse_published")).toBe(0);
  });

  it("asks each mailbox once a day to confirm, however many spellings the file gave it", async () => {
    const run = await admin(adminEnv(t), "newsletter", "reconfirm", "--yes");
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("Queued a request to confirm for 2 imported subscribers.");
    await smtp.waitFor((mails) => mails.some((m) => m.to.includes("ravi@example.org")));
    await smtp.waitFor((mails) => mails.some((m) => m.to.includes("asha.rao@gmail.com")));
    expect(smtp.received.filter((m) => m.to.some((to) => /@gmail\.com$/i.test(to)))).toHaveLength(
      1,
    );
    const again = await admin(adminEnv(t), "newsletter", "reconfirm", "--yes");
    expect(again.stdout).toContain("No imported subscriber is waiting to be asked.");

    const mail = smtp.to("ravi@example.org")[0]!;
    const confirmed = await t
      .visitor()
      .post("/api/subscribers/confirm", { token: tokenOfMail(mail) });
    expect(json(confirmed)).toEqual({ confirmed: true });
    expect(await runSql(t, "select email from subscribers where status = 'confirmed'")).toEqual([
      { email: "ravi@example.org" },
    ]);
  });

  it("brings a reader's name that reads as the owner's badge in as a reader's, and says so, though the comment form refuses it", async () => {
    const live = await t.visitor().comment("soap", "Lather needs soft water.", "Chitra (Admin)");
    expect(live.statusCode).toBe(422);

    const file = unsignedFile({ science_comments: [comment(7, "Chitra (Аuthor)")] });
    const exported = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain(
      '1 comment comes in under a name that reads as the Author label ("Site admin", "Sam (author)")',
    );
    expect(await count(t, "science_comments", "user_name = 'Chitra (Аuthor)'")).toBe(1);

    // A blog's own replies, as its old software named them.
    const xml = readFileSync(fixture("disqus.xml"), "utf8").replace(
      "<name>Chemistry Chitra</name>",
      "<name>Chitra, Moderator</name>",
    );
    const disqus = path.join(scratch(), "disqus.xml");
    writeFileSync(disqus, xml);
    const map = ["--map", fixture("disqus-map.json")];
    const imported = await admin(adminEnv(t), "import", "--from", "disqus", ...map, disqus);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toMatch(
      /\d+ comments? comes? in under a name that reads as the Author label/,
    );
    expect(await count(t, "science_comments", "user_name = 'Chitra, Moderator'")).toBeGreaterThan(
      0,
    );
  });
});

describe.each(backends)("the site's own export changed by hand, on %s", (backend) => {
  let source: TestApp;
  let target: TestApp;
  let exported: ExportFile;
  beforeAll(async () => {
    source = await startTestApp(backend, {
      clientFiles: { "science/index.html": fakeSciencePage },
    });
    // The site moves with its cookie secret (docs/backups.md, "Moving in and out").
    const dataDir = path.join(scratch(), "target-data");
    mkdirSync(dataDir, { recursive: true });
    copyFileSync(path.join(source.dataDir, "cookie-secret"), path.join(dataDir, "cookie-secret"));
    target = await startTestApp(backend, {
      clientFiles: { "science/index.html": fakeSciencePage },
      dataDir,
    });
    const first = json(
      await source.visitor().comment("soap", "Why does soap lather less?", "Asha"),
      commentResponseSchema,
    );
    const now = new Date().toISOString();
    await runSql(
      source,
      `insert into science_comments (post_id, parent_id, user_name, content, content_html, visitor_id, status, by_owner, created_at, updated_at)
       values ('soap', ?, 'The author', 'Hard water holds calcium.', null, 'owner', 'published', 1, ?, ?)`,
      [first.comment.id, now, now],
    );
    await seedConfirmed(source, ["reader.one@example.org"]);
    const out = path.join(scratch(), "own.json");
    expect((await admin(adminEnv(source), "export", "--out", out)).code).toBe(0);
    exported = JSON.parse(readFileSync(out, "utf8")) as ExportFile;
  });
  afterAll(async () => {
    await source?.close();
    await target?.close();
  });

  it("keeps its owner's comments as the owner's, and takes nothing else on its word", async () => {
    // A stranger put on the list, and a browser approved, beside the owner's comments untouched.
    const changed = structuredClone(exported);
    changed.tables.subscribers?.push(subscriber(500, "stranger@example.net"));
    changed.tables.approved_visitors?.push({
      visitor_id: "a-browser-of-the-editor",
      approved_at: at,
    });
    const file = path.join(scratch(), "changed.json");
    writeFileSync(file, JSON.stringify(changed));

    const run = await admin(adminEnv(target), "import", "--from", "export", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(await count(target, "subscribers", "status = 'confirmed'")).toBe(0);
    expect(await count(target, "approved_visitors")).toBe(0);
    expect(run.stdout).toContain("The file's signature covers its comments only");
    expect(run.stdout).toContain("2 subscribers come in pending");
    expect(run.stdout).toContain("tables.approved_visitors[0]: an approval is kept only");
    const soap = json(
      await target.visitor().get("/api/items/science/soap/comments"),
      commentsResponseSchema,
    );
    expect(soap.comments.map((c) => [c.userName, c.byOwner])).toContainEqual(["The author", true]);

    // An export written before the whole file was signed is read the same way.
    const { signature: _, ...older } = exported;
    const olderFile = path.join(scratch(), "older.json");
    writeFileSync(olderFile, JSON.stringify(older));
    const dry = await admin(adminEnv(target), "import", "--from", "export", "--dry-run", olderFile);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("The file's signature covers its comments only");
    expect(dry.stdout).toContain("1 subscriber comes in pending");
  });
});
