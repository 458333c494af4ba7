import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { simpleParser } from "mailparser";
import { expect } from "vitest";
import type { ReceivedMail } from "./smtp.ts";
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
  seen: Set<string> = new Set(),
): Promise<string> {
  const folder = path.join(t.dataDir, "outbox");
  let token: string | undefined;
  await expect
    .poll(
      async () => {
        let files: string[] = [];
        try {
          files = readdirSync(folder);
        } catch {
          return false;
        }
        for (const file of files.filter((name) => !seen.has(name))) {
          const mail = await simpleParser(readFileSync(path.join(folder, file)));
          const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
          const wanted = email.trim().toLowerCase();
          if (
            to.some((address) => address.value.some((v) => v.address?.toLowerCase() === wanted))
          ) {
            token = confirmationToken(mail.text ?? "");
            return true;
          }
        }
        return false;
      },
      { timeout: 15_000, interval: 50 },
    )
    .toBe(true);
  return token as string;
}

/** Subscribes and confirms `email` through the API, reading the mail from DATA_DIR/outbox/. */
export async function confirmedSubscriber(t: TestApp, email: string): Promise<void> {
  const seen = new Set(outboxFiles(t));
  expect((await requestSubscription(t, email)).statusCode).toBe(202);
  const token = await tokenFromOutboxFolder(t, email, seen);
  expect((await t.visitor().post("/api/subscribers/confirm", { token })).statusCode).toBe(200);
}

function outboxFiles(t: Pick<TestApp, "dataDir">): string[] {
  try {
    return readdirSync(path.join(t.dataDir, "outbox"));
  } catch {
    return [];
  }
}
