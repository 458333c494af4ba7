import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../server/db/store.ts";
import { createSubscribersRepository } from "../../server/engagement/subscribers-repository.ts";
import { lateReportsMs } from "../../server/engagement/subscribers-retention.ts";
import { dayMs } from "../../server/lib/time.ts";
import { withMailFiles } from "../../server/outbox/mail-files.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { confirmedSubscriber, editionFile, requestSubscription } from "./support/newsletter.ts";
import { exportFile } from "./support/signed-export.ts";
import { runSql } from "./support/sql.ts";
import { backends, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A reader who unsubscribed is forgotten by the outbox once no late report
 * about their mails can come (docs/privacy-requests.md, docs/mail.md): their
 * address leaves each copy of an edition, which keeps the mailbox's digest,
 * and their confirmation mails' rows go, with the mail files and from the export.
 */
const postmarkSecret = "postmark-webhook-secret-0123456789";

describe.each(backends)("a reader who left, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    // Without SMTP_URL: every mail is a file in DATA_DIR/outbox/ too.
    t = await startTestApp(backend, {
      env: {
        MAIL_RATE_PER_MINUTE: "0",
        POSTMARK_WEBHOOK_SECRET: postmarkSecret,
        SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR: "100",
      },
    });
  });
  afterAll(() => t?.close());

  /**
   * Another instance's subscribers, on a store that deletes mail files as the server's
   * does, whose hourly pruning goes by `clock`: `run` with its `prune`.
   */
  async function instance(run: (prune: () => Promise<void>) => Promise<void>, clock?: () => Date) {
    const opened = await openStore(
      t.databaseUrl
        ? { kind: "postgres", connectionString: t.databaseUrl }
        : { kind: "sqlite", file: path.join(t.dataDir, "engage.sqlite") },
    );
    const store = withMailFiles(opened, { DATA_DIR: t.dataDir, SMTP_URL: undefined });
    try {
      const subscribers = createSubscribersRepository(store, {
        addressKey: t.addressKey,
        links: t.links,
        ...(clock ? { clock } : {}),
      });
      await run(() => subscribers.prune());
    } finally {
      await opened.close();
    }
  }
  /** The server's hourly pruning, run now, as a new instance's first. */
  const prune = () => instance((prune) => prune());
  const rowsTo = (email: string) =>
    runSql(t, "select kind, email, email_hash, status from outbox where email = ? order by id", [
      email,
    ]);
  const mailFilesNaming = (email: string) => {
    const folder = path.join(t.dataDir, "outbox");
    return readdirSync(folder).filter((name) =>
      readFileSync(path.join(folder, name), "utf8").includes(email),
    );
  };

  /** Each mail still naming `email`: its kind and, for a copy, its edition's slug. */
  const mailsTo = (email: string) =>
    runSql(
      t,
      `select o.kind, e.slug from outbox o left join editions e on e.id = o.edition_id
        where o.email = ? order by o.id`,
      [email],
    );
  /** The copy of edition `slug` to the mailbox of `email`, by its digest. */
  const copyOf = async (slug: string, email: string) =>
    (
      await runSql(
        t,
        `select o.email, o.status from outbox o join editions e on e.id = o.edition_id
          where e.slug = ? and o.email_hash = ?`,
        [slug, t.addressKey(email)],
      )
    )[0];
  /** Nothing names `email` any more: its copy of `slug` is kept under its digest alone. */
  async function expectForgotten(email: string, slug: string) {
    expect(await mailsTo(email)).toEqual([]);
    expect(await copyOf(slug, email)).toEqual({ email: null, status: "sent" });
    expect(mailFilesNaming(email)).toEqual([]);
  }
  /** Sends the edition `slug` to every subscriber, and waits until each copy went. */
  async function sendEdition(slug: string) {
    expect((await admin(adminEnv(t), "newsletter", "send", editionFile(slug), "--yes")).code).toBe(
      0,
    );
    const unsent = `select o.status from outbox o join editions e on e.id = o.edition_id
      where e.slug = ? and o.status <> 'sent'`;
    await waitFor(async () => (await runSql(t, unsent, [slug])).length === 0, {
      timeoutMs: 20_000,
      what: `every copy of ${slug} sent`,
    });
  }
  /** Every mail to `emails` so far as if sent `days` days ago. */
  async function age(emails: string[], days: number) {
    const at = new Date(Date.now() - days * dayMs).toISOString();
    for (const email of emails) {
      await runSql(t, "update outbox set created_at = ? where email = ?", [at, email]);
      await runSql(t, "update outbox set sent_at = ? where email = ? and sent_at is not null", [
        at,
        email,
      ]);
    }
  }
  /** Unsubscribes `email` by the link in its mails. */
  async function leaveByLink(email: string) {
    const [seed] = await runSql(t, "select unsubscribe_token from subscribers where email = ?", [
      email,
    ]);
    const left = await t.visitor().post("/api/unsubscribe", {
      token: t.links.tokenOf(String(seed?.unsubscribe_token)),
    });
    expect(left.statusCode).toBe(200);
  }

  it("keeps the address 30 days after the mail for late reports, then only the mailbox's digest", async () => {
    const leaver = "leaver@example.com";
    const stayer = "stayer@example.com";
    await confirmedSubscriber(t, leaver);
    await confirmedSubscriber(t, stayer);
    const env = adminEnv(t);
    expect((await admin(env, "newsletter", "send", editionFile("left-1"), "--yes")).code).toBe(0);
    await waitFor(
      async () =>
        (await runSql(t, "select id from outbox where kind = 'edition' and status = 'sent'"))
          .length === 2,
      { timeoutMs: 20_000, what: "both copies sent" },
    );
    const [seed] = await runSql(t, "select unsubscribe_token from subscribers where email = ?", [
      leaver,
    ]);
    const left = await t.visitor().post("/api/unsubscribe", {
      token: t.links.tokenOf(String(seed?.unsubscribe_token)),
    });
    expect(left.statusCode).toBe(200);

    // Within the time a late bounce or complaint may come, its mail still names the reader.
    await prune();
    expect((await rowsTo(leaver)).map((row) => row.kind)).toEqual(["confirmation", "edition"]);
    expect(mailFilesNaming(leaver).length).toBeGreaterThan(0);

    // The mails as old as the longest a late report can honestly take, and a day more.
    const old = new Date(Date.now() - lateReportsMs - 86_400_000).toISOString();
    await runSql(t, "update outbox set created_at = ?", [old]);
    await runSql(t, "update outbox set sent_at = ? where sent_at is not null", [old]);
    await prune();

    expect(await rowsTo(leaver)).toEqual([]);
    const [copy] = await runSql(
      t,
      "select email, email_hash, status from outbox where kind = 'edition' and email_hash = ?",
      [t.addressKey(leaver)],
    );
    // The copy stays counted in its edition's figures, under the mailbox's digest alone.
    expect(copy).toEqual({ email: null, email_hash: t.addressKey(leaver), status: "sent" });
    expect(mailFilesNaming(leaver)).toEqual([]);
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-left-")), "export.json");
    expect((await admin(env, "export", "--out", out)).code).toBe(0);
    expect(readFileSync(out, "utf8")).not.toContain(leaver);
    expect(readFileSync(out, "utf8")).toContain(stayer);

    // A reader still subscribed keeps theirs, mails and files.
    expect((await rowsTo(stayer)).map((row) => row.kind)).toEqual(["confirmation", "edition"]);
    expect(mailFilesNaming(stayer).length).toBeGreaterThan(0);
    const sent = await runSql(
      t,
      "select id from outbox where kind = 'edition' and status = 'sent'",
    );
    expect(sent.length).toBe(2);
  });

  it("forgets at once, as a reader leaves by their link or by a complaint, the mails past late reports", async () => {
    const byLink = `by-link.${backend}@example.com`;
    const byComplaint = `by-complaint.${backend}@example.com`;
    const staying = `staying.${backend}@example.com`;
    for (const email of [byLink, byComplaint, staying]) await confirmedSubscriber(t, email);
    await sendEdition(`at-once-old-${backend}`);
    await age([byLink, byComplaint, staying], 31);
    await sendEdition(`at-once-new-${backend}`);

    await leaveByLink(byLink);
    const complaint = await t.app.inject({
      method: "POST",
      url: "/hooks/postmark",
      headers: { "content-type": "application/json", "x-webhook-secret": postmarkSecret },
      payload: JSON.stringify({
        RecordType: "SpamComplaint",
        Type: "SpamComplaint",
        ID: 1,
        Email: byComplaint,
        Description: "Marked as spam.",
      }),
    });
    expect(complaint.statusCode).toBe(200);

    // No pruning ran: the leaving itself forgot what no late report can be about any more.
    for (const email of [byLink, byComplaint]) {
      expect(await mailsTo(email)).toEqual([{ kind: "edition", slug: `at-once-new-${backend}` }]);
      expect(await copyOf(`at-once-old-${backend}`, email)).toEqual({
        email: null,
        status: "sent",
      });
      const files = mailFilesNaming(email);
      expect(files).toHaveLength(1);
      expect(readFileSync(path.join(t.dataDir, "outbox", files[0] ?? ""), "utf8")).toContain(
        `Edition at-once-new-${backend}`,
      );
    }
    expect(await mailsTo(staying)).toEqual([
      { kind: "confirmation", slug: null },
      { kind: "edition", slug: `at-once-old-${backend}` },
      { kind: "edition", slug: `at-once-new-${backend}` },
    ]);
  });

  it("forgets each mail as it turns 30 days old after its reader left, and not a reader's who came back", async () => {
    const gone = `gone.${backend}@example.com`;
    const back = `back.${backend}@example.com`;
    const unconfirmed = `unconfirmed.${backend}@example.com`;
    const slug = `turning-${backend}`;
    for (const email of [gone, back, unconfirmed]) await confirmedSubscriber(t, email);
    await sendEdition(slug);
    await age([gone, back, unconfirmed], 20);
    for (const email of [gone, back, unconfirmed]) await leaveByLink(email);
    // Within the 30 days, one subscribes again and confirms, one does not confirm.
    await confirmedSubscriber(t, back);
    expect((await requestSubscription(t, unconfirmed)).statusCode).toBe(202);
    const start = Date.now();
    let at = new Date(start);
    const day = (n: number) => new Date(start + n * dayMs);
    // As if its confirmation mail went in 8 days: it is pending until 7 days after.
    await runSql(t, "update subscribers set confirmation_sent_at = ? where email = ?", [
      day(8).toISOString(),
      unconfirmed,
    ]);

    await instance(
      async (prune) => {
        // The edition 20 days old: every address stays on it.
        await prune();
        for (const email of [gone, back, unconfirmed]) {
          expect(await mailsTo(email)).toContainEqual({ kind: "edition", slug });
        }
        // 11 days on, 31 days after the edition: the reader who left is forgotten by the hour's
        // pass, which reads only what turned 30 days old since the last.
        at = day(11);
        await prune();
        await expectForgotten(gone, slug);
        expect(await mailsTo(back)).toContainEqual({ kind: "edition", slug });
        expect(await mailsTo(unconfirmed)).toContainEqual({ kind: "edition", slug });
        // The address never confirmed, forgotten a week after its mail, leaves for good:
        // its copy, long past the last pass, goes with it.
        at = day(16);
        await prune();
        await expectForgotten(unconfirmed, slug);
        expect(await mailsTo(back)).toContainEqual({ kind: "edition", slug });
        expect(mailFilesNaming(back).length).toBeGreaterThan(0);
      },
      () => at,
    );
  });

  it("forgets, as an import brings them, the mails past late reports to readers who left", async () => {
    const gone = `imported-gone.${backend}@example.com`;
    const listed = `imported-listed.${backend}@example.com`;
    const old = new Date(Date.now() - lateReportsMs - dayMs).toISOString();
    const copy = (id: number, email: string) => ({
      id,
      kind: "edition",
      edition_id: 9001,
      email,
      email_hash: null,
      token: null,
      status: "sent",
      attempts: 1,
      next_attempt_at: old,
      last_error: null,
      created_at: old,
      sent_at: old,
      feedback: null,
    });
    const slug = `imported-${backend}`;
    const file = exportFile({
      subscribers: [
        {
          id: 9001,
          email: listed,
          unsubscribe_token: "0123456789abcdef0123456789abcdef",
          created_at: old,
          status: "confirmed",
          confirmed_at: old,
          confirmation_sent_at: old,
        },
      ],
      editions: [
        {
          id: 9001,
          slug,
          subject: "An old edition",
          html: "<p>Old.</p>",
          text: "Old.",
          created_at: old,
        },
      ],
      outbox: [copy(9001, gone), copy(9002, listed)],
    });
    const imported = await admin(adminEnv(t), "import", "--from", "export", file);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    // The server's pass read past that time long ago: the import forgot it itself.
    await expectForgotten(gone, slug);
    expect(await mailsTo(listed)).toEqual([{ kind: "edition", slug }]);
  });
});
