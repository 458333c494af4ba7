import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  isMainThread,
  type MessagePort,
  parentPort,
  Worker,
  workerData,
} from "node:worker_threads";
import type { Log } from "../lib/log.ts";
import { onOwnNetwork } from "../lib/loopback.ts";
import { onFirstUse } from "../lib/on-first-use.ts";

/** One message as the outbox hands it to the transport. */
export type OutgoingMail = {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
  /** The sender, when it is not MAIL_FROM: the owner, in a reader's mails about a call (bookings/mails.ts). */
  from?: { name: string; address: string };
  /** Where replies go: an enquiry's sender in the owner's copy, the owner in the sender's mails. */
  replyTo?: string | { name: string; address: string };
  /** Threading: the Message-ID to use, and the one this mail answers. */
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  /**
   * The SMTP envelope, when it is not the headers': its sender is the mail's
   * own bounce address (server/outbox/verp.ts).
   */
  envelope?: { from: string; to: string[] };
  /**
   * A calendar invitation, published event or cancellation: sent as the text/calendar
   * part calendar programs act on, and as an `.ics` attachment (nodemailer's `icalEvent`).
   */
  icalEvent?: { method: "REQUEST" | "PUBLISH" | "CANCEL"; filename: string; content: string };
};

/** How the transports sign (dkim.ts): nodemailer's own option for RSA; mailauth's for Ed25519. */
export type DkimSigning = {
  algorithm: "rsa" | "ed25519";
  domainName: string;
  keySelector: string;
  privateKey: string;
};

export type Mailer = {
  /**
   * Resolves once the SMTP server accepted the message (or the file is
   * written). `outboxIds`: the outbox rows it is the mail of (a digest's, several).
   * `deletedOnceSent`: its row is deleted as soon as it is recorded sent (a call's
   * cancellation, delivery-rules.ts `rowUntilDone`), so no file is written for it.
   */
  send(
    mail: OutgoingMail,
    outboxIds?: readonly number[],
    options?: { deletedOnceSent?: boolean },
  ): Promise<void>;
  /** Resolves once the transport can send at once (the SMTP thread has started). */
  ready?(): Promise<void>;
  close(): void;
};

/**
 * SMTP through nodemailer when SMTP_URL is set, over at most `connections`
 * pooled connections, in a thread of its own (createSmtpThreadMailer below);
 * otherwise every message is written as an .eml file under `DATA_DIR/outbox/`,
 * so a first run needs no mail server and a newcomer can open the
 * confirmation mail from disk. A row's file is named by its id and lives as
 * long as the row: deleted means deleted there too, so a mail whose row goes
 * as it is sent (a call's cancellation) is written nowhere. A digest's file is named
 * by its first row, and a `.rows` file beside it lists all of them: it goes
 * when any does (one reader's comment deleted takes the digest that quoted it).
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
  log: Pick<Log, "info">,
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
    async send(mail, outboxIds = [], { deletedOnceSent = false } = {}) {
      if (deletedOnceSent) {
        // Its file would go with its row in the same moment (docs/mail.md): none is written.
        log.info(
          { outbox: [...outboxIds] },
          "mail not written to the outbox folder: its row is deleted once it goes out (SMTP_URL is not set)",
        );
        return;
      }
      const info = await (await transport()).sendMail({ from, ...mail });
      let message = info.message as Buffer;
      // nodemailer's signer knows RSA alone (as in runSmtpThread).
      if (dkim?.algorithm === "ed25519") message = await signedEd25519(message, dkim);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const [first] = outboxIds;
      const base = path.join(
        folder,
        `${new Date().toISOString().replace(/[:.]/g, "-")}-${first === undefined ? randomBytes(4).toString("hex") : `row${first}`}`,
      );
      if (outboxIds.length > 1) writeFileSync(`${base}.rows`, outboxIds.join(" "), { mode: 0o600 });
      const file = `${base}.eml`;
      // The message holds an address and a link that acts for its owner.
      writeFileSync(file, message, { mode: 0o600 });
      log.info({ file }, "mail written to the outbox folder (SMTP_URL is not set)");
    },
    // Writing files holds no connection: there is nothing to close.
    close() {},
  };
}

/**
 * The pooled SMTP transport's options: `connections` open at most, so as many
 * messages in flight (the outbox worker keeps that many sends going;
 * bench/newsletter.ts measures the same transport alone as its floor).
 */
