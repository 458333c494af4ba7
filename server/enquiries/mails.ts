import { answerWithin, otherService } from "../../contract/enquiry-choices.ts";
import { escapeHtml } from "../../contract/html.ts";
import { momentLabel } from "../../contract/time-zones.ts";
import {
  button,
  detailsHtml,
  detailsText,
  laidOut,
  markedLink,
  messageBox,
  oneLine,
  paragraph,
  quoted,
  tokenLink,
} from "../outbox/mail-layout.ts";
import type { OutgoingMail } from "../outbox/mailer.ts";
import type { StoredAnswer, StoredEnquiry } from "./repository.ts";

/**
 * The three mails of an enquiry (docs/product.md, "Enquiries"): the owner's
 * copy, with Reply-To set to the sender so that Reply in any mail program
 * answers them; the sender's acknowledgement, which names the service and
 * carries the link that deletes it, and nothing the sender typed; and the owner's answer from the
 * console, threaded under the acknowledgement, which quotes nothing the sender typed either. What the sender typed is only
 * ever text: escaped in HTML, quoted in plain text. Header values come from
 * fields that cannot hold a line break (contract/enquiries.ts), and nodemailer
 * encodes the names it is given as address objects.
 */

type EnquiryMailContext = {
  siteUrl: string;
  serviceTitle: string;
  /** OWNER_EMAIL, else CONTACT_EMAIL: where the sender's replies go. */
  ownerAddress: string;
  /** The owner's zone (the Bookings hours'), which the owner's copy gives the time in. */
  ownerZone?: string;
};

/** What the sender gave, as the owner's mail and the form's review page list it. */
export function enquiryDetails(
  enquiry: Pick<StoredEnquiry, "name" | "email" | "organisation" | "timeline">,
  serviceTitle: string,
): [string, string][] {
  return [
    ["Name", enquiry.name],
    ["Email", enquiry.email],
    ["Service", serviceTitle],
    ...(enquiry.organisation ? [["Organisation", enquiry.organisation] as [string, string]] : []),
    ...(enquiry.timeline ? [["Timeline", enquiry.timeline] as [string, string]] : []),
  ];
}

export function consoleUrl(siteUrl: string): string {
  return `${siteUrl}/admin/enquiries`;
}

/** When the enquiry was sent, in the sender's zone, named ("… (Asia / Kolkata, GMT+5:30)", else "(UTC)"). */
const sentLabel = (enquiry: StoredEnquiry) =>
  momentLabel(Date.parse(enquiry.createdAt), enquiry.zone);

const acknowledgementSubject = (serviceTitle: string) =>
  oneLine(`Your enquiry about ${serviceTitle} · Engage with Engineer`);

export function ownerNoticeMail(
  to: string,
  enquiry: StoredEnquiry,
  context: EnquiryMailContext,
  likelyJunk = false,
): OutgoingMail {
  const subject = oneLine(
    `${likelyJunk ? "Probably spam · " : ""}Enquiry: ${context.serviceTitle}, from ${enquiry.name}`,
  );
  const junkNote = likelyJunk
    ? "The spam filter takes this for advertising, so the sender was sent no acknowledgement. If it is a real enquiry, answer it as any other."
    : "";
  const details: [string, string][] = [
    ...enquiryDetails(enquiry, context.serviceTitle),
    ["Sent", momentLabel(Date.parse(enquiry.createdAt), context.ownerZone ?? "UTC")],
  ];
  const link = consoleUrl(context.siteUrl);
  return laidOut({
    to,
    subject,
    html: `${junkNote ? paragraph(escapeHtml(junkNote), "color:#fca5a5") : ""}${paragraph("A new enquiry from the services page:")}
${detailsHtml(details)}
${messageBox(enquiry.message)}
<p style="margin:0">${button(link, "Open in the console")}</p>`,
    text: `${junkNote ? `${junkNote}\n\n` : ""}A new enquiry from the services page:

${detailsText(details)}

${quoted(enquiry.message)}

Open in the console: ${link}`,
    footer:
      "Reply to this mail to answer the sender directly, or answer from the console, which records it. You get these mails because OWNER_EMAIL (or CONTACT_EMAIL) is set.",
    replyTo: { name: enquiry.name, address: enquiry.email },
    headers: { "Auto-Submitted": "auto-generated" },
  });
}

