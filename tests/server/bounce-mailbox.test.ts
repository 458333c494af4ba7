import { mkdtempSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailsOf, planBatches, readBounceMailbox } from "../../server/newsletter/bounce-mailbox.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { deliveryReport } from "./support/delivery-report.ts";
import { type ImapServer, startImapServer } from "./support/imap.ts";
import { editionFile } from "./support/newsletter.ts";
import { offLoopbackAddress } from "./support/off-loopback.ts";
import { type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { runSql, seedConfirmed } from "./support/sql.ts";
import { backends, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The bounce mailbox (docs/mail.md, "Bounces and complaints"): a real IMAP
 * server (Debian's Dovecot, on loopback) holds delivery-status reports
 * (RFC 3464) and feedback reports (RFC 5965) sent back to the editions' VERP
 * return paths. Once the site has read it, a hard bounce is suppressed, a
 * soft one counted, a complaint suppressed and unsubscribed, the mailbox is
 * empty, and a report to a forged return path has changed nothing.
 */

/** A feedback report (ARF) from a mailbox provider's feedback loop; it is not sent to the return path. */
function feedbackReport(returnPath: string, recipient: string): string {
  return `From: Feedback Loop <fbl@mail.example.net>
To: abuse@ewe.test
Subject: Complaint about message from ewe.test
Date: ${new Date().toUTCString()}
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report;
 boundary="arf-boundary"

--arf-boundary
Content-Type: text/plain; charset=us-ascii

This is an email abuse report for an email message received from IP
192.0.2.10 on ${new Date().toUTCString()}.

--arf-boundary
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: ExampleFBL/1.0
Version: 1
Original-Mail-From: <${returnPath}>
Original-Rcpt-To: <${recipient}>
Arrival-Date: ${new Date().toUTCString()}
Reported-Domain: ewe.test

--arf-boundary
Content-Type: message/rfc822

Return-Path: <${returnPath}>
From: news@ewe.test
To: ${recipient}
Subject: Edition mailbox

Hello.
--arf-boundary--
`.replace(/\n/g, "\r\n");
}

describe("the bounce mailbox's size limit", () => {
  let imap: ImapServer;
  beforeAll(async () => {
    imap = await startImapServer();
  });
  afterAll(() => imap?.stop());

  it("deletes a mail too large to be a report unread, so a stranger's big mails cannot fill the server's memory", async () => {
    const bounceAddress = "bounces+12-0123456789abcdef@ewe.test";
    const report = deliveryReport(bounceAddress, "reader@example.org", "5.1.1");
    // Anyone can write to the bounce address: a mail of 3 MB, as a report's attachment.
    const large = report.replace(
      "--dsn-boundary--",
      `--dsn-boundary\r\nContent-Type: application/octet-stream\r\n\r\n${"A".repeat(76).concat("\r\n").repeat(40_000)}--dsn-boundary--`,
    );
    expect(large.length).toBeGreaterThan(3_000_000);
    await imap.deliver(large);
    await imap.deliver(report);
    const handed: number[] = [];
    const round = await readBounceMailbox(imap.url, {
      async handleMailboxReport(source) {
        handed.push(source.length);
        return "ignored";
      },
    });
    expect(round).toEqual({ read: 2, acted: 0, ignored: 2, kept: 0 });
    // Only the report was read; both are gone.
    expect(handed).toEqual([expect.any(Number)]);
    expect(handed[0]).toBeLessThan(10_000);
    expect(await imap.count()).toBe(0);
  });
});

describe("a bounce mailbox that cannot be opened", () => {
  let imap: ImapServer;
  beforeAll(async () => {
    imap = await startImapServer();
  });
  afterAll(() => imap?.stop());
  const health = { handleMailboxReport: async () => "ignored" as const };

  it("says whether the password or the mailbox in BOUNCE_IMAP_URL is wrong, not just that a command failed", async () => {
    const password = /:([^:@]+)@/.exec(imap.url)?.[1] ?? "";
    await expect(
      readBounceMailbox(imap.url.replace(`:${password}@`, ":not-the-password@"), health),
    ).rejects.toThrow("the IMAP server refused the user name or password in BOUNCE_IMAP_URL");
    await expect(
      readBounceMailbox(imap.url.replace(/\/INBOX$/, "/Bounces"), health),
    ).rejects.toThrow(
      'the IMAP server has no mailbox "Bounces": name an existing one at the end of BOUNCE_IMAP_URL',
    );
  });
});

describe("a bounce mailbox off this machine that offers no STARTTLS", () => {
  /** Every line the stand-in server was sent, and the connections it took. */
  const heard: string[] = [];
  let connections = 0;
  let server: Server;
  let url = "";
  beforeAll(async () => {
    const address = offLoopbackAddress();
    // An IMAP server as a network attacker answers in its place: no STARTTLS among its capabilities.
    server = createServer((socket) => {
      connections += 1;
      socket.write("* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN AUTH=LOGIN] ready\r\n");
      socket.on("data", (data) => {
        for (const line of data.toString().split("\r\n").filter(Boolean)) {
          heard.push(line);
          const [tag, command = ""] = line.split(" ");
          if (/^capability$/i.test(command)) {
            socket.write(`* CAPABILITY IMAP4rev1 AUTH=PLAIN AUTH=LOGIN\r\n${tag} OK done\r\n`);
          } else if (/^logout$/i.test(command)) socket.end(`* BYE\r\n${tag} OK bye\r\n`);
          else socket.write(`${tag} NO not here\r\n`);
        }
      });
      socket.on("error", () => {});
    });
    await new Promise<void>((done) => server.listen(0, address, done));
    url = `imap://bounces:the-mailbox-password@${address}:${(server.address() as AddressInfo).port}/INBOX`;
  });
  afterAll(() => new Promise<void>((done) => server?.close(() => done())));

  it("is sent no password, in any form, and says why it was not read", async () => {
    const health = { handleMailboxReport: async () => "ignored" as const };
    await expect(readBounceMailbox(url, health)).rejects.toThrow(/STARTTLS/);
    expect(connections).toBe(1);
    const base64 = (text: string) => Buffer.from(text).toString("base64");
    for (const form of [
      "the-mailbox-password",
      base64("\0bounces\0the-mailbox-password"),
      base64("the-mailbox-password"),
    ]) {
      expect(heard.join("\n")).not.toContain(form);
    }
  });
});

describe("the bounce mailbox's batches", () => {
  /** A row of the flags another reader set, as Dovecot adds one to an answer: by sequence number alone. */
  const flagged = { seq: 1, uid: undefined, flags: new Set(["\\Deleted"]) };
  it("hold at most 50 mails and 4 MB by the sizes the server reports; a mail over 1 MB is no report", () => {
    const mails = (sizes: number[]) => sizes.map((size, uid) => ({ uid, size }));
    expect(planBatches(mails(Array(120).fill(500)))).toEqual({
      tooLarge: [],
      batches: [50, 50, 20].map((n, at) => Array.from({ length: n }, (_, i) => at * 50 + i)),
    });
    expect(planBatches(mails([900_000, 1_000_000, 1_000_001, 3_000_000, 1_000_000]))).toEqual({
      tooLarge: [2, 3],
      batches: [[0, 1, 4]],
    });
    // A row of flags is no mail of the listing, nor is a second row of one.
    expect(
      planBatches([{ uid: 4, size: 500 }, flagged, { uid: 5, size: 500 }, { uid: 4 }]),
    ).toEqual({ tooLarge: [], batches: [[4, 5]] });
    // Four mails at the limit fill a batch; a fifth starts the next one.
    expect(planBatches(mails(Array(9).fill(1_000_000))).batches).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8],
    ]);
  });

  it("take a mail answered without its body as kept, and a row of flags beside its mail as nothing", () => {
    const mail = Buffer.from("Subject: a report\r\n\r\nbody");
    // 7 comes with its body and a row of flags another reader changed; 8
    // without a body, so it stays; 9 not at all (another reader took it).
    const { sources, kept } = mailsOf(
      [7, 8, 9],
      [
        { uid: 7, source: mail },
        { uid: 7 },
        { uid: 8 },
        { uid: 12 },
        flagged,
        { uid: 7, source: mail },
      ],
    );
    expect([...sources]).toEqual([[7, mail]]);
    expect(kept).toBe(1);
  });

  it("reads and deletes each of 20 mails of 900 kB once, fetched four at a time", async () => {
    const imap = await startImapServer();
    try {
      const line = `${"A".repeat(98)}\r\n`;
      const mail = (n: number) =>
        `From: someone@example.org\r\nTo: bounces@ewe.test\r\nSubject: Large ${n}\r\n\r\n${line.repeat(9_000)}`;
      for (let n = 0; n < 20; n += 1) await imap.deliver(mail(n));
      // A batch's mails are deleted once it has been read: how many the
      // mailbox still holds as each is handed over tells the batches apart.
      const held: number[] = [];
      const subjects: string[] = [];
      const round = await readBounceMailbox(imap.url, {
        async handleMailboxReport(source) {
          subjects.push(/Subject: (.*)\r/.exec(source.toString("latin1"))?.[1] ?? "");
          held.push(await imap.count());
          return "ignored";
        },
      });
      expect(round).toEqual({ read: 20, acted: 0, ignored: 20, kept: 0 });
      expect(subjects.sort()).toEqual(Array.from({ length: 20 }, (_, n) => `Large ${n}`).sort());
      expect(held).toEqual([20, 16, 12, 8, 4].flatMap((n) => [n, n, n, n]));
      expect(await imap.count()).toBe(0);
    } finally {
      await imap.stop();
    }
  });
});

