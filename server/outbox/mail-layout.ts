import { doctype, escapeHtml } from "../../contract/html.ts";
import type { OutgoingMail } from "./mailer.ts";

/**
 * Every mail the site sends, in one template: HTML in the site's colours
 * (app/app.css) and the same words as plain text. Only our own text, links
 * built from SITE_URL and tokens we issued go into them; the one thing a
 * visitor typed that a mail carries is the address it is sent to, in `To`.
 * On a phone it is never wider than the screen: the card is as wide as the
 * screen allows, and a long unbroken link wraps rather than pushing it out.
 */

export const colours = { ink: "#0b0f14", panel: "#111821", line: "#1f2a37", accent: "#22c55e" };

/** A link drawn as the site's green button, or red for one that deletes (`danger`). */
export const button = (href: string, label: string, danger = false) =>
  `<a href="${escapeHtml(href)}" style="display:inline-block;background:${danger ? "#7f1d1d" : colours.accent};color:${danger ? "#fee2e2" : colours.ink};font-weight:600;text-decoration:none;padding:10px 18px;border-radius:8px">${escapeHtml(label)}</a>`;

/**
 * A paragraph of a mail's text (trusted HTML), 16 px above what follows: a
 * mail's lead, its prose and its button's line all keep this one space.
 */
export const paragraph = (html: string, style = "") =>
  `<p style="margin:0 0 16px${style ? `;${style}` : ""}">${html}</p>`;

/** Labelled values as a two-column table: what a mail is about (a service, a time). */
export function detailsHtml(details: [string, string][]): string {
  return `<table role="presentation" cellspacing="0" cellpadding="0" style="margin:0 0 12px">${details
    .map(
      ([label, value]) =>
        `<tr><td style="padding:2px 16px 2px 0;color:#94a3b8;vertical-align:top">${escapeHtml(label)}</td><td style="padding:2px 0;color:#f8fafc;word-break:break-word">${escapeHtml(value)}</td></tr>`,
    )
    .join("")}</table>`;
}

/** The same labelled values in plain text, a line each. */
export const detailsText = (details: [string, string][]) =>
  details.map(([label, value]) => `${label}: ${value}`).join("\n");

/** What someone wrote, quoted as text in a box. */
export const messageBox = (text: string) =>
  `<div style="margin:0 0 16px;padding:12px 16px;border-left:3px solid #22c55e;background:#0b0f14;white-space:pre-wrap;word-break:break-word;color:#e2e8f0">${escapeHtml(text)}</div>`;

/** What someone wrote, quoted in plain text: every line after "> ". */
export function quoted(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => `> ${line}`.trimEnd())
    .join("\n");
}

/**
 * A header value we build (a subject, a display name), from what a file says or a
 * reader typed: never a line break, and never an encoded word. nodemailer sends a
 * valid "=?utf-8?B?…?=" as it is, and a name of ASCII as a quoted string, in which
 * mail programs decode one all the same: it would show what the forms refuse (a line
 * break, a bidi override, a NUL). Its "=?" parted, it reads as typed.
 */
export function oneLine(text: string): string {
  return text
    .replace(/[\r\n\t]+/g, " ")
    .replaceAll("=?", "= ?")
    .trim();
}

/** Letters written right to left: Hebrew, Arabic and the scripts around them. */
const rightToLeft =
  /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/**
 * A reader's name that opens a subject or a line, set apart (FSI … PDI) when it is written
 * right to left: a mail program takes a line's direction from its first letter, and would
 * show `"Wi-Fi" replied on ليلى` for `ليلى replied on "Wi-Fi"`.
 */
