import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type NodeMailer from "nodemailer";
import type { Transporter } from "nodemailer";

/** One message as the outbox hands it to the transport. */
export type OutgoingMail = {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
  /** Where replies go: an enquiry's sender in the owner's copy, the owner in the sender's mails. */
  replyTo?: string | { name: string; address: string };
  /** Threading: the Message-ID to use, and the one this mail answers. */
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
};

export type Mailer = {
  /** Resolves once the SMTP server accepted the message (or the file is written). */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
};

export type MailerLog = { info(object: unknown, message: string): void };

/**
 * SMTP through nodemailer when SMTP_URL is set; otherwise every message is
 * written as an .eml file under `DATA_DIR/outbox/`, so a first run needs no
 * mail server and a newcomer can open the confirmation mail from disk.
 */
export function createMailer(
  { smtpUrl, from, dataDir }: { smtpUrl: string | undefined; from: string; dataDir: string },
  log: MailerLog,
): Mailer {
  if (smtpUrl) {
    const transport = lazyTransport((nodemailer) =>
      nodemailer.createTransport({
        url: smtpUrl,
        pool: true,
        maxConnections: 2,
        // An SMTP server that stops answering must not hold a message for
        // nodemailer's default of ten minutes: the outbox retries it.
        connectionTimeout: 30_000,
        greetingTimeout: 30_000,
        socketTimeout: 60_000,
      }),
    );
    return {
      async send(mail) {
        await (await transport.get()).sendMail({ from, ...mail });
      },
      close: transport.close,
    };
  }

  const folder = path.resolve(dataDir, "outbox");
  const transport = lazyTransport((nodemailer) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true }),
  );
  return {
    async send(mail) {
      const info = await (await transport.get()).sendMail({ from, ...mail });
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const file = path.join(
        folder,
        `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.eml`,
      );
      // The message holds an address and a link that acts for its owner.
      writeFileSync(file, info.message as Buffer, { mode: 0o600 });
      log.info({ file }, "mail written to the outbox folder (SMTP_URL is not set)");
    },
    close: transport.close,
  };
}

/** How the outbox treats a failed delivery. */
export type DeliveryFailure = { permanent: boolean; reason: string };

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
  return { permanent, reason };
}

/**
 * nodemailer's transport, made when the first message goes out: nodemailer
 * and the fetch machinery it loads cost a tenth of the server's start and
 * about 20 MB, for a server that may send nothing for hours
 * (docs/benchmarks.md, "Start and idle").
 */
function lazyTransport(make: (nodemailer: typeof NodeMailer) => Transporter) {
  let made: Promise<Transporter> | undefined;
  return {
    get(): Promise<Transporter> {
      made ??= import("nodemailer").then(({ default: nodemailer }) => make(nodemailer));
      return made;
    },
    close(): void {
      void made?.then((transport) => transport.close());
    },
  };
}
