import { expect } from "@playwright/test";
import type { ParsedMail } from "mailparser";
import { isAddressedTo, outboxMails } from "../../support/newsletter.ts";

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
      for (const mail of await outboxMails(dataDir, wanted)) {
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
    (mail) => isAddressedTo(mail, email),
    /https?:\/\/\S+\/newsletter\/confirm\?token=[A-Za-z0-9_-]{43}/,
  );
}
