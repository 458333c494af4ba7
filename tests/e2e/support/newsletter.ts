import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "@playwright/test";
import { simpleParser } from "mailparser";
import { resolveCookieSecret } from "../../../server/engagement/visitor.ts";
import { createFormTokens } from "../../../server/newsletter/form-token.ts";

/** A form token old enough to pass, for the server whose DATA_DIR holds the cookie secret. */
export function formTokenFor(dataDir: string): string {
  return createFormTokens(resolveCookieSecret({ DATA_DIR: dataDir })).issue(Date.now() - 5000);
}

/** The confirmation link mailed to `email`, from the .eml files of DATA_DIR/outbox/ (no SMTP_URL). */
export async function confirmationLink(dataDir: string, email: string): Promise<string> {
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
        const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
        if (to.some((a) => a.value.some((v) => v.address === email))) {
          link =
            /https?:\/\/\S+\/newsletter\/confirm\?token=[A-Za-z0-9_-]{43}/.exec(
              mail.text ?? "",
            )?.[0] ?? "";
        }
      }
      return link;
    })
    .toMatch(/confirm\?token=/);
  return link;
}