export const isolated = (name: string) => (rightToLeft.test(name) ? `\u2068${name}\u2069` : name);

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
  const html = `${doctype}
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="dark">
<title>${escapeHtml(subject)}</title>
</head>
<body style="margin:0;padding:0;background:${colours.ink};color:#e2e8f0;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;line-height:1.6">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="background:${colours.ink}">
<tr><td align="center" style="padding:24px 8px">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" style="max-width:640px;table-layout:fixed;background:${colours.panel};border:1px solid ${colours.line};border-radius:12px">
<tr><td style="padding:20px 20px;border-bottom:1px solid ${colours.line};font-weight:700;font-size:18px;color:#f8fafc">Engage with <span style="color:${colours.accent}">Engineer</span></td></tr>
<tr><td class="body" style="padding:24px 20px;font-size:16px;color:#cbd5e1;overflow-wrap:anywhere;word-break:break-word">
${bodyHtml}
</td></tr>
<tr><td style="padding:16px 20px;border-top:1px solid ${colours.line};font-size:13px;color:#94a3b8;overflow-wrap:anywhere;word-break:break-word">${footerHtml}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
  // "-- " opens the signature (RFC 3676): mail programs leave it out of a reply's quote,
  // so a reader answering the mail does not send its footer's links on.
  const text = `Engage with Engineer\n\n${bodyText.trim()}\n\n-- \n${footerText}\n`;
  return { html, text };
}

/**
 * A mail in the layout, with `footer` (plain text) as its closing line and `lead` (plain
 * text, paragraphs a blank line apart) before the rest of its body: each written once.
 */
export function laidOut(given: OutgoingMail & { footer: string; lead?: string }) {
  const { footer, lead = "", html, text, replyTo, ...rest } = given;
  const mail =
    typeof replyTo === "object"
      ? { ...rest, replyTo: { ...replyTo, name: oneLine(replyTo.name) } }
      : { ...rest, ...(replyTo ? { replyTo } : {}) };
  const paragraphs = lead.split("\n\n").filter(Boolean);
  const bodyHtml = `${paragraphs.map((line) => `${paragraph(escapeHtml(line))}\n`).join("")}${html}`;
  const bodyText = lead ? `${lead}\n\n${text}` : text;
  const footerHtml = escapeHtml(footer);
  const body = layout({ ...mail, bodyHtml, bodyText, footerHtml, footerText: footer });
  return { ...mail, ...body } satisfies OutgoingMail;
}

/** A tokened link of the site's: `${siteUrl}${path}?token=…`. */
export const tokenLink = (siteUrl: string, path: string, token: string) =>
  `${siteUrl}${path}?token=${encodeURIComponent(token)}`;

/**
 * A link (an address, or a path on the site) to the site's own pages, marked with the mail
 * it was followed from, which the Readers screen counts by (docs/product.md, "Readers"):
 * `utm_source`, `utm_medium=email` and the campaign after its own query, before its
 * fragment. A link elsewhere, and one that names its own utm_source (the owner's), are sent
 * as written. The mark names a kind of mail, never its reader: a tokened link (confirm,
 * move, cancel, unsubscribe) is not marked, as the pages it opens are not counted.
 */
export function markedLink(siteUrl: string, address: string, campaign: string, source = "mail") {
  const target = URL.parse(address, siteUrl);
  if (!target) return address;
  if (target.origin !== new URL(siteUrl).origin || target.searchParams.has("utm_source"))
    return address;
  const mark = new URLSearchParams({
    utm_source: source,
    utm_medium: "email",
    ...(campaign ? { utm_campaign: campaign } : {}),
  });
  target.search = target.search ? `${target.search}&${mark}` : `?${mark}`;
  return target.href;
}

/**
 * A mail whose point is one link (a confirmation): why it came, what the link
 * does, the link as a button and as text, and a closing line in both forms.
 */
export function linkMail({
  to,
  subject,
  lead,
  ask,
  label,
  link,
  footer,
}: {
  to: string;
  subject: string;
  /** Why it came, if the request does not say it. */
  lead?: string;
  /** What to do, without its closing colon: "Open the link and press Confirm to …". */
  ask: string;
  label: string;
  link: string;
  footer: string;
}): OutgoingMail {
  return laidOut({
    to,
    subject,
    lead: lead ?? "",
    html: `${paragraph(`${escapeHtml(ask)}:`)}
${paragraph(button(link, label))}
<p style="margin:0;font-size:14px;color:#94a3b8">Or copy this link into your browser: ${escapeHtml(link)}</p>`,
    text: `${ask.replace("the link", "this link")}:\n\n${link}`,
    footer,
    headers: { "Auto-Submitted": "auto-generated" },
  });
}
