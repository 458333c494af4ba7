import { execFileSync } from "node:child_process";
import { sign } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { amazonSnsHosts } from "../../server/newsletter/sns-certificates.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { fuzzer, fuzzSeed } from "./support/fuzz.ts";
import { type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { lockWaiters, runSql, seedConfirmed } from "./support/sql.ts";
import { backends, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * Providers' webhooks (docs/mail.md, "Bounces and complaints"): Amazon SES
 * through SNS, whose messages are signed with a certificate the site fetches
 * from an https host it trusts (here one the test runs, with a certificate the
 * test makes and the test's configuration trusts), and Postmark, with a
 * secret. Verified calls act; unsigned, wrongly signed or unauthenticated ones
 * are refused with 401 and change nothing; nothing answers 500.
 */

const topic = "arn:aws:sns:eu-west-1:123456789012:ewe-ses";
const secret = "postmark-webhook-secret-0123456789";

/** A self-signed certificate for 127.0.0.1: the https host's, and the one SNS messages are signed with. */
function makeCertificate() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-sns-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      path.join(dir, "key.pem"),
      "-out",
      path.join(dir, "cert.pem"),
      "-days",
      "2",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { stdio: "ignore" },
  );
  return {
    key: readFileSync(path.join(dir, "key.pem"), "utf8"),
    cert: readFileSync(path.join(dir, "cert.pem"), "utf8"),
  };
}

/** SNS's string to sign, written from its documentation, independently of the site's. */
function stringToSign(message: Record<string, string>): string {
  const keys =
    message.Type === "Notification"
      ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
      : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  return keys
    .filter((key) => message[key] !== undefined)
    .map((key) => `${key}\n${message[key]}\n`)
    .join("");
}

describe.each(backends)("providers' webhooks on %s", (backend) => {
  let t: TestApp;
  let host: Server;
  let origin = "";
  let key = "";
  const subscriptionsConfirmed: string[] = [];
  /** Every certificate the site fetched, by path. */
  const certificatesFetched: string[] = [];

  beforeAll(async () => {
    const certificate = makeCertificate();
    key = certificate.key;
    host = createServer(certificate, (request, response) => {
      if (request.url?.endsWith(".pem")) certificatesFetched.push(request.url);
      // The test's own certificate, at its address and at any other the tests call good.
      if (
        request.url === "/SimpleNotificationService-test.pem" ||
        request.url?.includes("-good-")
      ) {
        response.end(certificate.cert);
      } else if (request.url?.startsWith("/confirm?")) {
        subscriptionsConfirmed.push(request.url);
        response.end("<ConfirmSubscriptionResponse/>");
      } else {
        response.statusCode = 404;
        response.end();
      }
    });
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    const address = host.address();
    if (typeof address !== "object" || !address) throw new Error("no port");
    origin = `https://127.0.0.1:${address.port}`;
    t = await startTestApp(backend, {
      env: { SES_SNS_TOPIC_ARN: topic, POSTMARK_WEBHOOK_SECRET: secret },
      snsTrust: { certificateHost: /^127\.0\.0\.1:\d+$/, ca: certificate.cert },
    });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => host?.close(resolve));
  });

  /** Every address the tests name, so that a suppression's digest can be told by its address. */
  const named = new Set<string>();
  const reader = (name: string) => {
    const email = `${name}.${backend}@example.org`;
    named.add(email);
    return email;
  };

  function snsMessage(
    fields: Record<string, string>,
    { signedWith = key, certificate = `${origin}/SimpleNotificationService-test.pem` } = {},
  ) {
    const message: Record<string, string> = {
      MessageId: crypto.randomUUID(),
      TopicArn: topic,
      Timestamp: new Date().toISOString(),
      SignatureVersion: "2",
      SigningCertURL: certificate,
      ...fields,
    };
    message.Signature = sign("RSA-SHA256", Buffer.from(stringToSign(message)), signedWith).toString(
      "base64",
    );
    return message;
  }

  const sesNotification = (notification: object) =>
    snsMessage({ Type: "Notification", Message: JSON.stringify(notification) });

  const postSns = (message: object, remoteAddress = "127.0.0.1") =>
    t.app.inject({
      method: "POST",
      url: "/hooks/ses",
      remoteAddress,
      // As SNS sends it.
      headers: {
        "content-type": "text/plain; charset=UTF-8",
        "x-amz-sns-message-type": "Notification",
      },
      payload: JSON.stringify(message),
    });

  const postPostmark = (record: object, headers: Record<string, string>) =>
    t.app.inject({
      method: "POST",
      url: "/hooks/postmark",
      headers: { "content-type": "application/json", ...headers },
      payload: JSON.stringify(record),
    });
  const basic = (password: string) => ({
    authorization: `Basic ${Buffer.from(`postmark:${password}`).toString("base64")}`,
  });

  /** Addresses the site has sent a mail to (their newsletter confirmation): reports about them act. */
  async function mailed(emails: string[]) {
    const now = new Date().toISOString();
    for (const email of emails) {
      await runSql(
        t,
        `insert into outbox (kind, email, status, attempts, next_attempt_at, created_at, sent_at)
         values ('confirmation', ?, 'sent', 1, ?, ?, ?)`,
        [email, now, now, now],
      );
    }
  }

  async function suppressed() {
    const list = JSON.parse(
      (await admin(adminEnv(t), "suppressions", "list", "--json")).stdout,
    ) as {
      id: string;
      reason: string;
      source: string;
    }[];
    // The list keeps no address: each row's is the one named whose digest it holds.
    const byId = new Map([...named].map((email) => [t.addressKey(email), email]));
    return list
      .map(({ id, reason, source }) => ({ email: byId.get(id) ?? id, reason, source }))
      .sort((a, b) => a.email.localeCompare(b.email));
  }

  // Once, on SQLite: refused by its topic before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("fetches no certificate for a message from a topic it does not take", async () => {
        // Anyone can post; only a message from the site's own topic is worth a fetch from Amazon.
        const foreign = snsMessage(
          {
            Type: "Notification",
            TopicArn: "arn:aws:sns:eu-west-1:123456789012:someone-else",
            Message: JSON.stringify({ notificationType: "Bounce" }),
          },
          { certificate: `${origin}/SimpleNotificationService-${backend}-foreign.pem` },
        );
        expect((await postSns(foreign)).statusCode).toBe(401);
        expect(certificatesFetched.filter((url) => url.includes("foreign"))).toEqual([]);
      });
    });
  }

  it("fetches each signing certificate once, remembers one that failed, and caps a network's fetches", async () => {
    const bounce = (certificate: string) =>
      snsMessage(
        {
          Type: "Notification",
          Message: JSON.stringify({
            notificationType: "Bounce",
            mail: { messageId: crypto.randomUUID() },
            bounce: { bounceType: "Transient", bouncedRecipients: [] },
          }),
        },
        { certificate },
      );
    const fetched = (part: string) => certificatesFetched.filter((url) => url.includes(part));
    const forged = (i: number) => `${origin}/SimpleNotificationService-${backend}-forged-${i}.pem`;
    // A stranger's posts, each naming a new address on an SNS host: a few fetches a
    // minute for their network, then "try later" with nothing fetched.
    const stranger = "10.44.0.1";
    const answers = [];
    for (let i = 0; i < 8; i += 1) answers.push(await postSns(bounce(forged(i)), stranger));
    expect(answers.map((answer) => answer.statusCode)).toEqual([
      401, 401, 401, 401, 401, 429, 429, 429,
    ]);
    for (const answer of answers.slice(5)) {
      expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
      expect(Number(answer.headers["retry-after"])).toBeLessThanOrEqual(60);
      expect(answer.json().error.code).toBe("rate_limited");
    }
    expect(fetched(`${backend}-forged-`)).toHaveLength(5);
    // An address whose fetch failed is not asked again, from any network, for a while.
    const sns = "10.44.1.1";
    for (let i = 0; i < 5; i += 1)
      expect((await postSns(bounce(forged(i)), sns)).statusCode).toBe(401);
    expect(fetched(`${backend}-forged-`)).toHaveLength(5);
    // SNS's own deliveries pass: from the stranger's network with a certificate kept, and
    // from its own with new certificates, each fetched once (a fetch that holds is not counted).
    const kept = `${origin}/SimpleNotificationService-test.pem`;
    expect((await postSns(bounce(kept), sns)).statusCode).toBe(200);
    expect((await postSns(bounce(kept), stranger)).statusCode).toBe(200);
    for (let i = 0; i < 8; i += 1) {
      const good = `${origin}/SimpleNotificationService-${backend}-good-${i}.pem`;
      expect((await postSns(bounce(good), sns)).statusCode).toBe(200);
      expect((await postSns(bounce(good), sns)).statusCode).toBe(200);
    }
    expect(fetched(`${backend}-good-`)).toHaveLength(8);
  });

  it("takes a signed report once: posted again after the owner lifts the suppression, it changes nothing", async () => {
    await mailed([reader("ses-lifted")]);
    const hard = sesNotification({
      notificationType: "Bounce",
      mail: { messageId: crypto.randomUUID() },
      bounce: {
        bounceType: "Permanent",
        bouncedRecipients: [{ emailAddress: reader("ses-lifted") }],
      },
    });
    expect((await postSns(hard)).statusCode).toBe(200);
    expect(await suppressed()).toContainEqual({
      email: reader("ses-lifted"),
      reason: "hard_bounce",
      source: "ses",
    });
    const lifted = await admin(adminEnv(t), "suppressions", "lift", reader("ses-lifted"));
    expect(lifted.code, lifted.stderr).toBe(0);
    // The same signed message, within the two hours its signature is accepted: answered, no effect.
    expect((await postSns(hard)).statusCode).toBe(200);
    expect((await postSns(hard, "10.44.2.1")).statusCode).toBe(200);
    expect((await suppressed()).map((row) => row.email)).not.toContain(reader("ses-lifted"));
    // Kept in the database, so that every instance knows it.
    expect(
      await runSql(t, "select message_id from sns_messages where message_id = ?", [
        hard.MessageId ?? "",
      ]),
    ).toEqual([{ message_id: hard.MessageId }]);
  });

  it("fetches a subscription's confirmation from the provider's hosts alone, however well signed", async () => {
    const port = new URL(origin).port;
    const before = subscriptionsConfirmed.length;
    for (const address of [
      `http://127.0.0.1:${port}/confirm?Token=plain-http`,
      `https://169.254.169.254/latest/meta-data/?Token=metadata`,
      `https://127.0.0.1:${port}.evil.example/confirm?Token=suffix`,
      `https://user:pass@127.0.0.1:${port}/confirm?Token=credentials`,
      "file:///etc/passwd",
      "not an address",
    ]) {
      const answer = await postSns(
        snsMessage({
          Type: "SubscriptionConfirmation",
          Message: "You have chosen to subscribe to the topic.",
          SubscribeURL: address,
          Token: "abc",
        }),
      );
      expect(answer.statusCode, address).toBe(400);
      expect(answer.json().error.message).toMatch(/not Amazon's/);
    }
    expect(subscriptionsConfirmed.length).toBe(before);
  });

  it("refuses a signed message from long ago, as a replay, and one from the future", async () => {
    const hard = (email: string, at: Date) =>
      snsMessage({
        Type: "Notification",
        Timestamp: at.toISOString(),
        Message: JSON.stringify({
          notificationType: "Bounce",
          mail: { messageId: crypto.randomUUID() },
          bounce: { bounceType: "Permanent", bouncedRecipients: [{ emailAddress: email }] },
        }),
      });
    const hours = (n: number) => new Date(Date.now() + n * 3_600_000);
    // Amazon retries a delivery for an hour at most: a copy from the day before is a replay.
    for (const [name, at] of [
      ["ses-replayed", hours(-25)],
      ["ses-early", hours(1)],
    ] as const) {
      const answer = await postSns(hard(reader(name), at));
      expect(answer.statusCode, name).toBe(401);
    }
    await mailed([reader("ses-replayed"), reader("ses-early"), reader("ses-retried")]);
    expect((await postSns(hard(reader("ses-retried"), hours(-0.9)))).statusCode).toBe(200);
    expect((await suppressed()).map((row) => row.email)).toContain(reader("ses-retried"));
    expect((await suppressed()).map((row) => row.email)).not.toContain(reader("ses-replayed"));
    expect((await suppressed()).map((row) => row.email)).not.toContain(reader("ses-early"));
    await runSql(t, "delete from suppressions where email_hash = ?", [
      t.addressKey(reader("ses-retried")),
    ]);
  });

  it("acts on SES bounces and complaints whose SNS signature holds, and refuses the rest with 401", async () => {
    await seedConfirmed(t, [reader("ses-gone"), reader("ses-angry"), reader("ses-forged")]);
    await mailed([reader("ses-gone"), reader("ses-angry"), reader("ses-forged")]);
    const bounce = (email: string, bounceType = "Permanent") => ({
      notificationType: "Bounce",
      mail: { messageId: crypto.randomUUID() },
      bounce: {
        bounceType,
        bouncedRecipients: [
          { emailAddress: email, diagnosticCode: "smtp; 550 5.1.1 user unknown" },
        ],
      },
    });
    expect((await postSns(sesNotification(bounce(reader("ses-gone"))))).statusCode).toBe(200);
    const complaint = {
      notificationType: "Complaint",
      mail: { messageId: crypto.randomUUID() },
      complaint: {
        complainedRecipients: [{ emailAddress: reader("ses-angry") }],
        complaintFeedbackType: "abuse",
      },
    };
    expect((await postSns(sesNotification(complaint))).statusCode).toBe(200);

    // Refused: tampered after signing, signed by another key, unsigned, a
    // certificate from a host not trusted, or plain http, or any file on a
    // trusted host but SNS's certificate (the host serves these two).
    const tampered = sesNotification(bounce(reader("ses-other")));
    tampered.Message = JSON.stringify(bounce(reader("ses-forged")));
    const otherKey = makeCertificate().key;
    const refused = [
      tampered,
      snsMessage(
        { Type: "Notification", Message: JSON.stringify(bounce(reader("ses-forged"))) },
        { signedWith: otherKey },
      ),
      { ...sesNotification(bounce(reader("ses-forged"))), Signature: "" },
      snsMessage(
        { Type: "Notification", Message: JSON.stringify(bounce(reader("ses-forged"))) },
        { certificate: "https://sns.eu-west-1.amazonaws.com.evil.example/cert.pem" },
      ),
      snsMessage(
        { Type: "Notification", Message: JSON.stringify(bounce(reader("ses-forged"))) },
        { certificate: `${origin.replace("https:", "http:")}/SimpleNotificationService-test.pem` },
      ),
      ...[
        `${origin}/uploads/SimpleNotificationService-${backend}-good-upload.pem`,
        `${origin}/SimpleNotificationService-test.pem?-good-query.pem`,
      ].map((certificate) =>
        snsMessage(
          { Type: "Notification", Message: JSON.stringify(bounce(reader("ses-forged"))) },
          { certificate },
        ),
      ),
      snsMessage({
        Type: "Notification",
        TopicArn: "arn:aws:sns:eu-west-1:123456789012:someone-else",
        Message: JSON.stringify(bounce(reader("ses-forged"))),
      }),
    ];
    for (const message of refused) expect((await postSns(message)).statusCode).toBe(401);
    const { Signature: _, ...unsigned } = sesNotification(bounce(reader("ses-forged")));
    expect((await postSns(unsigned)).statusCode).toBe(401);
    const { SignatureVersion: _v, SigningCertURL: _c, ...bare } = unsigned;
    expect((await postSns(bare)).statusCode).toBe(401);

    expect(await suppressed()).toEqual([
      { email: reader("ses-angry"), reason: "complaint", source: "ses" },
      { email: reader("ses-gone"), reason: "hard_bounce", source: "ses" },
    ]);
    const subscribed = (
      await runSql(t, "select email from subscribers where email like 'ses-%'")
    ).map((r) => r.email);
    expect(subscribed.sort()).toEqual([reader("ses-forged"), reader("ses-gone")]);

    // A subscription's confirmation is confirmed, at Amazon's (here the test's) address.
    const confirmation = snsMessage({
      Type: "SubscriptionConfirmation",
      Message: "You have chosen to subscribe to the topic.",
      SubscribeURL: `${origin}/confirm?Action=ConfirmSubscription&Token=abc`,
      Token: "abc",
    });
    expect((await postSns(confirmation)).statusCode).toBe(200);
    expect(subscriptionsConfirmed).toHaveLength(1);
    // One whose address does not confirm (gone, or Amazon away) is answered 502, so SNS sends it again.
    const unconfirmed = await postSns(
      snsMessage({
        Type: "SubscriptionConfirmation",
        Message: "You have chosen to subscribe to the topic.",
        SubscribeURL: `${origin}/gone?Action=ConfirmSubscription&Token=abc`,
        Token: "abc",
      }),
    );
    expect(unconfirmed.statusCode).toBe(502);
    expect(unconfirmed.json().error.message).toMatch(/could not be confirmed/);
    expect(subscriptionsConfirmed).toHaveLength(1);
  });

  it("counts no SES bounce of the message itself (too large, its content refused) against the address", async () => {
    const email = reader("ses-content");
    await seedConfirmed(t, [email]);
    await mailed([email]);
    for (const bounceSubType of ["ContentRejected", "AttachmentRejected", "MessageTooLarge"]) {
      const notification = {
        notificationType: "Bounce",
        mail: { messageId: crypto.randomUUID() },
        bounce: {
          bounceType: "Transient",
          bounceSubType,
          bouncedRecipients: [
            { emailAddress: email, diagnosticCode: "smtp; 554 5.7.1 Message rejected as spam" },
          ],
        },
      };
      expect((await postSns(sesNotification(notification))).statusCode).toBe(200);
    }
    expect((await suppressed()).map((row) => row.email)).not.toContain(email);
    expect(
      await runSql(t, "select 1 from soft_bounces where email_hash = ?", [t.addressKey(email)]),
    ).toEqual([]);
  });

  it("acts on Postmark's hard bounces and complaints, suppresses after three soft bounces, and refuses a wrong secret", async () => {
    const record = (Type: string, Email: string, ID: number) => ({
      RecordType: Type === "SpamComplaint" ? "SpamComplaint" : "Bounce",
      Type,
      ID,
      Email,
      Description: "The server was unable to deliver your message.",
    });
    const readers = ["pm-gone", "pm-angry", "pm-full", "pm-quoted", "pm-no-id", "pm-forged"].map(
      reader,
    );
    await seedConfirmed(t, readers.slice(0, 5));
    await mailed(readers);
    expect(
      (await postPostmark(record("HardBounce", reader("pm-gone"), 1), basic(secret))).statusCode,
    ).toBe(200);
    expect(
      (
        await postPostmark(record("SpamComplaint", reader("pm-angry"), 2), {
          "x-webhook-secret": secret,
        })
      ).statusCode,
    ).toBe(200);
    for (const id of [3, 4]) {
      expect(
        (await postPostmark(record("SoftBounce", reader("pm-full"), id), basic(secret))).statusCode,
      ).toBe(200);
    }
    // The same report again counts once.
    expect(
      (await postPostmark(record("SoftBounce", reader("pm-full"), 4), basic(secret))).statusCode,
    ).toBe(200);
    expect((await suppressed()).map((s) => s.email)).not.toContain(reader("pm-full"));
    // The address the site mailed, spelt otherwise by the record: quoted, at the full domain.
    const quoted = `"pm-quoted.${backend}"@Example.ORG.`;
    expect((await postPostmark(record("HardBounce", quoted, 6), basic(secret))).statusCode).toBe(
      200,
    );
    expect(
      (await postPostmark(record("SoftBounce", reader("pm-full"), 5), basic(secret))).statusCode,
    ).toBe(200);

    // A record without its ID is not Postmark's: refused, however often the same body comes.
    const { ID: _, ...withoutId } = record("SoftBounce", reader("pm-no-id"), 0);
    for (let i = 0; i < 3; i += 1) {
      const refused = await postPostmark(withoutId, basic(secret));
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.message).toBe(
        "The body is not a Postmark bounce or complaint with its ID.",
      );
    }

    const wrong: Record<string, string>[] = [
      {},
      basic("wrong-secret-wrong-secret-000"),
      { "x-webhook-secret": `${secret}x` },
      { authorization: "Bearer x" },
    ];
    for (const headers of wrong) {
      const refused = await postPostmark(record("HardBounce", reader("pm-forged"), 9), headers);
      expect(refused.statusCode).toBe(401);
    }
    expect((await suppressed()).filter((s) => s.email.startsWith("pm-"))).toEqual([
      { email: reader("pm-angry"), reason: "complaint", source: "postmark" },
      { email: reader("pm-full"), reason: "soft_bounces", source: "postmark" },
      { email: reader("pm-gone"), reason: "hard_bounce", source: "postmark" },
      { email: reader("pm-quoted"), reason: "hard_bounce", source: "postmark" },
    ]);
  });

  it("changes nothing for a signed report about an address the site never mailed", async () => {
    // A subscriber of the list who was never sent a mail (one moved from another site, say),
    // and an address the site has never heard of: a provider shared with other senders reports both.
    const [listed, stranger] = [reader("never-mailed"), reader("never-heard-of")];
    await seedConfirmed(t, [listed]);
    for (const email of [listed, stranger]) {
      const reports = [
        sesNotification({
          notificationType: "Bounce",
          mail: { messageId: crypto.randomUUID() },
          bounce: { bounceType: "Permanent", bouncedRecipients: [{ emailAddress: email }] },
        }),
        sesNotification({
          notificationType: "Complaint",
          mail: { messageId: crypto.randomUUID() },
          complaint: { complainedRecipients: [{ emailAddress: email }] },
        }),
      ];
      for (const message of reports) expect((await postSns(message)).statusCode).toBe(200);
      for (const [n, Type] of [
        "HardBounce",
        "SpamComplaint",
        "SoftBounce",
        "SoftBounce",
        "SoftBounce",
      ].entries()) {
        const record = {
          RecordType: Type === "SpamComplaint" ? "SpamComplaint" : "Bounce",
          Type,
          ID: `${email}-${n}`,
          Email: email,
        };
        expect((await postPostmark(record, basic(secret))).statusCode).toBe(200);
      }
    }
    const emails = (await suppressed()).map((row) => row.email);
    expect(emails).not.toContain(listed);
    expect(emails).not.toContain(stranger);
    expect(await runSql(t, "select status from subscribers where email = ?", [listed])).toEqual([
      { status: "confirmed" },
    ]);
    expect(
      await runSql(t, "select 1 from soft_bounces where email_hash in (?, ?)", [
        t.addressKey(listed),
        t.addressKey(stranger),
      ]),
    ).toEqual([]);
    // Once the site has mailed the address, the same report acts.
    await mailed([listed]);
    const bounce = sesNotification({
      notificationType: "Bounce",
      mail: { messageId: crypto.randomUUID() },
      bounce: { bounceType: "Permanent", bouncedRecipients: [{ emailAddress: listed }] },
    });
    expect((await postSns(bounce)).statusCode).toBe(200);
    expect(await suppressed()).toContainEqual({
      email: listed,
      reason: "hard_bounce",
      source: "ses",
    });
  });

  it("changes nothing for a report about another sender's mail on a shared account, to an address the site mailed", async () => {
    // The provider's account also sends someone else's mail: its reports come to this hook too.
    const [bounced, complained] = [reader("other-sender-bounce"), reader("other-sender-complaint")];
    await seedConfirmed(t, [bounced, complained]);
    await mailed([bounced, complained]);
    const elsewhere = "invoices@shop.example.net";
    const reports = (source: string) => [
      sesNotification({
        notificationType: "Bounce",
        mail: { messageId: crypto.randomUUID(), source },
        bounce: { bounceType: "Permanent", bouncedRecipients: [{ emailAddress: bounced }] },
      }),
      sesNotification({
        notificationType: "Complaint",
        mail: { messageId: crypto.randomUUID(), source: `Shop <${source}>` },
        complaint: { complainedRecipients: [{ emailAddress: complained }] },
      }),
    ];
    for (const message of reports(elsewhere)) expect((await postSns(message)).statusCode).toBe(200);
    const postmark = (email: string, Type: string, From: string) =>
      postPostmark(
        {
          RecordType: Type === "SpamComplaint" ? "SpamComplaint" : "Bounce",
          Type,
          ID: `${email}-${Type}-${From}`,
          Email: email,
          From,
        },
        basic(secret),
      );
    expect((await postmark(bounced, "HardBounce", elsewhere)).statusCode).toBe(200);
    expect((await postmark(complained, "SpamComplaint", elsewhere)).statusCode).toBe(200);
    const emails = (await suppressed()).map((row) => row.email);
    expect(emails).not.toContain(bounced);
    expect(emails).not.toContain(complained);
    expect(await runSql(t, "select status from subscribers where email = ?", [complained])).toEqual(
      [{ status: "confirmed" }],
    );
    // The site's own mail (MAIL_FROM's domain, here localhost) is acted on.
    expect((await postmark(bounced, "HardBounce", "newsletter@localhost")).statusCode).toBe(200);
    for (const message of reports("newsletter@localhost").slice(1)) {
      expect((await postSns(message)).statusCode).toBe(200);
    }
    expect(await suppressed()).toEqual(
      expect.arrayContaining([
        { email: bounced, reason: "hard_bounce", source: "postmark" },
        { email: complained, reason: "complaint", source: "ses" },
      ]),
    );
  });

  it("acts on a hard bounce that comes while its mail is still going out, not on one never claimed, and counts it in its edition's figures", async () => {
    const [going, retrying, waiting] = [
      reader("mid-send"),
      reader("retrying"),
      reader("never-claimed"),
    ];
    await seedConfirmed(t, [going, retrying, waiting]);
    const now = new Date().toISOString();
    // Due in an hour: the site's own worker leaves them to this test.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const slug = `mid-send-${backend}`;
    const [edition] = await runSql(
      t,
      "insert into editions (slug, subject, html, text, created_at) values (?, 'Mid-send', '<p>Hi</p>', 'Hi', ?) returning id",
      [slug, now],
    );
    const row = (email: string, status: string, attempts = 0) =>
      runSql(
        t,
        `insert into outbox (kind, edition_id, email, status, attempts, next_attempt_at, created_at)
         values ('edition', ?, ?, ?, ?, ?, ?) returning id`,
        [Number(edition?.id), email, status, attempts, later, now],
      );
    // The claim as each store holds it while the mail is handed over: SQLite's status, PostgreSQL's row lock.
    const [claimed] = await row(going, backend === "sqlite" ? "sending" : "queued");
    // Queued again after an attempt the relay put off: its mail may yet come back.
    await row(retrying, "queued", 1);
    await row(waiting, "queued");
    const bounce = (email: string, ID: string) =>
      postPostmark({ RecordType: "Bounce", Type: "HardBounce", ID, Email: email }, basic(secret));
    expect((await bounce(retrying, "retrying-1")).statusCode).toBe(200);
    expect((await bounce(waiting, "never-claimed-1")).statusCode).toBe(200);
    // The sender's outcome, written as the worker writes it (it never touches the mark).
    const recordSent =
      "update outbox set status = 'sent', attempts = 1, sent_at = $1 where id = $2";
    const outcome = () => [new Date().toISOString(), Number(claimed?.id)];
    if (t.databaseUrl) {
      const holder = new pg.Client({ connectionString: t.databaseUrl });
      await holder.connect();
      try {
        await holder.query("begin");
        await holder.query("select id from outbox where id = $1 for update skip locked", [
          claimed?.id,
        ]);
        // Answered while the claim holds the row: its mark is left for the sender.
        expect((await bounce(going, "mid-send-1")).statusCode).toBe(200);
        expect(await lockWaiters(t)).toBe(0);
        await holder.query(recordSent, outcome());
        await holder.query("commit");
      } finally {
        await holder.end();
      }
      // A sender puts the marks left for rows no longer held on them after its own send:
      // here the next mail the site sends, a confirmation.
      const next = reader("next-send");
      expect((await t.visitor().subscribe(next, t.formToken())).statusCode).toBeLessThan(300);
      await expect
        .poll(async () => runSql(t, "select outbox_id from outbox_marks"), { timeout: 15_000 })
        .toEqual([]);
    } else {
      expect((await bounce(going, "mid-send-1")).statusCode).toBe(200);
      await runSql(t, recordSent.replace(/\$\d/g, "?"), outcome());
    }
    const emails = (await suppressed()).map((s) => s.email);
    expect(emails).toEqual(expect.arrayContaining([going, retrying]));
    expect(emails).not.toContain(waiting);
    // Its edition's figures: the mail that went out bounced, and so did the one put off.
    const status = await admin(adminEnv(t), "newsletter", "status", "--json");
    const { editions } = JSON.parse(status.stdout) as {
      editions: { slug: string; sent: number; queued: number; bounced: number }[];
    };
    expect(editions.find((e) => e.slug === slug)).toMatchObject({
      sent: 1,
      queued: 2,
      bounced: 2,
    });
  });

  it("answers every malformed call with a 4xx, never a 500", async () => {
    const bodies = [
      "",
      "{",
      "null",
      "[]",
      '{"Type":"Notification"}',
      JSON.stringify({ RecordType: "Bounce" }),
      JSON.stringify({ RecordType: "Bounce", Type: "HardBounce", Email: "not an address" }),
      JSON.stringify({ RecordType: 5, Email: ["x"] }),
      "\u0000\u0001\u0002",
      "a".repeat(400_000),
      JSON.stringify({ ...sesNotification({ notificationType: "Bounce" }) }),
      JSON.stringify(
        sesNotification({
          notificationType: "Bounce",
          mail: { messageId: "m" },
          bounce: {
            bounceType: "Permanent",
            bouncedRecipients: [{ emailAddress: "not an address" }],
          },
        }),
      ),
      JSON.stringify(snsMessage({ Type: "Notification", Message: "not json" })),
      JSON.stringify({ ...sesNotification({}), SigningCertURL: "not a url" }),
      JSON.stringify({ ...sesNotification({}), SignatureVersion: "1" }),
    ];
    const contentTypes = [
      "application/json",
      "text/plain",
      "application/x-www-form-urlencoded",
      "image/png",
    ];
    for (const url of ["/hooks/ses", "/hooks/postmark"]) {
      for (const payload of bodies) {
        for (const contentType of contentTypes) {
          const response = await t.app.inject({
            method: "POST",
            url,
            headers: { "content-type": contentType, ...basic(secret) },
            payload,
          });
          expect(
            response.statusCode,
            `${url} ${contentType} ${payload.slice(0, 60)}`,
          ).toBeGreaterThanOrEqual(200);
          expect(response.statusCode, `${url} ${contentType} ${payload.slice(0, 60)}`).toBeLessThan(
            500,
          );
        }
      }
      expect((await t.app.inject({ method: "GET", url })).statusCode).toBe(404);
    }
  });

  it("answers mutated calls, signed and not, with a 2xx or 4xx, never a 500", async () => {
    const seed = fuzzSeed();
    const fuzz = fuzzer(seed);
    // Addresses the site has mailed, so that a report about them reaches the acting.
    await mailed([reader("fz-ses"), reader("fz-pm")]);
    const ses = [
      {
        notificationType: "Bounce",
        mail: { messageId: "m-1" },
        bounce: {
          bounceType: "Permanent",
          bouncedRecipients: [{ emailAddress: reader("fz-ses"), diagnosticCode: "smtp; 550" }],
        },
      },
      {
        eventType: "Complaint",
        mail: { messageId: "m-2" },
        complaint: {
          complainedRecipients: [{ emailAddress: reader("fz-ses") }],
          complaintFeedbackType: "abuse",
        },
      },
    ];
    const postmark = ["HardBounce", "SoftBounce", "SpamComplaint"].map((Type, ID) => ({
      RecordType: Type === "SpamComplaint" ? "SpamComplaint" : "Bounce",
      Type,
      ID,
      Email: reader("fz-pm"),
      Description: "The server was unable to deliver your message.",
    }));
    const answered = new Set<number>();
    for (let i = 0; i < Number(process.env.FUZZ_ROUNDS ?? 40); i += 1) {
      const calls: Array<[string, string, Record<string, string>]> = [
        // Signed as SNS signs, around a mutated notification: the site's parser meets it.
        ["/hooks/ses", JSON.stringify(sesNotification(fuzz.mutate(fuzz.pick(ses)) as object)), {}],
        // The SNS envelope itself mutated, then signed again.
        [
          "/hooks/ses",
          JSON.stringify(
            snsMessage(
              fuzz.mutate({ Type: "Notification", Message: JSON.stringify(ses[0]) }) as Record<
                string,
                string
              >,
            ),
          ),
          {},
        ],
        // A signed message's bytes mangled on the way.
        ["/hooks/ses", fuzz.mangle(JSON.stringify(sesNotification(fuzz.pick(ses)))), {}],
        ["/hooks/postmark", JSON.stringify(fuzz.mutate(fuzz.pick(postmark))), basic(secret)],
        ["/hooks/postmark", fuzz.mangle(JSON.stringify(fuzz.pick(postmark))), basic(secret)],
        [
          "/hooks/postmark",
          JSON.stringify(fuzz.pick(postmark)),
          { authorization: fuzz.mangle(basic(secret).authorization) },
        ],
      ];
      for (const [url, payload, headers] of calls) {
        const response = await t.app.inject({
          method: "POST",
          url,
          headers: { "content-type": "application/json", ...headers },
          payload,
        });
        const what = `seed ${seed}, round ${i}: ${url} ${payload.slice(0, 300)}`;
        expect(response.statusCode, what).toBeGreaterThanOrEqual(200);
        expect(response.statusCode, what).toBeLessThan(500);
        answered.add(response.statusCode);
      }
    }
    // The mutations reach the handlers: some calls act, some are refused as malformed or unsigned.
    expect([...answered].sort()).toEqual(expect.arrayContaining([200, 400, 401]));
  });
});

