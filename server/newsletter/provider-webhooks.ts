import { verify } from "node:crypto";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { z } from "zod";
import { networkOf } from "../lib/address-scope.ts";
import { jsonOf } from "../lib/json.ts";
import { plainAddress } from "../lib/mailbox.ts";
import { sameSecret } from "../lib/tokens.ts";
import type { ListHealth } from "./list-health.ts";
import type { ReportKind } from "./reports.ts";
import { httpsText, type SnsTrust, snsCertificates } from "./sns-certificates.ts";
import { type SnsMessages, snsMessageAge } from "./sns-messages.ts";

/**
 * Bounces and complaints from mail providers (docs/mail.md, "Bounces and
 * complaints"), each call verified before anything is read from it:
 * - `POST /hooks/ses`: Amazon SES's notifications through SNS. The message's
 *   signature is checked against the certificate at its SigningCertURL, which
 *   must be an https address on an SNS host of Amazon's, and its topic must be
 *   one of SES_SNS_TOPIC_ARN (checked first: a stranger's post makes the site
 *   fetch nothing), sent in the last two hours (an older one is a replay).
 *   Certificates are kept and their fetches capped (sns-certificates.ts); a
 *   message is taken once by its MessageId (sns-messages.ts). A
 *   subscription's confirmation is confirmed.
 * - `POST /hooks/postmark`: Postmark's bounce and spam-complaint webhooks, with
 *   POSTMARK_WEBHOOK_SECRET as the basic-auth password (Postmark puts it in the
 *   webhook's URL) or in an X-Webhook-Secret header. A record without its ID
 *   is not Postmark's (400): the ID makes a retried call count once.
 * An unverified call is answered 401 and changes nothing; one that is not
 * configured is not there (404); a body that is not a report, 400.
 */

const snsSchema = z.looseObject({
  Type: z.enum(["Notification", "SubscriptionConfirmation", "UnsubscribeConfirmation"]),
  MessageId: z.string().max(200),
  TopicArn: z.string().max(300),
  Message: z.string().max(262_144),
  Timestamp: z.string().max(64),
  // A message without them is unsigned: refused with 401, as a wrong signature is.
  SignatureVersion: z.enum(["1", "2"]).optional(),
  Signature: z.string().max(2048).default(""),
  SigningCertURL: z.string().max(2048).default(""),
  Subject: z.string().max(1000).optional(),
  SubscribeURL: z.string().max(2048).optional(),
  Token: z.string().max(2048).optional(),
});
type SnsMessage = z.infer<typeof snsSchema>;

const recipient = z.looseObject({ emailAddress: z.string().max(320) });
const sesSchema = z.looseObject({
  notificationType: z.string().max(40).optional(),
  eventType: z.string().max(40).optional(),
  // `source`: the envelope sender of the mail reported (the site's VERP path or MAIL_FROM).
  mail: z.looseObject({ messageId: z.string().max(200), source: z.string().max(1000).optional() }),
  bounce: z
    .looseObject({
      bounceType: z.string().max(40),
      bounceSubType: z.string().max(60).optional(),
      bouncedRecipients: z.array(
        recipient.extend({ diagnosticCode: z.string().max(1000).optional() }),
      ),
    })
    .optional(),
  complaint: z
    .looseObject({
      complainedRecipients: z.array(recipient),
      complaintFeedbackType: z.string().max(40).optional(),
    })
    .optional(),
});

const postmarkSchema = z.looseObject({
  RecordType: z.string().max(40),
  // Postmark's bounce and complaint records each carry their ID in its Bounce
  // API: the one thing that tells a retried call from a new report.
  ID: z.union([z.number(), z.string().min(1).max(100)]),
  Type: z.string().max(60).optional(),
  Email: z.string().max(320),
  Description: z.string().max(1000).optional(),
  Details: z.string().max(1000).optional(),
  // The sender of the mail reported.
  From: z.string().max(1000).optional(),
});

/**
 * SES's transient bounces that refused the message, not the address (too
 * large, its content or attachment taken for spam or a virus): they count
 * towards no suppression, as such a refusal does at send time (`bounceOf`).
 */
const sesMessageRefused = new Set(["MessageTooLarge", "ContentRejected", "AttachmentRejected"]);

const postmarkKinds: Record<string, ReportKind> = {
  HardBounce: "hard",
  BadEmailAddress: "hard",
  ManuallyDeactivated: "hard",
  SoftBounce: "soft",
  DnsError: "soft",
  SpamComplaint: "complaint",
};

