import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSmtpThreadMailer, smtpTransportOptions } from "../../server/outbox/mailer.ts";
import { offLoopbackAddress } from "./support/off-loopback.ts";

/*
 * The mail server of SMTP_URL (docs/configuration.md): over smtp://, a server
 * that is not this machine, nor one of its network by a short name, must offer
 * STARTTLS, or nothing is sent to it: its offer comes unencrypted, and an
 * attacker on the way who took it out would read the login and every mail
 * (readers' addresses, enquiries, calls), unless SMTP_URL says it takes none.
 */

describe("a mail server off this machine that offers no STARTTLS", () => {
  let server: SMTPServer;
  let url = "";
  /** The logins and mails the stand-in server was given. */
  const logins: string[] = [];
  const mails: string[] = [];
  beforeAll(async () => {
    const address = offLoopbackAddress();
    server = new SMTPServer({
      disabledCommands: ["STARTTLS"],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, callback) {
        logins.push(`${auth.username}:${auth.password}`);
        callback(null, { user: auth.username });
      },
      onData(stream, _session, callback) {
        let text = "";
        stream.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        stream.on("end", () => {
          mails.push(text);
          callback();
        });
      },
    });
    await new Promise<void>((done) => server.listen(0, address, done));
    const { port } = server.server.address() as AddressInfo;
    url = `smtp://mailer:the-smtp-password@${address}:${port}`;
  });
  afterAll(() => new Promise<void>((done) => server?.close(() => done())));

  it("is given neither the login nor the mail, and the send fails for the outbox to retry", async () => {
    const mailer = createSmtpThreadMailer({ smtpUrl: url, from: "news@ewe.test", connections: 1 });
    try {
      const sent = mailer.send({
        to: "reader@example.org",
        subject: "Your enquiry",
        text: "What you asked about.",
        html: "<p>What you asked about.</p>",
      });
      await expect(sent).rejects.toThrow(/STARTTLS/);
    } finally {
      mailer.close();
    }
    expect(logins).toEqual([]);
    expect(mails).toEqual([]);
  });

  it("is sent to when SMTP_URL says the relay takes no TLS", async () => {
    const mailer = createSmtpThreadMailer({
      smtpUrl: `${url}/?requireTLS=false`,
      from: "news@ewe.test",
      connections: 1,
    });
    try {
      await mailer.send({
        to: "reader@example.org",
        subject: "Hello",
        text: "Hi.",
        html: "<p>Hi.</p>",
      });
    } finally {
      mailer.close();
    }
    expect(logins).toEqual(["mailer:the-smtp-password"]);
    expect(mails).toHaveLength(1);
  });
});

describe("a mail server on this machine or its own network", () => {
  it("needs no STARTTLS: by loopback or by a short name, as a container's", () => {
    for (const url of [
      "smtp://127.0.0.1:25",
      "smtp://localhost:25",
      "smtp://[::1]:25",
      "smtp://mailserver:25",
    ]) {
      expect(smtpTransportOptions(url, 1).requireTLS, url).toBe(false);
    }
    for (const url of [
      "smtp://smtp.example.com:587",
      "smtp://192.0.2.7:25",
      "smtp://[2001:db8::1]:25",
    ]) {
      expect(smtpTransportOptions(url, 1).requireTLS, url).toBe(true);
    }
    expect(smtpTransportOptions("smtps://smtp.example.com:465", 1).requireTLS).toBe(false);
  });
});