describe.each(backends)("the bounce mailbox on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  let imap: ImapServer;
  const env = {
    MAIL_RATE_PER_MINUTE: "0",
    MAIL_FROM: "news@ewe.test",
    BOUNCE_ADDRESS: "bounces@ewe.test",
  };

  beforeAll(async () => {
    imap = await startImapServer();
    smtp = await startSmtpSink();
    // Read at once rather than 5 s after the start: the reports come later,
    // and the command line reads them.
    t = await startTestApp(backend, {
      env: { ...env, SMTP_URL: smtp.url, BOUNCE_IMAP_URL: imap.url },
      bounceFirstMs: 100,
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await imap?.stop();
  });

  /** Reads the mailbox from the command line, as `mail bounces` does, until it is empty: what it said. */
  const readMailbox = async () => {
    const run = await admin(
      { ...adminEnv(t), ...env, BOUNCE_IMAP_URL: imap.url },
      "mail",
      "bounces",
    );
    expect(run.code, run.stderr).toBe(0);
    await expect.poll(() => imap.count(), { timeout: 20_000 }).toBe(0);
    return run.stdout;
  };

  it("suppresses, counts and unsubscribes from the reports, deletes them, and ignores forged ones", async () => {
    const reader = (name: string) => `${name}.${backend}@example.org`;
    const readers = ["gone", "full", "angry", "forged", "kept"].map(reader);
    await seedConfirmed(t, readers);
    const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-edition-"));
    writeFileSync(path.join(dir, "mailbox.md"), "---\nsubject: Edition mailbox\n---\nHello.\n");
    const sent = await admin(
      adminEnv(t),
      "newsletter",
      "send",
      path.join(dir, "mailbox.md"),
      "--yes",
    );
    expect(sent.code, sent.stderr).toBe(0);
    await smtp.waitFor(() => readers.every((r) => smtp.to(r).length === 1), 30_000);
    const returnPath = (r: string) => smtp.to(r)[0]?.from as string;

    const forged = returnPath(reader("forged")).replace(
      /-([0-9a-f]{16})@/,
      (_m, sig: string) => `-${sig.slice(0, 15)}${sig.endsWith("0") ? "1" : "0"}@`,
    );
    await imap.deliver(deliveryReport(returnPath(reader("gone")), reader("gone"), "5.1.1"));
    await imap.deliver(deliveryReport(returnPath(reader("full")), reader("full"), "4.2.2"));
    await imap.deliver(feedbackReport(returnPath(reader("angry")), reader("angry")));
    await imap.deliver(deliveryReport(forged, reader("forged"), "5.1.1"));
    // Our own address, but no return path of a mail: a reply someone sent to it.
    await imap.deliver(
      `From: someone@example.org\r\nTo: bounces@ewe.test\r\nSubject: Hello\r\n\r\nIs this the right address?\r\n`,
    );

    expect(await readMailbox()).toMatch(/^Read \d mails?: \d acted on, \d ignored/);

    const suppressed = JSON.parse(
      (await admin(adminEnv(t), "suppressions", "list", "--json")).stdout,
    ) as { id: string; email: string | null; reason: string; source: string }[];
    // The complaint's address, unsubscribed, is known to the site no more: only its digest is kept.
    expect(
      suppressed
        .map(({ id, email, reason, source }) => ({ id, email, reason, source }))
        .sort((a, b) => a.reason.localeCompare(b.reason)),
    ).toEqual([
      { id: t.addressKey(reader("angry")), email: null, reason: "complaint", source: "mailbox" },
      {
        id: t.addressKey(reader("gone")),
        email: reader("gone"),
        reason: "hard_bounce",
        source: "mailbox",
      },
    ]);
    // The complaint also unsubscribed its address; the others are still subscribed.
    const subscribed = (await runSql(t, "select email from subscribers order by email")).map(
      (row) => row.email,
    );
    expect(subscribed).toEqual([reader("forged"), reader("full"), reader("gone"), reader("kept")]);
    // The soft bounce counts towards a suppression; the forged report counted nothing.
    expect(await runSql(t, "select email_hash from soft_bounces")).toEqual([
      { email_hash: t.addressKey(reader("full")) },
    ]);
    expect(
      await runSql(
        t,
        "select email, feedback from outbox where feedback is not null order by email",
      ),
    ).toEqual([
      { email: reader("angry"), feedback: "complaint" },
      { email: reader("full"), feedback: "bounce" },
      { email: reader("gone"), feedback: "bounce" },
    ]);
  });

  it("suppresses nobody for a report of a refused message or sender, and counts a full mailbox as soft", async () => {
    const reader = (name: string) => `${name}.${backend}@example.org`;
    const readers = ["spammed", "blocked", "overfull"].map(reader);
    await seedConfirmed(t, readers);
    const sent = await admin(adminEnv(t), "newsletter", "send", editionFile("refusals"), "--yes");
    expect(sent.code, sent.stderr).toBe(0);
    await smtp.waitFor(() => readers.every((r) => smtp.to(r).length === 1), 30_000);
    const returnPath = (r: string) => smtp.to(r)[0]?.from as string;
    const before = await runSql(t, "select email_hash, reason from suppressions order by 1");
    // What the receiving server refused is the message, or the server that sent it: a mail
    // to anyone else would have met the same.
    await imap.deliver(
      deliveryReport(
        returnPath(reader("spammed")),
        reader("spammed"),
        "5.7.1",
        "Message rejected as spam",
      ),
    );
    await imap.deliver(
      deliveryReport(
        returnPath(reader("blocked")),
        reader("blocked"),
        "5.7.1",
        "Service unavailable; client host [192.0.2.10] blocked using zen.spamhaus.org",
      ),
    );
    // A full mailbox, which the server calls permanent: it passes, so it counts as soft.
    await imap.deliver(
      deliveryReport(returnPath(reader("overfull")), reader("overfull"), "5.2.2", "Mailbox full"),
    );
    await readMailbox();
    expect(await runSql(t, "select email_hash, reason from suppressions order by 1")).toEqual(
      before,
    );
    expect(
      await runSql(t, "select 1 from soft_bounces where email_hash = ?", [
        t.addressKey(reader("overfull")),
      ]),
    ).toHaveLength(1);
  });

  it("takes a mail's report once: the same report again after the owner lifts the suppression changes nothing", async () => {
    const reader = (name: string) => `${name}.${backend}@example.org`;
    await seedConfirmed(t, [reader("lifted")]);
    const sent = await admin(adminEnv(t), "newsletter", "send", editionFile("lifted"), "--yes");
    expect(sent.code, sent.stderr).toBe(0);
    await smtp.waitFor(() => smtp.to(reader("lifted")).length === 1, 30_000);
    const returnPath = smtp.to(reader("lifted"))[0]?.from as string;
    const report = deliveryReport(returnPath, reader("lifted"), "5.1.1");
    const suppressed = async () =>
      (
        await runSql(t, "select reason from suppressions where email_hash = ?", [
          t.addressKey(reader("lifted")),
        ])
      ).map((row) => row.reason);
    await imap.deliver(report);
    await readMailbox();
    expect(await suppressed()).toEqual(["hard_bounce"]);
    const lifted = await admin(adminEnv(t), "suppressions", "lift", reader("lifted"));
    expect(lifted.code, lifted.stderr).toBe(0);
    // The same report, come again (a copy, or anyone's who kept it): the mail has bounced once.
    await imap.deliver(report);
    await readMailbox();
    expect(await suppressed()).toEqual([]);
  });

  it("ignores a return path whose row now holds another address, as after a restored backup", async () => {
    const reader = (name: string) => `${name}.${backend}@example.org`;
    await seedConfirmed(t, [reader("restored")]);
    const sent = await admin(adminEnv(t), "newsletter", "send", editionFile("restored"), "--yes");
    expect(sent.code, sent.stderr).toBe(0);
    await smtp.waitFor(() => smtp.to(reader("restored")).length === 1, 30_000);
    const returnPath = smtp.to(reader("restored"))[0]?.from as string;
    const rowId = Number(/\+(\d+)-/.exec(returnPath)?.[1]);
    // The row's id, come again for a mail to someone else: a backup restored from before
    // the mail, or a move to a new database under the same secret, starts its ids anew.
    await runSql(t, "update outbox set email = ? where id = ?", [reader("bystander"), rowId]);
    const before = await runSql(t, "select email_hash, reason from suppressions order by 1");
    // A late report of the old mail, or a reader's forged one, to the return path they were sent.
    await imap.deliver(deliveryReport(returnPath, reader("restored"), "5.1.1"));
    await imap.deliver(feedbackReport(returnPath, reader("restored")));
    await readMailbox();
    expect(await runSql(t, "select email_hash, reason from suppressions order by 1")).toEqual(
      before,
    );
    expect(await runSql(t, "select email from subscribers where email like 'restored.%'")).toEqual([
      { email: reader("restored") },
    ]);
  });

  it("deletes a mail its parser refuses, or that names addresses without end, which anyone can send, rather than keep it for every round", async () => {
    const before = await runSql(t, "select email_hash, reason from suppressions order by 1");
    const head = "From: someone@example.org\r\nTo: bounces@ewe.test\r\nSubject: Undelivered\r\n";
    // More parts than mailparser takes (1,000), and more header lines than it takes (1 MB of them, each at least 64 bytes).
    await imap.deliver(
      `${head}MIME-Version: 1.0\r\nContent-Type: multipart/report; boundary=b\r\n\r\n${"--b\r\nContent-Type: text/plain\r\n\r\nx\r\n".repeat(1_100)}--b--\r\n`,
    );
    await imap.deliver(`${head}${"X-A: b\r\n".repeat(17_000)}\r\nHello.\r\n`);
    // Reports that name 200,000 addresses where the mail's return path would be: too many
    // to pass to a function at once, which threw, and the mail was kept for every round.
    const many = "a@b ".repeat(200_000);
    const report = (type: string, part: string) =>
      `${head}MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=${type}; boundary=b\r\n\r\n--b\r\n${part}\r\n--b--\r\n`;
    await imap.deliver(
      report(
        "delivery-status",
        `Content-Type: message/delivery-status\r\n\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n--b\r\nContent-Type: text/rfc822-headers\r\n\r\nReturn-Path: ${many}\r\n`,
      ),
    );
    await imap.deliver(
      report(
        "feedback-report",
        `Content-Type: message/feedback-report\r\n\r\nFeedback-Type: abuse\r\nOriginal-Mail-From: ${many}\r\n`,
      ),
    );
    expect(await readMailbox()).not.toMatch(/kept/);
    expect(await runSql(t, "select email_hash, reason from suppressions order by 1")).toEqual(
      before,
    );
  });
});

// The server reads its bounce mailbox 5 s after it starts (this app 100 ms),
// then every BOUNCE_IMAP_POLL_SECONDS (5 minutes): the mail is there before it
// starts, so that its first round reads it, however long the start takes.
// On SQLite alone: the mail is parsed and deleted before any statement, so the
// database does not matter (its run on PostgreSQL made none).
describe.each(["sqlite"] as const)(
  "a bounce mailbox holding a mail whose To is one word of 900 kB, on %s",
  (backend) => {
    let t: TestApp;
    let imap: ImapServer;
    beforeAll(async () => {
      imap = await startImapServer();
      await imap.deliver(
        `From: someone@example.org\r\nTo: ${"a".repeat(900_000)}\r\nSubject: Hello\r\n\r\nHello.\r\n`,
      );
      t = await startTestApp(backend, {
        env: {
          MAIL_FROM: "news@ewe.test",
          BOUNCE_ADDRESS: "bounces@ewe.test",
          BOUNCE_IMAP_URL: imap.url,
        },
        bounceFirstMs: 100,
      });
    });
    afterAll(async () => {
      await t?.close();
      await imap?.stop();
    });

    // Before, that word held the event loop for about a quarter of an hour; now
    // parsing it takes seconds, or a minute on a 2-core machine busy with the
    // rest of the suite: the bound tells the two apart.
    it("is read in linear time, and the site answers meanwhile", { timeout: 240_000 }, async () => {
      await expect
        .poll(
          async () => {
            expect((await t.app.inject({ url: "/healthz" })).statusCode).toBe(200);
            return imap.count();
          },
          { timeout: 180_000 },
        )
        .toBe(0);
    });
  },
);
