import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/postgres.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { editionFile } from "./support/newsletter.ts";
import { type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { runSql, seedConfirmed } from "./support/sql.ts";
import { backends, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A mail the outbox gives up on (docs/mail.md, "Bounces and complaints"): it
 * counts as a soft bounce of its recipient only when what refused it, each
 * time, was an answer about the recipient (a full mailbox). A mail server
 * that cannot be reached, or that refuses the site's own sending (its rate, a
 * system of its own that is down), says nothing of the reader: three such
 * mails in a month would otherwise have suppressed every reader they were for.
 * The retries are a millisecond apart here, not 30 seconds.
 */

/** The soft bounces counted against `email`'s mailbox. */
const softBounces = (t: TestApp, email: string) =>
  runSql(t, "select ref from soft_bounces where email_hash = ?", [t.addressKey(email)]);

/** Sends an edition to `readers` and waits until the outbox has given up on each. */
async function givenUp(t: TestApp, readers: string[], slug: string) {
  await seedConfirmed(t, readers);
  const sent = await admin(adminEnv(t), "newsletter", "send", editionFile(slug), "--yes");
  expect(sent.code, sent.stderr).toBe(0);
  const marks = readers.map(() => "?").join(", ");
  const statuses = () =>
    runSql(
      t,
      `select email, status from outbox where kind = 'edition' and email in (${marks}) order by email`,
      readers,
    );
  await expect
    .poll(statuses, { timeout: 60_000 })
    .toEqual([...readers].sort().map((email) => ({ email, status: "failed" })));
}

describe.each(backends)("a mail given up on, on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  const reader = (name: string) => `${name}.${backend}@example.org`;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    smtp.recipient = (address) =>
      address.startsWith("full.")
        ? { code: 452, message: "4.2.2 Mailbox full" }
        : address.startsWith("limited.")
          ? { code: 451, message: "4.7.1 Too many messages from you, slow down" }
          : undefined;
    smtp.answer = (to) =>
      to.some((address) => address.startsWith("down."))
        ? { code: 451, message: "4.3.0 Temporary system problem, try later" }
        : undefined;
    t = await startTestApp(backend, {
      env: { MAIL_RATE_PER_MINUTE: "0", SMTP_URL: smtp.url },
      mail: { retryBaseMs: 1 },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it("counts a soft bounce for a full mailbox alone, not for the server's refusals of the site", async () => {
    const readers = ["full", "limited", "down"].map(reader);
    await givenUp(t, readers, "given-up");
    expect(await softBounces(t, reader("full"))).toHaveLength(1);
    expect(await softBounces(t, reader("limited"))).toEqual([]);
    expect(await softBounces(t, reader("down"))).toEqual([]);
  });
});

// The mail server is the site's own: what it does not answer is the same on either database.
describe.each(["sqlite"] as const)("a mail server that cannot be reached, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: { MAIL_RATE_PER_MINUTE: "0", SMTP_URL: `smtp://127.0.0.1:${await freePort()}` },
      mail: { retryBaseMs: 1 },
    });
  });
  afterAll(() => t?.close());

  it("counts no soft bounce against the readers its mails were for", async () => {
    const away = `away.${backend}@example.org`;
    await givenUp(t, [away], "unreachable");
    expect(await softBounces(t, away)).toEqual([]);
    expect(await runSql(t, "select reason from suppressions")).toEqual([]);
  });
});
