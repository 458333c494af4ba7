import { escapeHtml } from "../../contract/html.ts";
import { button, layout, oneLine } from "../outbox/mail-layout.ts";
import type { OutgoingMail } from "../outbox/mailer.ts";

/** The newsletter's mails: the confirmation, and an edition addressed to one subscriber. */

export function confirmationUrl(siteUrl: string, token: string): string {
  return `${siteUrl}/newsletter/confirm?token=${encodeURIComponent(token)}`;
}

/** The unsubscribe page, which asks before removing (docs/product.md, "Unsubscribe"). */
export function unsubscribePageUrl(siteUrl: string, token: string): string {
  return `${siteUrl}/unsubscribe?token=${encodeURIComponent(token)}`;
}

/** The RFC 8058 one-click endpoint: a POST there removes the address at once. */
export function oneClickUrl(siteUrl: string, token: string): string {
  return `${siteUrl}/api/newsletter/one-click?token=${encodeURIComponent(token)}`;
}

export function confirmationMail(
  { to, token }: { to: string; token: string },
  siteUrl: string,
): OutgoingMail {
  const subject = "Confirm your subscription to Engage with Engineer";
  const link = confirmationUrl(siteUrl, token);
  const { html, text } = layout({
    subject,
    bodyHtml: `<p style="margin:0 0 16px">Someone, hopefully you, asked to receive the Engage with Engineer newsletter at this address.</p>
<p style="margin:0 0 16px">Open the link and press Confirm to start receiving it:</p>
<p style="margin:0 0 16px">${button(link, "Confirm my subscription")}</p>
<p style="margin:0;font-size:14px;color:#94a3b8">Or copy this link into your browser: ${escapeHtml(link)}</p>`,
    bodyText: `Someone, hopefully you, asked to receive the Engage with Engineer newsletter at this address.

Open this link and press Confirm to start receiving it:

${link}`,
    footerHtml:
      "The link works once, for 48 hours. If you did not ask for this, ignore this mail: nothing will be sent to you.",
    footerText:
      "The link works once, for 48 hours. If you did not ask for this, ignore this mail: nothing will be sent to you.",
  });
  return { to, subject, html, text, headers: { "Auto-Submitted": "auto-generated" } };
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
  const subject = "Do you still want the Engage with Engineer newsletter?";
  const link = confirmationUrl(siteUrl, token);
  const lead =
    "This address is on the newsletter list of the earlier version of Engage with Engineer. The site has moved, and we send the newsletter only to readers who confirm that they want it.";
  const { html, text } = layout({
    subject,
    bodyHtml: `<p style="margin:0 0 16px">${escapeHtml(lead)}</p>
<p style="margin:0 0 16px">To keep receiving it, open the link and press Confirm:</p>
<p style="margin:0 0 16px">${button(link, "Keep my subscription")}</p>
<p style="margin:0;font-size:14px;color:#94a3b8">Or copy this link into your browser: ${escapeHtml(link)}</p>`,
    bodyText: `${lead}

To keep receiving it, open this link and press Confirm:

${link}`,
    footerHtml:
      "The link works once, for 48 hours. If you do nothing, you will get no newsletter and your address is deleted within a week.",
    footerText:
      "The link works once, for 48 hours. If you do nothing, you will get no newsletter and your address is deleted within a week.",
  });
  return { to, subject, html, text, headers: { "Auto-Submitted": "auto-generated" } };
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
  const pageUrl = unsubscribePageUrl(siteUrl, token);
  return {
    to,
    subject: oneLine(edition.subject),
    html: edition.html.replaceAll(unsubscribePlaceholder, escapeHtml(pageUrl)),
    text: edition.text.replaceAll(unsubscribePlaceholder, pageUrl),
    ...(replyTo ? { replyTo } : {}),
    headers: {
      "List-Unsubscribe": `<${oneClickUrl(siteUrl, token)}>`,
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
