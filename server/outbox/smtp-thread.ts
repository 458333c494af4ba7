import { parentPort, workerData } from "node:worker_threads";
import nodemailer from "nodemailer";
import { smtpTransportOptions } from "./smtp-options.ts";
import type { SmtpThreadData, SmtpThreadReply, SmtpThreadRequest } from "./smtp-thread-mailer.ts";

/*
 * The SMTP connections' thread (server/outbox/smtp-thread-mailer.ts): one
 * pooled nodemailer transport, each message it is handed written as MIME and
 * sent here, in a heap of its own with a fixed limit, and the outcome posted
 * back: nothing, or the SMTP server's answer for the outbox to classify.
 */

const { smtpUrl, from, connections } = workerData as SmtpThreadData;
const transport = nodemailer.createTransport(smtpTransportOptions(smtpUrl, connections));
const port = parentPort;
if (!port) throw new Error("smtp-thread.ts runs as a worker thread");

port.postMessage({ ready: true } satisfies SmtpThreadReply);
port.on("message", (request: SmtpThreadRequest) => {
  if (request.close) {
    transport.close();
    port.close();
    return;
  }
  transport.sendMail({ from, ...request.mail }).then(
    () => port.postMessage({ id: request.id } satisfies SmtpThreadReply),
    (error: unknown) => {
      const { responseCode, response, code, message } = (error ?? {}) as Record<string, unknown>;
      port.postMessage({
        id: request.id,
        error: {
          message: typeof message === "string" ? message : String(error),
          ...(typeof code === "string" ? { code } : {}),
          ...(typeof response === "string" ? { response } : {}),
          ...(typeof responseCode === "number" ? { responseCode } : {}),
        },
      } satisfies SmtpThreadReply);
    },
  );
});
