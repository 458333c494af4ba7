import { escapeHtml } from "../../contract/html.ts";
import { laidOut, linkMail, oneLine, paragraph, tokenLink } from "../outbox/mail-layout.ts";
import type { OutgoingMail } from "../outbox/mailer.ts";

/** The newsletter's mails: the confirmation, and an edition addressed to one subscriber. */

export function confirmationMail(
  { to, token }: { to: string; token: string },
  siteUrl: string,
): OutgoingMail {
  return linkMail({
    to,
    subject: "Confirm your subscription to Engage with Engineer",
    lead: "Someone, hopefully you, asked to receive the Engage with Engineer newsletter at this address.",
    ask: "Open the link and press Confirm to start receiving it",
    label: "Confirm my subscription",
    link: tokenLink(siteUrl, "/newsletter/confirm", token),
    footer:
      "The link works once, for 48 hours. If you did not ask for this, ignore this mail: nothing will be sent to you.",
  });
}

/**
 * What a subscribed address is sent when someone asks to subscribe it again:
 * the form answers as for any address, so this mail is where its reader learns
 * that nothing needs doing. It holds no link: nothing is to be done.
 */
export function alreadySubscribedMail(to: string, siteUrl: string): OutgoingMail {
  const text = `Nothing has changed and there is nothing to do: the newsletter keeps coming. Every edition ends with a link to unsubscribe.`;
  return laidOut({
    to,
    subject: "You are already subscribed to Engage with Engineer",
    lead: `Someone, hopefully you, asked on ${new URL(siteUrl).host} to subscribe this address to the Engage with Engineer newsletter. It is subscribed already.`,
    html: paragraph(escapeHtml(text)),
    text,
    footer: "If you did not ask for this, ignore this mail: nothing changes.",
    headers: { "Auto-Submitted": "auto-generated" },
  });
}

/**
 * The confirmation an address imported from the site's earlier version gets
 * (docs/product.md, "Moving in and out"): that list was single opt-in, so
 * nothing is sent to it until its owner confirms here.
 */
export function reconfirmationMail(
  { to, token }: { to: string; token: string },
  siteUrl: string,
): OutgoingMail {
  return linkMail({
    to,
    subject: "Do you still want the Engage with Engineer newsletter?",
    lead: "This address is on the newsletter list of the earlier version of Engage with Engineer. The site has moved, and we send the newsletter only to readers who confirm that they want it.",
    ask: "To keep receiving it, open the link and press Confirm",
    label: "Keep my subscription",
    link: tokenLink(siteUrl, "/newsletter/confirm", token),
    footer:
      "The link works once, for 48 hours. If you do nothing, you will get no newsletter and your address is deleted within a week.",
  });
}

/** What an edition holds before it is addressed; `{{unsubscribe_url}}` marks the link's place. */
export type EditionBody = { subject: string; html: string; text: string };

export const unsubscribePlaceholder = "{{unsubscribe_url}}";

/**
 * One subscriber's copy of an edition. `replyTo`, the owner's address: an
 * edition invites readers to answer it, and their answers go to the owner,
 * not to the address the site sends from.
 */
export function editionMail(
  edition: EditionBody,
  { to, token, replyTo }: { to: string; token: string; replyTo?: string },
  siteUrl: string,
): OutgoingMail {
  // The unsubscribe page asks before removing (docs/product.md, "Unsubscribe");
  // a POST to the RFC 8058 one-click address removes at once.
  const pageUrl = tokenLink(siteUrl, "/unsubscribe", token);
  return {
    to,
    subject: oneLine(edition.subject),
    html: edition.html.replaceAll(unsubscribePlaceholder, escapeHtml(pageUrl)),
    text: edition.text.replaceAll(unsubscribePlaceholder, pageUrl),
    ...(replyTo ? { replyTo } : {}),
    headers: {
      "List-Unsubscribe": `<${tokenLink(siteUrl, "/api/newsletter/one-click", token)}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "List-Id": `Engage with Engineer <newsletter.${new URL(siteUrl).hostname}>`,
    },
  };
}

const testNote =
  "This is a test copy, sent to you alone: the edition has not gone to the list, and its unsubscribe link leads nowhere.";

/**
 * A test copy of an edition's mail: "[Test]" before its subject and a line
 * at the top of its text that says so, in both forms.
 */
export function testCopy(mail: OutgoingMail): OutgoingMail {
  return {
    ...mail,
    subject: `[Test] ${mail.subject}`,
    html: mail.html.replace(
      /(<td class="body"[^>]*>\n)/,
      `$1<p style="margin:0 0 16px;padding:8px 12px;border:1px dashed #f59e0b;color:#fcd34d">${escapeHtml(testNote)}</p>\n`,
    ),
    text: mail.text.replace(/^Engage with Engineer\n\n/, `$&[${testNote}]\n\n`),
  };
}