export function smtpTransportOptions(smtpUrl: string, connections: number) {
  return {
    url: smtpUrl,
    // Over smtp://, TLS by STARTTLS or nothing sent: a server off this machine and its own
    // network that does not offer it may be an attacker on the way who took the offer out.
    // SMTP_URL's `?requireTLS=false` lifts it, for a relay known to take no TLS
    // (nodemailer's parameters in the URL win; docs/configuration.md).
    requireTLS: smtpUrl.startsWith("smtp:") && !onOwnNetwork(smtpUrl),
    pool: true,
    maxConnections: connections,
    // An SMTP server that stops answering must not hold a message for
    // nodemailer's default of ten minutes: the outbox retries it.
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  } as const;
}

type SmtpThreadData = {
  smtpUrl: string;
  from: string;
  connections: number;
  /** Every mail is signed with it when given (server/outbox/dkim.ts). */
  dkim?: DkimSigning | null;
};
/** What the thread is started with: nodemailer's options, made here. */
type SmtpThreadStart = {
  smtpThread: true;
  transport: ReturnType<typeof smtpTransportOptions>;
  from: string;
  dkim: DkimSigning | null;
};
type SmtpThreadRequest = { id: number; mail: OutgoingMail; close?: false } | { close: true };
export type SmtpError = {
  message: string;
  code?: string;
  response?: string;
  responseCode?: number;
  /** The SMTP command refused: `MAIL FROM`, `RCPT TO`, `DATA`. */
  command?: string;
};
type SmtpThreadReply = { ready: true } | { id: number; error?: SmtpError };

/**
 * The thread's heap limits, in MB. Its live data is the transport and the
 * messages in flight (about 12 MB in use while an edition goes out); what
 * writing a message as MIME leaves behind (about a quarter of a megabyte a
 * mail) is collected within them, where in the server's own heap it let the
 * process grow by a hundred megabytes while an edition went out
 * (docs/decisions/036-sending-in-flat-memory.md). A larger heap is not used
 * better: V8 grows a heap towards its limit, and the thread held 30 MB with
 * 48 and 8.
 */
const heapLimits = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 4 };

/**
 * SMTP from a worker thread (this same file, runSmtpThread below), started
 * with the first message. A thread that dies (out of its heap, a bug) fails the
 * messages it held as temporary failures, which the outbox retries, and the
 * next message starts a new one.
 */
export function createSmtpThreadMailer({
  smtpUrl,
  from,
  connections,
  dkim = null,
}: SmtpThreadData): Mailer {
  const start: SmtpThreadStart = {
    smtpThread: true,
    transport: smtpTransportOptions(smtpUrl, connections),
    from,
    dkim,
  };
  let thread: Worker | null = null;
  let whenReady: Promise<void> = Promise.resolve();
  let nextId = 0;
  const pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  function failAll(reason: string) {
    for (const { reject } of pending.values()) {
      // A lost connection, as nodemailer names it: temporary (classifyFailure).
      reject(Object.assign(new Error(reason), { code: "ECONNECTION" }));
    }
    pending.clear();
  }

  function started(): Worker {
    if (thread) return thread;
    const worker = new Worker(new URL("./mailer.ts", import.meta.url), {
      workerData: start,
      resourceLimits: heapLimits,
    });
    let signalReady = () => {};
    whenReady = new Promise((resolve) => {
      signalReady = resolve;
    });
    worker.on("message", (reply: SmtpThreadReply) => {
      if ("ready" in reply) return signalReady();
      const { id, error } = reply;
      const waiter = pending.get(id);
      pending.delete(id);
      if (!waiter) return;
      if (error) waiter.reject(Object.assign(new Error(error.message), error));
      else waiter.resolve();
    });
    worker.on("error", (error) => failAll(`the SMTP thread failed: ${error.message}`));
    worker.on("exit", (code) => {
      signalReady();
      if (thread === worker) thread = null;
      failAll(`the SMTP thread stopped (${code})`);
    });
    thread = worker;
    return worker;
  }

  return {
    send(mail) {
      const id = nextId++;
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        started().postMessage({ id, mail } satisfies SmtpThreadRequest);
      });
    },
    ready() {
      started();
      return whenReady;
    },
    close() {
      const worker = thread;
      thread = null;
      // Its pool says goodbye to the SMTP server; the thread ends with its port.
      worker?.postMessage({ close: true } satisfies SmtpThreadRequest);
    },
  };
}

