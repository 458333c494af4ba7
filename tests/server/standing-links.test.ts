import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { commentResponseSchema } from "../../contract/api.ts";
import { createReplyWatches } from "../../server/comments/reply-watches.ts";
import { migrateToLatest } from "../../server/db/store.ts";
import { createSubscribersRepository } from "../../server/engagement/subscribers-repository.ts";
import { standingLinks } from "../../server/lib/tokens.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { mailingApp } from "./support/mailing-app.ts";
import { copies, editionFile, requestSubscription, tokenOfMail } from "./support/newsletter.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { header, type ReceivedMail, type SmtpSink } from "./support/smtp.ts";
import { runSql, seedConfirmed } from "./support/sql.ts";
import {
  backends,
  freshItem,
  json,
  siteUrl,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/*
 * The links a mail carries are kept as digests or seeds, never as themselves
 * (docs/mail.md, "Links in mails"): whoever reads the database or a backup
 * can neither unsubscribe nor stop anyone, nor confirm for them. And an
 * address the owner removed, subscribing again, is not sent an edition twice.
 */

/** The token of the first link in `text` to `path`. */
const linkToken = (text: string | undefined, path: string) => {
  const match = new RegExp(`${path}\\?token=([A-Za-z0-9_-]{43})`).exec(text ?? "");
  if (!match?.[1]) throw new Error(`no ${path} link in:\n${text}`);
  return match[1];
};

/** Every row of every table, as text. */
async function everything(t: TestApp): Promise<string> {
  const tables = await runSql(
    t,
    t.databaseUrl
      ? "select tablename as name from pg_tables where schemaname = current_schema()"
      : "select name from sqlite_master where type = 'table'",
  );
  const rows = await Promise.all(
    tables.map((table) => runSql(t, `select * from "${String(table.name)}"`)),
  );
  return JSON.stringify(rows);
}

describe.each(backends)("the links of mails, on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  mailingApp(backend, { env: {} }, (app) => ({ t, smtp } = app));
  const form = (url: string, payload: string) =>
    t.app.inject({
      method: "POST",
      url,
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload,
    });
  /** The `nth` mail to `email`, once it has come. */
  const mailTo = async (email: string, nth = 0) => {
    await smtp.waitFor(() => smtp.to(email).length > nth);
    return smtp.to(email)[nth] as ReceivedMail;
  };

  it("are kept by no table once subscribed, confirmed, sent an edition and a reply, and still work", async () => {
    const reader = `kept.${backend}@example.org`;
    const watcher = `watcher.${backend}@example.org`;
    expect((await requestSubscription(t, reader)).statusCode).toBe(202);
    const confirmToken = tokenOfMail(await mailTo(reader));
    expect(
      (await t.visitor().post("/api/subscribers/confirm", { token: confirmToken })).statusCode,
    ).toBe(200);
    const file = editionFile(`kept-${backend}`);
    const sent = await admin(adminEnv(t), "newsletter", "send", file, "--yes");
    expect(sent.code, sent.stderr).toBe(0);
    const edition = await mailTo(reader, 1);
    const unsubscribeToken = linkToken(edition.parsed.text, "/unsubscribe");
    const oneClick = linkToken(header(edition, "List-Unsubscribe"), "/newsletter/one-click");

    // A reader who asks for reply mails, confirms, and is mailed a reply.
    const postId = freshItem("science");
    const asked = await t.visitor().post(`/api/items/science/${postId}/comments`, {
      content: "Why does a diesel knock less when it is warm?",
      userName: "Asha",
      formToken: t.commentToken(),
      notifyEmail: watcher,
    });
    expect(asked.statusCode).toBe(201);
    const question = json(asked, commentResponseSchema).comment.id;
    const replyConfirmToken = linkToken((await mailTo(watcher)).parsed.text, "/replies/confirm");
    expect((await form("/replies/confirm", `token=${replyConfirmToken}`)).statusCode).toBe(200);
    const replied = await t.visitor().reply(postId, question, "The fuel lights sooner.", "Ravi");
    expect(replied.statusCode).toBe(201);
    const stopToken = linkToken((await mailTo(watcher, 1)).parsed.text, "/replies/unsubscribe");

    const kept = await everything(t);
    for (const token of [confirmToken, unsubscribeToken, oneClick, replyConfirmToken, stopToken]) {
      expect(kept).not.toContain(token);
    }
    // What the database holds is no link: a seed read from it stops nothing.
    const [seed] = await runSql(t, "select unsubscribe_token from subscribers where email = ?", [
      reader,
    ]);
    const bySeed = await t.visitor().post("/api/unsubscribe", { token: seed?.unsubscribe_token });
    expect(bySeed.statusCode).toBeGreaterThanOrEqual(400);
    expect(bySeed.statusCode).toBeLessThan(500);
    // The links work as mailed.
    expect((await form("/replies/unsubscribe", `token=${stopToken}&scope=all`)).statusCode).toBe(
      200,
    );
    expect(await runSql(t, "select id from reply_addresses where email = ?", [watcher])).toEqual(
      [],
    );
    const left = await t.visitor().post("/api/unsubscribe", { token: unsubscribeToken });
    expect(json(left)).toEqual({ unsubscribed: true, already: false });
    expect(await runSql(t, "select id from subscribers where email = ?", [reader])).toEqual([]);
    // A made-up token, shaped as a link's, stops nothing.
    const madeUp = randomBytes(32).toString("base64url");
    expect((await t.visitor().post("/api/unsubscribe", { token: madeUp })).statusCode).toBe(404);
  });

  it("send an address the owner removed, which subscribes again, one copy of an edition", async () => {
    const reader = `removed.${backend}@example.org`;
    const stays = `stays.${backend}@example.org`;
    await seedConfirmed(t, [reader, stays]);
    const file = editionFile(`once-${backend}`);
    const subject = `Edition once-${backend}`;
    expect((await admin(adminEnv(t), "newsletter", "send", file, "--yes")).code).toBe(0);
    await smtp.waitFor(() => copies(smtp, subject).size === 2);

    const removed = await admin(adminEnv(t), "subscribers", "remove", reader.toUpperCase());
    expect(removed.code, removed.stderr).toBe(0);
    // Its copy is counted on, without its address.
    expect(await runSql(t, "select id from outbox where email = ?", [reader])).toEqual([]);
    expect(await everything(t)).not.toContain(reader);
    // The export holds the copy without it, and reads back.
    const exported = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-links-")), "export.json");
    expect((await admin(adminEnv(t), "export", "--out", exported)).code).toBe(0);
    expect(readFileSync(exported, "utf8")).not.toContain(reader);
    const back = await admin(adminEnv(t), "import", "--from", "export", "--dry-run", exported);
    expect(back.code, back.stderr).toBe(0);
    // A site moved with its secret keeps the copy's digest: the reader, back there, is not
    // sent the edition a second time either.
    const movedData = mkdtempSync(path.join(os.tmpdir(), "ewe-moved-"));
    copyFileSync(path.join(t.dataDir, "cookie-secret"), path.join(movedData, "cookie-secret"));
    const moved = await startTestApp(backend, { dataDir: movedData });
    try {
      const imported = await admin(adminEnv(moved), "import", "--from", "export", exported);
      expect(imported.code, imported.stderr).toBe(0);
      await seedConfirmed(moved, [reader]);
      const resent = await admin(adminEnv(moved), "newsletter", "send", file, "--yes");
      expect(resent.code, resent.stderr).toBe(0);
      expect(resent.stdout).toContain("for 0 subscribers");
    } finally {
      await moved.close();
    }

    const before = smtp.to(reader).length;
    expect((await requestSubscription(t, reader)).statusCode).toBe(202);
    const token = tokenOfMail(await mailTo(reader, before));
    expect((await t.visitor().post("/api/subscribers/confirm", { token })).statusCode).toBe(200);
    // The same file again, as after a crash or on a second instance: nobody has it twice.
    const again = await admin(adminEnv(t), "newsletter", "send", file, "--yes");
    expect(again.stdout).toContain("for 0 subscribers");
    const other = `Edition other-${backend}`;
    await admin(adminEnv(t), "newsletter", "send", editionFile(`other-${backend}`), "--yes");
    await smtp.waitFor(() => copies(smtp, other).size === 2);
    expect(copies(smtp, subject).get(reader)).toBe(1);
  });

  it("keeps working for a link mailed before they were kept as seeds", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { store } = scratch;
      await scratch.migrateTo("052_owner_session_passkeys");
      const [subscribed, left, address, watch] = Array.from({ length: 4 }, () =>
        randomBytes(32).toString("base64url"),
      ) as [string, string, string, string];
      const at = new Date().toISOString();
      await sql`insert into subscribers (email, email_hash, unsubscribe_token, created_at, status)
        values ('old@example.org', 'digest', ${subscribed}, ${at}, 'confirmed')`.execute(store.db);
      await sql`insert into unsubscribed_tokens (token, unsubscribed_at)
        values (${left}, ${at})`.execute(store.db);
      await sql`insert into reply_addresses (visitor_id, email, unsubscribe_token, created_at)
        values ('visitor', 'old.watcher@example.org', ${address}, ${at})`.execute(store.db);
      await sql`insert into reply_watches (address_id, thread_id, comment_id, unsubscribe_token, created_at)
        select id, 1, 2, ${watch}, ${at} from reply_addresses`.execute(store.db);
      await sql`insert into editions (slug, subject, html, text, created_at)
        values ('old', 'Old', '<p>Old</p>', 'Old', ${at})`.execute(store.db);
      await sql`insert into outbox (kind, edition_id, email, token, status, next_attempt_at, created_at, sent_at)
        select 'edition', id, 'old@example.org', ${subscribed}, 'sent', ${at}, ${at}, ${at}
        from editions`.execute(store.db);

      await migrateToLatest(store, String);
      const dump = JSON.stringify(
        await Promise.all(
          ["subscribers", "unsubscribed_tokens", "reply_addresses", "reply_watches", "outbox"].map(
            async (table) => (await sql`select * from ${sql.table(table)}`.execute(store.db)).rows,
          ),
        ),
      );
      for (const token of [subscribed, left, address, watch]) expect(dump).not.toContain(token);

      const links = standingLinks("a secret of this site, at least 32 characters");
      const watches = createReplyWatches(store, {
        clock: () => new Date(),
        mailboxKey: String,
        addressKey: String,
        links,
      });
      expect(await watches.unsubscribeTarget(watch)).toMatchObject({ watchId: expect.any(Number) });
      expect(await watches.unsubscribeTarget(address)).toMatchObject({ watchId: null });
      const subscribers = createSubscribersRepository(store, { addressKey: String, links });
      expect(await subscribers.unsubscribe(left)).toBe("already");
      expect(await subscribers.unsubscribe(subscribed)).toBe("unsubscribed");
      expect(await subscribers.unsubscribe(subscribed)).toBe("already");
      // The edition's copy still counts the unsubscribe against it.
      const [joined] = (
        await sql<{ n: number }>`select count(*) as n from outbox
          join unsubscribed_tokens on unsubscribed_tokens.token = outbox.token`.execute(store.db)
      ).rows;
      expect(Number(joined?.n)).toBe(1);
    } finally {
      await scratch.drop();
    }
  });
});
