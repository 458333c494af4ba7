import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { authenticate } from "mailauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema } from "../../contract/api.ts";
import { createDkimKey, dkimDnsRecord, dkimSigning } from "../../server/outbox/dkim.ts";
import { createMailer, createSmtpThreadMailer } from "../../server/outbox/mailer.ts";
import { projectRoot } from "../support/server-process.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { requestSubscription } from "./support/newsletter.ts";
import { header, type ReceivedMail, type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { runSql, seedConfirmed } from "./support/sql.ts";
import { backends, freshItem, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A list that stays healthy (docs/mail.md, "Bounces and complaints", "Signed
 * mail"): at send time a permanent refusal of a recipient suppresses it and a
 * temporary one is retried; every mail goes out from its own signed return
 * path and carries a DKIM signature that mailauth, a second implementation,
 * verifies; a suppressed address gets nothing more, of any kind.
 */

function editionFile(slug: string, body = "Hello, readers."): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-edition-")), `${slug}.md`);
  writeFileSync(file, `---\nsubject: Edition ${slug}\n---\n${body}\n`);
  return file;
}

/** What mailauth makes of a received mail's DKIM signature, with our TXT record as the DNS. */
async function dkimResult(
  mail: Pick<ReceivedMail, "raw">,
  record: { name: string; value: string },
) {
  const { dkim } = await authenticate(mail.raw, {
    trustReceived: false,
    disableArc: true,
    disableBimi: true,
    resolver: async (name: string, type: string) => {
      if (type === "TXT" && name === record.name) return [[record.value]];
      throw Object.assign(new Error(`no ${type} for ${name}`), { code: "ENOTFOUND" });
    },
  });
  return dkim.results.map((result) => ({
    result: result.status.result,
    domain: result.signingDomain,
  }));
}

/** The TXT record `admin mail dkim` printed. */
function printedRecord(stdout: string) {
  const match = /^(\S+\._domainkey\.\S+)\s+TXT\s+"([^"]+)"$/m.exec(stdout);
  if (!match) throw new Error(`no record in:\n${stdout}`);
  return { name: match[1] as string, value: match[2] as string };
}

