import { parentPort, workerData } from "node:worker_threads";
import nodemailer from "nodemailer";

/*
 * The SMTP connections' thread (server/outbox/smtp-thread-mailer.ts): one
 * pooled nodemailer transport, each message it is handed written as MIME and
 * sent here, in a heap of its own with a fixed limit, and the outcome posted
 * back: nothing, or the SMTP server's answer for the outbox to classify.
 *
 * Plain JavaScript, unlike the rest of the server: a thread that loads a
 * TypeScript file starts Node's type stripper in its own heap, about 7 MB of
 * RSS more for the life of the thread, for a file this small
 * (docs/decisions/036-sending-in-flat-memory.md). Its messages are typed on
 * the server's side, in smtp-thread-mailer.ts.
 */

/** @type {{ transport: object, from: string }} */
const { transport: options, from } = workerData;
const transport = nodemailer.createTransport(options);
const port = parentPort;
if (!port) throw new Error("smtp-thread.js runs as a worker thread");

port.postMessage({ ready: true });
port.on("message", (request) => {
  if (request.close) {
    transport.close();
    port.close();
    return;
  }
  transport.sendMail({ from, ...request.mail }).then(
    () => port.postMessage({ id: request.id }),
    (error) => {
      const { responseCode, response, code, message } = error ?? {};
      port.postMessage({
        id: request.id,
        error: {
          message: typeof message === "string" ? message : String(error),
          ...(typeof code === "string" ? { code } : {}),
          ...(typeof response === "string" ? { response } : {}),
          ...(typeof responseCode === "number" ? { responseCode } : {}),
        },
      });
    },
  );
});
