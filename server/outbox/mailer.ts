import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { onFirstUse } from "../lib/on-first-use.ts";
import type { DkimSigning } from "./dkim.ts";
import type { Mailer } from "./outgoing-mail.ts";
import { createSmtpThreadMailer } from "./smtp-thread-mailer.ts";

export type { Mailer, OutgoingMail } from "./outgoing-mail.ts";

export type MailerLog = { info(object: unknown, message: string): void };

/**
 * SMTP through nodemailer when SMTP_URL is set, over at most `connections`
 * pooled connections, in a thread of its own (smtp-thread-mailer.ts);
 * otherwise every message is written as an .eml file under `DATA_DIR/outbox/`,
 * so a first run needs no mail server and a newcomer can open the
 * confirmation mail from disk.
 */
export function createMailer(
  {
    smtpUrl,
    from,
    dataDir,
    connections = 1,
    dkim = null,
  }: {
    smtpUrl: string | undefined;
    from: string;
    dataDir: string;
    connections?: number;
    /** Signs every mail (server/outbox/dkim.ts). */
    dkim?: DkimSigning | null;
  },
  log: MailerLog,
): Mailer {
  if (smtpUrl) return createSmtpThreadMailer({ smtpUrl, from, connections, dkim });

  const folder = path.resolve(dataDir, "outbox");
  // Made when the first message goes out: nodemailer and the fetch machinery
  // it loads cost a tenth of the server's start and about 20 MB, for a server
  // that may send nothing for hours (docs/benchmarks.md, "Start and idle").
  const transport = onFirstUse(() =>
    import("nodemailer").then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        streamTransport: true,
        buffer: true,
        ...(dkim?.algorithm === "rsa" ? { dkim } : {}),
      }),
    ),
  );
  return {
    async send(mail) {
      const info = await (await transport()).sendMail({ from, ...mail });
      let message = info.message as Buffer;
      if (dkim?.algorithm === "ed25519") {
        // nodemailer's signer knows RSA alone (as in smtp-thread.js).
        const { dkimSign } = await import("mailauth");
        const { signatures } = await dkimSign(message, {
          signingDomain: dkim.domainName,
          selector: dkim.keySelector,
          privateKey: dkim.privateKey,
        });
        message = Buffer.concat([Buffer.from(signatures), message]);
      }
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const file = path.join(
        folder,
        `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.eml`,
      );
      // The message holds an address and a link that acts for its owner.
      writeFileSync(file, message, { mode: 0o600 });
      log.info({ file }, "mail written to the outbox folder (SMTP_URL is not set)");
    },
    // Writing files holds no connection: there is nothing to close.
    close() {},
  };
}

/**
 * How the outbox treats a failed delivery. `hardBounce`: the recipient's
 * server refused the address itself for good (a 5xx answer to RCPT TO, or an
 * enhanced status 5.1.x: no such mailbox, bad address), as opposed to the
 * message (too large, taken for spam), which says nothing of the address.
 */
export type DeliveryFailure = { permanent: boolean; hardBounce: boolean; reason: string };

/**
 * A 5xx answer to the envelope or the message is the recipient's server
 * saying no: permanent. A 4xx answer, a lost connection, a timeout or a
 * refused login are temporary: the message waits and is tried again, and a
 * broken configuration does not fail a whole edition at once.
 */
export function classifyFailure(error: unknown): DeliveryFailure {
  const { responseCode, response, code, message } = (error ?? {}) as {
    responseCode?: number;
    response?: string;
    code?: string;
    message?: string;
  };
  const reason = (response ?? message ?? String(error)).replace(/\s+/g, " ").slice(0, 500);
  const permanent =
    typeof responseCode === "number" &&
    responseCode >= 500 &&
    code !== "EAUTH" &&
    code !== "ECONNECTION";
  const hardBounce = permanent && (code === "EENVELOPE" || /(^|\s)5\.1\.\d{1,3}\b/.test(reason));
  return { permanent, hardBounce, reason };
}
