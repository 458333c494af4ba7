import type { OutgoingMail } from "./mailer.ts";

/**
 * Every mail the site sends, in one template: HTML in the site's colours
 * (app/app.css) and the same words as plain text. Only our own text, links
 * built from SITE_URL and tokens we issued go into them; the one thing a
 * visitor typed that a mail carries is the address it is sent to, in `To`.
 */

const colours = { ink: "#0b0f14", panel: "#111821", line: "#1f2a37", accent: "#22c55e" };

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Header values we build never carry a line break, whatever a file says. */
export function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, " ").trim();
}

type Layout = {
  subject: string;
  /** The body as trusted HTML (our template or the owner's rendered Markdown). */
  bodyHtml: string;
  bodyText: string;
  /** The closing line under the body, in both forms. */
  footerHtml: string;
  footerText: string;
};

export function layout({ subject, bodyHtml, bodyText, footerHtml, footerText }: Layout): {
  html: string;
  text: string;
} {
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark">
<title>${escapeHtml(subject)}</title>
</head>
<body style="margin:0;padding:0;background:${colours.ink};color:#e2e8f0;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;line-height:1.6">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="background:${colours.ink}">
<tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="max-width:640px;background:${colours.panel};border:1px solid ${colours.line};border-radius:12px">
<tr><td style="padding:20px 28px;border-bottom:1px solid ${colours.line};font-weight:700;font-size:18px;color:#f8fafc">Engage with <span style="color:${colours.accent}">Engineer</span></td></tr>
<tr><td class="body" style="padding:24px 28px;font-size:16px;color:#cbd5e1">
${bodyHtml}
</td></tr>
<tr><td style="padding:16px 28px;border-top:1px solid ${colours.line};font-size:13px;color:#94a3b8">${footerHtml}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
  const text = `Engage with Engineer\n\n${bodyText.trim()}\n\n--\n${footerText}\n`;
  return { html, text };
}

const button = (href: string, label: string) =>
  `<a href="${escapeHtml(href)}" style="display:inline-block;background:${colours.accent};color:${colours.ink};font-weight:600;text-decoration:none;padding:10px 18px;border-radius:8px">${escapeHtml(label)}</a>`;

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

/** What an edition holds before it is addressed; `{{unsubscribe_url}}` marks the link's place. */
export type EditionBody = { subject: string; html: string; text: string };

export const unsubscribePlaceholder = "{{unsubscribe_url}}";

export function editionMail(
  edition: EditionBody,
  { to, token }: { to: string; token: string },
  siteUrl: string,
): OutgoingMail {
  const pageUrl = unsubscribePageUrl(siteUrl, token);
  return {
    to,
    subject: oneLine(edition.subject),
    html: edition.html.replaceAll(unsubscribePlaceholder, escapeHtml(pageUrl)),
    text: edition.text.replaceAll(unsubscribePlaceholder, pageUrl),
    headers: {
      "List-Unsubscribe": `<${oneClickUrl(siteUrl, token)}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "List-Id": `Engage with Engineer <newsletter.${new URL(siteUrl).hostname}>`,
    },
  };
}
