import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { type ParsedMail, simpleParser } from "mailparser";
import { resolveCookieSecret } from "../../server/engagement/visitor.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";

/** A newsletter form token, old enough to pass, for a server with this secret or DATA_DIR. */
export function formTokenFor(settings: { COOKIE_SECRET?: string; DATA_DIR: string }): string {
  return createFormTokens(resolveCookieSecret(settings)).issue(Date.now() - 5000);
}

/** Whether `mail` is addressed to `email` (case aside). */
export function isAddressedTo(mail: ParsedMail, email: string): boolean {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  const wanted = email.trim().toLowerCase();
  return to.some((address) => address.value.some((v) => v.address?.toLowerCase() === wanted));
}

/**
 * The mails in DATA_DIR/outbox/ (the .eml files written when there is no
 * SMTP_URL) that `wanted` picks, skipping the files named in `seen`; none
 * while the folder does not exist. Callers poll it with their runner's `expect`.
 */
export async function outboxMails(
  dataDir: string,
  wanted: (mail: ParsedMail) => boolean,
  seen: ReadonlySet<string> = new Set(),
): Promise<ParsedMail[]> {
  const mails: ParsedMail[] = [];
  for (const file of outboxFiles(dataDir).filter((name) => !seen.has(name))) {
    let raw: Buffer;
    try {
      raw = readFileSync(path.join(dataDir, "outbox", file));
    } catch {
      // Deleted since it was listed, with its outbox row.
      continue;
    }
    const mail = await simpleParser(raw);
    if (wanted(mail)) mails.push(mail);
  }
  return mails;
}

/** The names of the files in DATA_DIR/outbox/, none while it does not exist. */
export function outboxFiles(dataDir: string): string[] {
  try {
    return readdirSync(path.join(dataDir, "outbox"));
  } catch {
    return [];
  }
}