describe.each(backends)("list health at send time on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  let record: { name: string; value: string };
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-list-health-"));
  const env = {
    MAIL_RATE_PER_MINUTE: "0",
    MAIL_FROM: "Engage with Engineer <news@ewe.test>",
    BOUNCE_ADDRESS: "bounces@ewe.test",
  };
  const softTries = new Map<string, number>();

  beforeAll(async () => {
    smtp = await startSmtpSink();
    // The key is made before the server starts, as the owner would.
    const made = await admin(
      { NODE_ENV: "test", DATA_DIR: dataDir, ...env },
      "mail",
      "dkim",
      "--selector",
      "test",
    );
    expect(made.code, made.stderr).toBe(0);
    record = printedRecord(made.stdout);
    expect(record.name).toBe("test._domainkey.ewe.test");
    expect(statSync(path.join(dataDir, "dkim-key.json")).mode & 0o777).toBe(0o600);
    t = await startTestApp(backend, { dataDir, env: { ...env, SMTP_URL: smtp.url } });
    smtp.recipient = (address) => {
      if (address.startsWith("gone")) return { code: 550, message: "5.1.1 No such user here" };
      if (address.startsWith("busy")) {
        const tries = (softTries.get(address) ?? 0) + 1;
        softTries.set(address, tries);
        if (tries <= 2) return { code: 451, message: "4.2.1 Mailbox busy, try later" };
      }
      return undefined;
    };
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  // Once, on SQLite: the DKIM key is a file in DATA_DIR, not a row.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("shows the record again when run again, as docs/mail.md says, with or without MAIL_FROM", async () => {
        const again = await admin({ NODE_ENV: "test", DATA_DIR: dataDir }, "mail", "dkim");
        expect(again.code, again.stderr).toBe(0);
        expect(again.stdout).toContain("There is already a DKIM key (RSA, 2048 bits)");
        expect(printedRecord(again.stdout)).toEqual(record);
      });
    });
  }

  it("suppresses refused recipients, delivers retried ones once, and signs every mail", async () => {
    const readers = [
      `reader-1.${backend}@example.org`,
      `reader-2.${backend}@example.org`,
      `gone-1.${backend}@example.org`,
      `busy-1.${backend}@example.org`,
    ];
    await seedConfirmed(t, readers);
    const sent = await admin(adminEnv(t), "newsletter", "send", editionFile("healthy"), "--yes");
    expect(sent.code, sent.stderr).toBe(0);
    const delivered = readers.filter((r) => !r.startsWith("gone"));
    await smtp.waitFor(() => delivered.every((r) => smtp.to(r).length > 0), 30_000);
    const listed = async () =>
      JSON.parse((await admin(adminEnv(t), "suppressions", "list", "--json")).stdout);
    await expect.poll(listed, { timeout: 15_000 }).toEqual([
      expect.objectContaining({
        email: `gone-1.${backend}@example.org`,
        reason: "hard_bounce",
        source: "smtp",
      }),
    ]);
    for (const reader of delivered) expect(smtp.to(reader)).toHaveLength(1);
    expect(smtp.to(`gone-1.${backend}@example.org`)).toHaveLength(0);

    const edition = smtp.to(`reader-1.${backend}@example.org`)[0] as ReceivedMail;
    // Its own return path: the bounce address with the row and a signature.
    expect(edition.from).toMatch(/^bounces\+\d+-[0-9a-f]{16}@ewe\.test$/);
    expect(smtp.to(`reader-2.${backend}@example.org`)[0]?.from).not.toBe(edition.from);
    expect(header(edition, "DKIM-Signature")).toContain("d=ewe.test");
    expect(await dkimResult(edition, record)).toEqual([{ result: "pass", domain: "ewe.test" }]);

    // A second edition is not queued for the suppressed address at all.
    const second = await admin(adminEnv(t), "newsletter", "send", editionFile("next"), "--yes");
    expect(second.stdout).toContain("for 3 subscribers");
  });

  it("suppresses nobody for a refusal of the message or its sender, and counts a full mailbox as soft", async () => {
    const reader = (name: string) => `${name}-3.${backend}@example.org`;
    // Refusals at RCPT TO that say nothing of the address: the sending server blocklisted, a
    // relay that wants a login. Were they hard bounces, one such day would empty the list.
    const answers = new Map([
      [
        reader("listed"),
        { code: 554, message: "5.7.1 Client host rejected: blocked using zen.spamhaus.org" },
      ],
      [reader("relayed"), { code: 554, message: "5.7.1 <relayed>: Relay access denied" }],
      [reader("full"), { code: 552, message: "5.2.2 Mailbox full" }],
      // A server too old for enhanced codes, refusing the recipient: a hard bounce still; and
      // Outlook.com's answer for a mailbox it has not.
      [reader("unknown"), { code: 550, message: "No such user here" }],
      [
        reader("outlook"),
        { code: 550, message: "5.5.0 Requested action not taken: mailbox unavailable" },
      ],
    ]);
    smtp.recipient = (address) => answers.get(address);
    await seedConfirmed(t, [...answers.keys()]);
    const sent = await admin(adminEnv(t), "newsletter", "send", editionFile("refused"), "--yes");
    expect(sent.code, sent.stderr).toBe(0);
    const statuses = () =>
      runSql(
        t,
        "select email, status from outbox where kind = 'edition' and email like ? order by email",
        [`%-3.${backend}@example.org`],
      );
    await expect
      .poll(statuses, { timeout: 15_000 })
      .toEqual([...answers.keys()].sort().map((email) => ({ email, status: "failed" })));
    const suppressed = await runSql(t, "select email_hash, reason from suppressions");
    for (const name of ["unknown", "outlook"]) {
      expect(suppressed, name).toContainEqual({
        email_hash: t.addressKey(reader(name)),
        reason: "hard_bounce",
      });
    }
    for (const name of ["listed", "relayed", "full"]) {
      expect(
        suppressed.map((row) => row.email_hash),
        name,
      ).not.toContain(t.addressKey(reader(name)));
    }
    expect(
      await runSql(t, "select 1 from soft_bounces where email_hash = ?", [
        t.addressKey(reader("full")),
      ]),
    ).toHaveLength(1);
    smtp.recipient = () => undefined;
  });

  it("lets nobody suppress a subscriber by having a tagged spelling of their address bounce", async () => {
    const reader = `victim.${backend}@example.org`;
    const tagged = `victim.${backend}+x@example.org`;
    await seedConfirmed(t, [reader]);
    // The reader's server takes no tags: "victim+x" is no mailbox, and says so.
    smtp.recipient = (address) =>
      address === tagged ? { code: 550, message: "5.1.1 User unknown" } : undefined;
    // A stranger asks for the tagged spelling: its confirmation bounces.
    expect((await requestSubscription(t, tagged, "10.9.1.1")).statusCode).toBe(202);
    await expect
      .poll(() => runSql(t, "select status from outbox where email = ?", [tagged]))
      .toEqual([{ status: "failed" }]);
    const sent = await admin(adminEnv(t), "newsletter", "send", editionFile("tagged"), "--yes");
    expect(sent.code, sent.stderr).toBe(0);
    await smtp.waitFor(() => smtp.to(reader).length === 1);
    // The tagged spelling itself is mailed nothing more.
    await runSql(t, "update subscribers set confirmation_sent_at = ? where email = ?", [
      new Date(Date.now() - 25 * 3600_000).toISOString(),
      tagged,
    ]);
    expect((await requestSubscription(t, tagged, "10.9.1.2")).statusCode).toBe(202);
    await expect
      .poll(() => runSql(t, "select last_error from outbox where email = ? order by id", [tagged]))
      .toEqual([expect.anything(), { last_error: "the address is suppressed" }]);
    smtp.recipient = () => undefined;
  });

  it("sends a suppressed address no confirmation, and a signed one to anyone else", async () => {
    const gone = `gone-2.${backend}@example.org`;
    smtp.recipient = (address) =>
      address === gone ? { code: 550, message: "5.1.1 No such user here" } : undefined;
    // Its first confirmation bounces, which suppresses it.
    expect((await requestSubscription(t, gone, "10.9.0.1")).statusCode).toBe(202);
    await expect
      .poll(async () => (await admin(adminEnv(t), "suppressions", "list")).stdout)
      .toContain(gone);
    // Asking again a day later would queue another: it is cancelled, never sent.
    await runSql(t, "update subscribers set confirmation_sent_at = ? where email = ?", [
      new Date(Date.now() - 25 * 3600_000).toISOString(),
      gone,
    ]);
    smtp.recipient = () => undefined;
    expect((await requestSubscription(t, gone, "10.9.0.2")).statusCode).toBe(202);
    // Neither row keeps its confirmation link's token once the mail can no longer go.
    await expect
      .poll(async () =>
        runSql(t, "select status, last_error, token from outbox where email = ? order by id", [
          gone,
        ]),
      )
      .toEqual([
        expect.objectContaining({ status: "failed", token: null }),
        { status: "cancelled", last_error: "the address is suppressed", token: null },
      ]);
    expect(smtp.to(gone)).toHaveLength(0);

    const welcome = `welcome.${backend}@example.org`;
    expect((await requestSubscription(t, welcome, "10.9.0.3")).statusCode).toBe(202);
    await smtp.waitFor(() => smtp.to(welcome).length === 1);
    expect(await dkimResult(smtp.to(welcome)[0] as ReceivedMail, record)).toEqual([
      { result: "pass", domain: "ewe.test" },
    ]);
  });

  it("signs reply mails, and sends none to a suppressed address", async () => {
    const postId = freshItem("science");
    const email = `replies.${backend}@example.org`;
    const ask = (content: string, notifyEmail: string) =>
      t.visitor().post(`/api/items/science/${postId}/comments`, {
        content,
        userName: "Asha",
        formToken: t.commentToken(),
        notifyEmail,
      });
    const asked = await ask("How long does a flywheel keep its energy?", email);
    expect(asked.statusCode).toBe(201);
    json(asked, commentResponseSchema);
    await smtp.waitFor(() => smtp.to(email).length === 1);
    expect(await dkimResult(smtp.to(email)[0] as ReceivedMail, record)).toEqual([
      { result: "pass", domain: "ewe.test" },
    ]);

    const suppressed = `gone-1.${backend}@example.org`;
    expect((await ask("Why do bearings fail early in damp sheds?", suppressed)).statusCode).toBe(
      201,
    );
    await expect
      .poll(async () =>
        runSql(t, "select status from outbox where email = ? and kind = 'reply_confirmation'", [
          suppressed,
        ]),
      )
      .toEqual([{ status: "cancelled" }]);
    expect(smtp.to(suppressed)).toHaveLength(0);
  });

  it("lifts a suppression for the owner, and says when there is none", async () => {
    const gone = `gone-1.${backend}@example.org`;
    const lifted = await admin(adminEnv(t), "suppressions", "lift", gone);
    expect(lifted).toMatchObject({
      code: 0,
      stdout: `Lifted the suppression of ${gone}: mail may go to it again.\n`,
    });
    expect((await admin(adminEnv(t), "suppressions", "lift", gone)).code).toBe(3);
    expect((await admin(adminEnv(t), "suppressions", "lift", "not an address")).code).toBe(2);
    // A row's id is base64url: one in 64 begins with "-", and is still the value of --id.
    const dashed = await admin(adminEnv(t), "suppressions", "lift", "--id", "-Qk9x");
    expect(dashed.code, dashed.stderr).toBe(3);
    expect(dashed.stderr).toContain("No suppression has the id -Qk9x.");
    const trail = await runSql(
      t,
      "select action, object from owner_audit where action = 'suppression lift'",
    );
    expect(trail).toEqual([{ action: "suppression lift", object: "1 address" }]);
  });
});