/** The text SNS signs (its documentation, "Verifying the signatures of Amazon SNS messages"). */
function snsStringToSign(message: SnsMessage): string {
  const keys =
    message.Type === "Notification"
      ? ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
      : ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"];
  return keys
    .filter((key) => (message as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${key}\n${(message as Record<string, unknown>)[key]}\n`)
    .join("");
}

/**
 * Whether a report's mail was sent from one of `domains` (MAIL_FROM's, BOUNCE_ADDRESS's) or
 * a name under one: an account shared with other senders reports their mail too, and a
 * complaint about a shop's invoice must not unsubscribe a reader the site also mails. A
 * report that names no sender is taken as the site's.
 */
export function sentByUs(sender: string | undefined, domains: readonly string[]): boolean {
  if (sender === undefined) return true;
  const domain = senderDomain(sender);
  return domains.some((ours) => domain === ours || domain.endsWith(`.${ours}`));
}

/** The domain of an address, written alone or as `Name <address>`, as `plainAddress` spells it. */
export const senderDomain = (sender: string) => {
  const address = /<([^<>]*)>\s*$/.exec(sender)?.[1] ?? sender;
  return address.includes("@") ? (plainAddress(address).split("@").pop() ?? "") : "";
};

export const providerWebhooks: FastifyPluginAsync<{
  health: Pick<ListHealth, "handleProviderReport">;
  messages: SnsMessages;
  snsTopics: string[];
  postmarkSecret: string | undefined;
  snsTrust: SnsTrust;
  /** The domains the site's mail is sent from, in lower case (`sentByUs`). */
  senderDomains: readonly string[];
}> = async (app, { health, messages, snsTopics, postmarkSecret, snsTrust, senderDomains }) => {
  app.addContentTypeParser(
    ["application/json", "text/plain"],
    { parseAs: "string", bodyLimit: 300_000 },
    (_request, body, done) => done(null, body),
  );
  const certificateAt = snsCertificates(snsTrust, (error) =>
    app.log.warn({ err: error }, "the SNS signing certificate could not be fetched"),
  );

  const refuse = (reply: FastifyReply, code: number, message: string) =>
    reply.code(code).send({
      error: {
        code: code === 401 ? "unauthorized" : code === 404 ? "not_found" : "validation_failed",
        message,
      },
    });

  /**
   * An https address on one of SNS's hosts, or null; a certificate's is SNS's own
   * file, `/SimpleNotificationService-….pem`, and nothing else the host serves.
   */
  function snsUrl(text: string, { certificate }: { certificate: boolean }): URL | null {
    const url = URL.parse(text);
    return url?.protocol === "https:" &&
      snsTrust.certificateHost.test(url.host) &&
      (!certificate ||
        (/^\/SimpleNotificationService-[A-Za-z0-9-]+\.pem$/.test(url.pathname) && !url.search)) &&
      !url.username &&
      !url.password
      ? url
      : null;
  }

  /** Whether SNS signed `message`, or the seconds until `network` may have a certificate fetched. */
  async function signedBySns(
    message: SnsMessage,
    network: string,
  ): Promise<boolean | { retryAfter: number }> {
    const url = snsUrl(message.SigningCertURL, { certificate: true });
    if (!url) return false;
    const certificate = await certificateAt(url, network);
    if (!("pem" in certificate)) return "failed" in certificate ? false : certificate;
    let signed = false;
    try {
      signed = verify(
        message.SignatureVersion === "1" ? "RSA-SHA1" : "RSA-SHA256",
        Buffer.from(snsStringToSign(message)),
        certificate.pem,
        Buffer.from(message.Signature, "base64"),
      );
    } catch {}
    if (signed) certificate.giveBack();
    return signed;
  }

  app.post("/hooks/ses", async (request, reply) => {
    if (snsTopics.length === 0) return refuse(reply, 404, "SES notifications are not set up here.");
    const message = jsonOf(request.body, snsSchema);
    if (!message) return refuse(reply, 400, "The body is not an SNS message.");
    // Checked first: anyone can post, and a foreign topic is not worth a fetch from Amazon.
    if (!snsTopics.includes(message.TopicArn)) {
      return refuse(reply, 401, "The message comes from a topic this site does not take.");
    }
    // The time is signed with the rest: a stale copy is refused, however well signed.
    const age = Date.now() - Date.parse(message.Timestamp);
    if (!(age <= snsMessageAge.pastMs && age >= -snsMessageAge.futureMs)) {
      return refuse(reply, 401, "The message is too old, or from the future: a replay.");
    }
    const signed = await signedBySns(message, networkOf(request.ip));
    if (typeof signed === "object") {
      return reply
        .code(429)
        .header("retry-after", String(signed.retryAfter))
        .send({
          error: {
            code: "rate_limited",
            message: "Too many signing certificates fetched for this network; try later.",
          },
        });
    }
    if (!signed) return refuse(reply, 401, "The message's signature could not be verified.");
    // Taken once: a copy posted again within the two hours changes nothing (sns-messages.ts).
    if (await messages.taken(message.MessageId)) return { ok: true };
    if (message.Type === "SubscriptionConfirmation") {
      const subscribe = snsUrl(message.SubscribeURL ?? "", { certificate: false });
      if (!subscribe) return refuse(reply, 400, "The confirmation's address is not Amazon's.");
      try {
        await httpsText(subscribe, snsTrust.ca);
      } catch (error) {
        // Not this site's fault, nor the caller's: SNS sends the confirmation again.
        request.log.warn({ err: error }, "the SNS subscription could not be confirmed");
        return reply.code(502).send({
          error: {
            code: "service_unavailable",
            message: "The subscription could not be confirmed at Amazon's address.",
          },
        });
      }
      request.log.info({ topic: message.TopicArn }, "SNS subscription confirmed");
      await messages.take(message.MessageId);
      return { ok: true };
    }
    if (message.Type !== "Notification") return { ok: true };
    const notification = jsonOf(message.Message, sesSchema);
    if (!notification) return refuse(reply, 400, "The notification is not one of SES's.");
    const type = notification.notificationType ?? notification.eventType;
    const { bounce, complaint } = notification;
    const feedback = complaint?.complaintFeedbackType;
    const ours = sentByUs(notification.mail.source, senderDomains);
    const reports: { email: string; kind: ReportKind; detail: string }[] = !ours
      ? []
      : type === "Bounce" && bounce && !sesMessageRefused.has(bounce.bounceSubType ?? "")
        ? bounce.bouncedRecipients.map(({ emailAddress, diagnosticCode }) => ({
            email: plainAddress(emailAddress),
            kind: bounce.bounceType === "Permanent" ? "hard" : "soft",
            detail: diagnosticCode ?? `SES: ${bounce.bounceType} bounce`,
          }))
        : type === "Complaint" && complaint && feedback !== "not-spam"
          ? complaint.complainedRecipients.map(({ emailAddress }) => ({
              email: plainAddress(emailAddress),
              kind: "complaint",
              detail: `SES: complaint${feedback ? ` (${feedback})` : ""}`,
            }))
          : [];
    for (const { email, kind, detail } of reports) {
      if (!z.email().safeParse(email).success) continue;
      const ref = `ses ${notification.mail.messageId} ${email.toLowerCase()}`;
      await health.handleProviderReport(email, kind, { source: "ses", ref, detail });
    }
    await messages.take(message.MessageId);
    return { ok: true };
  });

  function postmarkAllowed(authorization: string | undefined, header: unknown): boolean {
    if (!postmarkSecret) return false;
    const same = (given: string) => sameSecret(given, postmarkSecret);
    if (typeof header === "string" && same(header)) return true;
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization ?? "");
    if (!basic?.[1]) return false;
    const decoded = Buffer.from(basic[1], "base64").toString("utf8");
    return same(decoded.slice(decoded.indexOf(":") + 1));
  }

  app.post("/hooks/postmark", async (request, reply) => {
    if (!postmarkSecret) return refuse(reply, 404, "Postmark webhooks are not set up here.");
    if (!postmarkAllowed(request.headers.authorization, request.headers["x-webhook-secret"])) {
      reply.header("www-authenticate", 'Basic realm="postmark"');
      return refuse(reply, 401, "The webhook's secret is missing or wrong.");
    }
    const record = jsonOf(request.body, postmarkSchema);
    if (!record) {
      return refuse(reply, 400, "The body is not a Postmark bounce or complaint with its ID.");
    }
    const kind =
      record.RecordType === "SpamComplaint"
        ? "complaint"
        : record.RecordType === "Bounce"
          ? postmarkKinds[record.Type ?? ""]
          : undefined;
    // Spelt as the forms take it, whatever spelling the record has (lib/mailbox.ts).
    const email = plainAddress(record.Email);
    if (kind && z.email().safeParse(email).success && sentByUs(record.From, senderDomains)) {
      await health.handleProviderReport(email, kind, {
        source: "postmark",
        ref: `postmark ${record.ID} ${email}`,
        detail:
          record.Description ?? record.Details ?? `Postmark: ${record.Type ?? record.RecordType}`,
      });
    }
    return { ok: true };
  });
};