/**
 * The acknowledgement goes to an address nobody has confirmed, so it carries
 * nothing the sender typed: not the message, not the name, organisation or
 * timeline. Otherwise the form would relay a stranger's words ("Dear Accounts
 * team, your payment failed…") to any address, from the site. Only the
 * service, chosen from the site's own list, and the time are named, in the
 * sender's zone (as every mail to the sender tells its times).
 */
export function acknowledgementMail(
  enquiry: StoredEnquiry,
  deletionToken: string,
  context: EnquiryMailContext,
): OutgoingMail {
  const subject = acknowledgementSubject(context.serviceTitle);
  const details: [string, string][] = [
    ["Service", context.serviceTitle],
    ["Sent", sentLabel(enquiry)],
  ];
  const link = tokenLink(context.siteUrl, "/enquiries/delete", deletionToken);
  // The booking page, with the enquiry's service chosen (docs/product.md, "Book a call").
  const call = markedLink(
    context.siteUrl,
    enquiry.service === otherService
      ? "/book"
      : `/book?service=${encodeURIComponent(enquiry.service)}`,
    "enquiry-acknowledgement",
  );
  return laidOut({
    to: enquiry.email,
    subject,
    lead: `Hello,\n\nThank you for your enquiry. It has arrived, and you will have an answer within ${answerWithin}.`,
    html: `${detailsHtml(details)}
${paragraph("To add something, reply to this mail.")}
${paragraph(`Would a conversation be quicker? Choose a time that suits you: ${button(call, "Book a call")}`)}
<p style="margin:0 0 8px;color:#94a3b8;font-size:14px">Changed your mind? This link deletes your enquiry and everything stored with it; it asks you to confirm first.</p>
<p style="margin:0">${button(link, "Delete my enquiry", true)}</p>`,
    text: `${detailsText(details)}

To add something, reply to this mail.

Would a conversation be quicker? Book a call at a time that suits you:
${call}

Changed your mind? This link deletes your enquiry and everything stored with it; it asks you to confirm first:
${link}`,
    footer: `You get this mail because this address was typed into the enquiry form on ${context.siteUrl}/services. If that was not you, use the link above: nothing more will be sent. Acknowledgements go to one address at most once in eight hours.`,
    messageId: enquiry.threadId,
    replyTo: context.ownerAddress,
    headers: { "Auto-Submitted": "auto-replied" },
  });
}

export function answerMail(
  enquiry: StoredEnquiry,
  answer: StoredAnswer,
  context: EnquiryMailContext & { messageIdHost: string },
): OutgoingMail {
  return laidOut({
    to: enquiry.email,
    subject: `Re: ${acknowledgementSubject(context.serviceTitle)}`,
    // The owner's words alone: the address is still not confirmed, so the mail quotes
    // nothing the sender typed, as the acknowledgement it answers does not.
    html: `<div style="margin:0 0 20px;white-space:pre-wrap;word-break:break-word;color:#f8fafc">${escapeHtml(answer.body)}</div>`,
    text: answer.body,
    footer: `In answer to your enquiry of ${sentLabel(enquiry)} on ${context.siteUrl}/services. Reply to this mail to continue the conversation.`,
    messageId: `<enquiry-answer.${answer.id}.${enquiry.threadId.slice(1, -1).split("@")[0]}@${context.messageIdHost}>`,
    inReplyTo: enquiry.threadId,
    references: [enquiry.threadId],
    replyTo: context.ownerAddress,
  });
}