describe("an Ed25519 DKIM key", () => {
  const key = createDkimKey({ algorithm: "ed25519", domain: "ewe.test", selector: "ed" });
  const mail = { to: "reader@example.com", subject: "Signed", text: "Hello", html: "<p>Hello</p>" };

  it("signs what the SMTP thread sends", async () => {
    const smtp = await startSmtpSink();
    const mailer = createSmtpThreadMailer({
      smtpUrl: smtp.url,
      from: "news@ewe.test",
      connections: 1,
      dkim: dkimSigning(key),
    });
    try {
      await mailer.send(mail);
      const [received] = smtp.to(mail.to);
      expect(await dkimResult(received as ReceivedMail, dkimDnsRecord(key))).toEqual([
        { result: "pass", domain: "ewe.test" },
      ]);
    } finally {
      mailer.close();
      await smtp.close();
    }
  });

  it("signs what is written to the outbox folder without SMTP_URL", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-dkim-file-"));
    const mailer = createMailer(
      { smtpUrl: undefined, from: "news@ewe.test", dataDir, dkim: dkimSigning(key) },
      { info() {} },
    );
    await mailer.send(mail);
    const [file] = readdirSync(path.join(dataDir, "outbox"));
    const raw = readFileSync(path.join(dataDir, "outbox", file as string));
    expect(await dkimResult({ raw }, dkimDnsRecord(key))).toEqual([
      { result: "pass", domain: "ewe.test" },
    ]);
  });
});