describe("a provider's report about a mail an SMTP server is holding, on postgres", () => {
  let t: TestApp;
  let smtp: SmtpSink;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp("postgres", {
      env: {
        POSTMARK_WEBHOOK_SECRET: secret,
        SMTP_URL: smtp.url,
        MAIL_RATE_PER_MINUTE: "0",
        DATABASE_STATEMENT_TIMEOUT_SECONDS: "2",
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it("takes effect at once, without waiting for the send, and marks the mail once it has gone", async () => {
    const email = "held-send.postgres@example.org";
    let reached: () => void = () => {};
    const sending = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The SMTP server takes the mail, and sits on its answer.
    smtp.answer = async (to) => {
      if (to.includes(email)) {
        reached();
        await held;
      }
      return undefined;
    };
    try {
      expect((await t.visitor().subscribe(email, t.formToken())).statusCode).toBeLessThan(300);
      await sending;
      const report = await t.app.inject({
        method: "POST",
        url: "/hooks/postmark",
        headers: {
          "content-type": "application/json",
          authorization: `Basic ${Buffer.from(`postmark:${secret}`).toString("base64")}`,
        },
        payload: JSON.stringify({
          RecordType: "Bounce",
          Type: "HardBounce",
          ID: "held-1",
          Email: email,
        }),
      });
      // Answered while the mail is still going out, and in effect: nothing more goes to it.
      expect(report.statusCode, report.body).toBe(200);
      expect(
        await runSql(t, "select reason from suppressions where email_hash = ?", [
          t.addressKey(email),
        ]),
      ).toEqual([{ reason: "hard_bounce" }]);
    } finally {
      release();
    }
    // The mark, kept meanwhile, is on the mail once its send has ended.
    await expect
      .poll(async () => runSql(t, "select status, feedback from outbox where email = ?", [email]))
      .toEqual([{ status: "sent", feedback: "bounce" }]);
    expect(await runSql(t, "select outbox_id from outbox_marks")).toEqual([]);
  });
});

describe("Amazon's SNS hosts", () => {
  it("are SNS's regional hosts alone, not an S3 bucket named sns that anyone may own", () => {
    const trusted = (host: string) => amazonSnsHosts.certificateHost.test(host);
    for (const host of [
      "sns.us-east-1.amazonaws.com",
      "sns.eu-west-1.amazonaws.com",
      "sns.ap-southeast-2.amazonaws.com",
      "sns.us-gov-west-1.amazonaws.com",
      "sns.cn-northwest-1.amazonaws.com.cn",
    ]) {
      expect(trusted(host), host).toBe(true);
    }
    for (const host of [
      "sns.s3.amazonaws.com",
      "sns.s3-ap-southeast-2.amazonaws.com",
      "sns.s3-external-1.amazonaws.com",
      "sns.s3.amazonaws.com.cn",
      "sns.us-east-1.amazonaws.com:8443",
      "sns.us-east-1.amazonaws.com.evil.example",
    ]) {
      expect(trusted(host), host).toBe(false);
    }
  });
});

describe("providers' webhooks when not set up", () => {
  it("are not there", async () => {
    const t = await startTestApp("sqlite");
    try {
      for (const url of ["/hooks/ses", "/hooks/postmark"]) {
        const response = await t.app.inject({
          method: "POST",
          url,
          headers: { "content-type": "application/json" },
          payload: "{}",
        });
        expect(response.statusCode).toBe(404);
      }
    } finally {
      await t.close();
    }
  });
});