/**
 * A mail as MIME with its Ed25519 DKIM signature on top (mailauth's signer:
 * nodemailer's knows RSA alone). A mail that cannot be signed is not sent
 * unsigned: the error is a temporary failure the outbox retries.
 */
async function signedEd25519(message: Buffer, dkim: DkimSigning): Promise<Buffer> {
  const { dkimSign } = await import("mailauth");
  const key = { signingDomain: dkim.domainName, selector: dkim.keySelector };
  // mailauth signs with `signatureData` alone (its README); its types still ask
  // for the keys at the top, where they are ignored and nothing is signed.
  const { signatures, errors } = await dkimSign(message, {
    ...key,
    privateKey: dkim.privateKey,
    signatureData: [{ ...key, privateKey: dkim.privateKey }],
  });
  if (!signatures)
    throw new Error(`DKIM: the mail could not be signed (${String(errors[0]?.err)})`);
  return Buffer.concat([Buffer.from(signatures), message]);
}

/**
 * The SMTP connections' thread, when this file is a Worker's: one pooled
 * nodemailer transport, each message it is handed written as MIME and sent
 * here, in a heap of its own with a fixed limit, and the outcome posted back:
 * nothing, or the SMTP server's answer for the outbox to classify. It loads
 * nothing of the server's but this file (docs/decisions/036-sending-in-flat-memory.md).
 */
async function runSmtpThread(
  { transport: options, from, dkim }: SmtpThreadStart,
  port: MessagePort,
) {
  const { default: nodemailer } = await import("nodemailer");
  // RSA keys sign through nodemailer's own option; nodemailer's signer knows no
  // Ed25519, so those mails are written here and signed by mailauth's.
  const transport = nodemailer.createTransport(
    dkim?.algorithm === "rsa" ? { ...options, dkim } : options,
  );
  async function send(mail: OutgoingMail) {
    if (dkim?.algorithm !== "ed25519") return transport.sendMail({ from, ...mail });
    const { default: MailComposer } = await import("nodemailer/lib/mail-composer/index.js");
    const node = new MailComposer({ from, ...mail }).compile();
    const raw = await signedEd25519(await node.build(), dkim as DkimSigning);
    return transport.sendMail({ envelope: node.getEnvelope(), raw });
  }
  port.postMessage({ ready: true } satisfies SmtpThreadReply);
  port.on("message", (request: SmtpThreadRequest) => {
    if (request.close) {
      transport.close();
      port.close();
      return;
    }
    send(request.mail).then(
      () => port.postMessage({ id: request.id } satisfies SmtpThreadReply),
      (error: unknown) => {
        // What classifyFailure reads of nodemailer's error.
        const { responseCode, response, code, message, command } = (error ?? {}) as SmtpError;
        port.postMessage({
          id: request.id,
          error: { message: message ?? String(error), code, response, responseCode, command },
        } satisfies SmtpThreadReply);
      },
    );
  });
}

if (!isMainThread && parentPort && (workerData as Partial<SmtpThreadStart>)?.smtpThread) {
  void runSmtpThread(workerData as SmtpThreadStart, parentPort);
}
