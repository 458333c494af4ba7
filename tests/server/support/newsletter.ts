import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { isAddressedTo, outboxFiles, outboxMails } from "../../support/newsletter.ts";
import { header, type ReceivedMail, type SmtpSink } from "./smtp.ts";
import { runSql } from "./sql.ts";
import type { TestApp } from "./test-app.ts";

/** Asks to subscribe as the footer's form does; the address is then pending. */
export async function requestSubscription(t: TestApp, email: string, ip = "127.0.0.1") {
  return t.app.inject({
    method: "POST",
    url: "/api/subscribers",
    remoteAddress: ip,
    headers: { origin: "http://ewe.test" },
    payload: { email, formToken: t.formToken(), website: "" },
  });
}

/** The confirmation token in a confirmation mail's link. */
export function confirmationToken(text: string): string {
  const match = /\/newsletter\/confirm\?token=([A-Za-z0-9_-]{43})/.exec(text);
  if (!match?.[1]) throw new Error(`no confirmation link in:\n${text}`);
  return match[1];
}

export function tokenOfMail(mail: ReceivedMail): string {
  return confirmationToken(mail.parsed.text ?? "");
}

/** Waits for the .eml the default transport writes for `email` (no SMTP_URL) and reads its link. */
export async function tokenFromOutboxFolder(
  t: Pick<TestApp, "dataDir">,
  email: string,
  seen: ReadonlySet<string> = new Set(),
): Promise<string> {
  let token: string | undefined;
  await expect
    .poll(
      async () => {
        const [mail] = await outboxMails(t.dataDir, (mail) => isAddressedTo(mail, email), seen);
        if (mail) token = confirmationToken(mail.text ?? "");
        return token !== undefined;
      },
      { timeout: 15_000, interval: 50 },
    )
    .toBe(true);
  return token as string;
}

/** Subscribes and confirms `email` through the API, reading the mail from DATA_DIR/outbox/. */
export async function confirmedSubscriber(t: TestApp, email: string): Promise<void> {
  const seen = new Set(outboxFiles(t.dataDir));
  expect((await requestSubscription(t, email)).statusCode).toBe(202);
  const token = await tokenFromOutboxFolder(t, email, seen);
  expect((await t.visitor().post("/api/subscribers/confirm", { token })).statusCode).toBe(200);
}

/** An edition file named `slug`.md in a folder of its own, with the subject "Edition <slug>". */
export function editionFile(slug: string, body = "Hello, readers."): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-edition-")), `${slug}.md`);
  writeFileSync(file, `---\nsubject: Edition ${slug}\n---\n${body}\n`);
  return file;
}

/** How many copies of `subject` each address received. */
export function copies(smtp: SmtpSink, subject: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const mail of smtp.received) {
    if (header(mail, "Subject") !== subject) continue;
    for (const to of mail.to) counts.set(to, (counts.get(to) ?? 0) + 1);
  }
  return counts;
}

/** `n` addresses, `<tag>-<i>@example.com`. */
export const recipients = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag}-${i}@example.com`);

/** A time `ms` from now, to the second, as `--at` takes it. */
export const inMs = (ms: number) =>
  new Date(Math.ceil((Date.now() + ms) / 1000) * 1000).toISOString();

type Db = { databaseUrl: string | undefined; dataDir: string };
/**
 * The time of the scheduled edition `slug` comes `ms` from now: what the
 * clock would do in an hour, the test does in the database. Its new time, as
 * `--at` takes it.
 */
export async function dueIn(t: Db, slug: string, ms: number): Promise<string> {
  const at = inMs(ms);
  await runSql(
    t,
    "update edition_schedules set send_at = ? where edition_id = (select id from editions where slug = ?)",
    [at, slug],
  );
  return at;
}

/** The objects of the owner's audit lines for `action`, oldest first. */
export const auditLines = async (t: Db, action: string) =>
  (await runSql(t, "select object from owner_audit where action = ? order by id", [action])).map(
    (row) => row.object,
  );
