import { parentPort, workerData } from "node:worker_threads";
import nodemailer from "nodemailer";

/*
 * The SMTP connections' thread (server/outbox/mailer.ts): one
 * pooled nodemailer transport, each message it is handed written as MIME and
 * sent here, in a heap of its own with a fixed limit, and the outcome posted
 * back: nothing, or the SMTP server's answer for the outbox to classify.
 *
 * Plain JavaScript, unlike the rest of the server: a thread that loads a
 * TypeScript file starts Node's type stripper in its own heap, about 7 MB of
 * RSS more for the life of the thread, for a file this small
 * (docs/decisions/036-sending-in-flat-memory.md). Its messages are typed on
 * the server's side, in mailer.ts.
 */

/** @type {{ transport: object, from: string, dkim: { algorithm: string, domainName: string, keySelector: string, privateKey: string } | null }} */
const { transport: options, from, dkim } = workerData;
// RSA keys sign through nodemailer's own option; nodemailer's signer knows no
// Ed25519, so those mails are written here and signed by mailauth's.
const transport = nodemailer.createTransport(
  dkim?.algorithm === "rsa" ? { ...options, dkim } : options,
);

/** One message sent, signed with an Ed25519 key when there is one. */
async function send(mail) {
  if (dkim?.algorithm !== "ed25519") return transport.sendMail({ from, ...mail });
  const [{ dkimSign }, { default: MailComposer }] = await Promise.all([
    import("mailauth"),
    import("nodemailer/lib/mail-composer"),
  ]);
  const node = new MailComposer({ from, ...mail }).compile();
  const message = await node.build();
  const { signatures } = await dkimSign(message, {
    signingDomain: dkim.domainName,
    selector: dkim.keySelector,
    privateKey: dkim.privateKey,
  });
  return transport.sendMail({
    envelope: node.getEnvelope(),
    raw: Buffer.concat([Buffer.from(signatures), message]),
  });
}
const port = parentPort;
if (!port) throw new Error("smtp-thread.js runs as a worker thread");

port.postMessage({ ready: true });
port.on("message", (request) => {
  if (request.close) {
    transport.close();
    port.close();
    return;
  }
  send(request.mail).then(
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
