import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "@playwright/test";
import { type ParsedMail, simpleParser } from "mailparser";
import { resolveCookieSecret } from "../../../server/engagement/visitor.ts";
import { createFormTokens } from "../../../server/newsletter/form-token.ts";

/** A form token old enough to pass, for the server whose DATA_DIR holds the cookie secret. */
export function formTokenFor(dataDir: string): string {
  return createFormTokens(resolveCookieSecret({ DATA_DIR: dataDir })).issue(Date.now() - 5000);
}

/**
 * The first link matching `pattern` in a mail of DATA_DIR/outbox/ (the .eml
 * files written when there is no SMTP_URL) that `wanted` picks, once it is there.
 */
export async function linkFromOutbox(
  dataDir: string,
  wanted: (mail: ParsedMail) => boolean,
  pattern: RegExp,
): Promise<string> {
  let link = "";
  await expect
    .poll(async () => {
      let files: string[] = [];
      try {
        files = readdirSync(path.join(dataDir, "outbox"));
      } catch {
        return "";
      }
      for (const file of files) {
        const mail = await simpleParser(readFileSync(path.join(dataDir, "outbox", file)));
        if (!wanted(mail)) continue;
        const match = pattern.exec(mail.text ?? "");
        link = match?.[1] ?? match?.[0] ?? "";
        if (link) break;
      }
      return link;
    })
    .not.toBe("");
  return link;
}

/** The confirmation link mailed to `email`. */
export function confirmationLink(dataDir: string, email: string): Promise<string> {
  return linkFromOutbox(
    dataDir,
    (mail) => {
      const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
      return to.some((a) => a.value.some((v) => v.address === email));
    },
    /https?:\/\/\S+\/newsletter\/confirm\?token=[A-Za-z0-9_-]{43}/,
  );
}