describe("the SMTP thread", () => {
  it("loads nothing of the server's but its own file, and of the packages nodemailer alone", () => {
    // The thread is this process's Worker: `--import` runs in it too, and it
    // records into the file RECORD_MODULES named when the thread started.
    const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-smtp-thread-"));
    const record = path.join(dir, "thread.txt");
    const script = path.join(dir, "start.mjs");
    writeFileSync(
      script,
      `const { createSmtpThreadMailer } = await import(${JSON.stringify(path.join(projectRoot, "server/outbox/mailer.ts"))});
process.env.RECORD_MODULES = ${JSON.stringify(record)};
const mailer = createSmtpThreadMailer({ smtpUrl: "smtp://127.0.0.1:9", from: "news@ewe.test", connections: 1 });
await mailer.ready();
mailer.close();
`,
    );
    execFileSync(
      process.execPath,
      ["--import", path.join(import.meta.dirname, "support/record-modules.ts"), script],
      { env: { ...process.env, RECORD_MODULES: path.join(dir, "process.txt") }, stdio: "ignore" },
    );
    const loaded = readFileSync(record, "utf8")
      .trim()
      .split("\n")
      .map((url) => path.relative(projectRoot, fileURLToPath(url)));
    // Each file the thread loads is stripped of its types and compiled in its small heap, at every start.
    expect(loaded.filter((file) => !file.includes("node_modules/"))).toEqual([
      "server/outbox/mailer.ts",
      "server/lib/loopback.ts",
      "server/lib/on-first-use.ts",
    ]);
    const packages = loaded.map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1]);
    expect(new Set(packages.filter(Boolean))).toEqual(new Set(["nodemailer"]));
  });
});
