import { Worker } from "node:worker_threads";
import type { DkimSigning } from "./dkim.ts";
import type { Mailer, OutgoingMail } from "./outgoing-mail.ts";
import { smtpTransportOptions } from "./smtp-options.ts";

export type SmtpThreadData = {
  smtpUrl: string;
  from: string;
  connections: number;
  /** Every mail is signed with it when given (server/outbox/dkim.ts). */
  dkim?: DkimSigning | null;
};
/** What the thread (smtp-thread.js) is started with: nodemailer's options, made here. */
type SmtpThreadStart = {
  transport: ReturnType<typeof smtpTransportOptions>;
  from: string;
  dkim: DkimSigning | null;
};
export type SmtpThreadRequest = { id: number; mail: OutgoingMail; close?: false } | { close: true };
export type SmtpThreadReply =
  | { ready: true }
  | {
      id: number;
      error?: { message: string; code?: string; response?: string; responseCode?: number };
    };

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
 * SMTP from a worker thread (server/outbox/smtp-thread.js), started with the
 * first message. A thread that dies (out of its heap, a bug) fails the
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
    const worker = new Worker(new URL("./smtp-thread.js", import.meta.url), {
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
