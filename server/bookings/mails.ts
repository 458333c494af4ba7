import { escapeHtml } from "../../contract/html.ts";
import { momentLabel } from "../../contract/time-zones.ts";
import {
  button,
  detailsHtml,
  detailsText,
  laidOut as mail,
  markedLink,
  messageBox,
  oneLine,
  quoted,
  tokenLink,
} from "../outbox/mail-layout.ts";
import type { OutgoingMail } from "../outbox/mailer.ts";
import { type CalendarFor, type Call, calendarFile, invitation, thread } from "./calendar-file.ts";
import type { CancelledCall } from "./queued-mails.ts";
import type { StoredBooking } from "./stored.ts";

/**
 * The mails of a booked call (docs/product.md, "Book a call"): the invitation to each side
 * with its `.ics` (METHOD:REQUEST to the reader, PUBLISH to the owner who organises it; the
 * booking's UID, SEQUENCE raised on each change, times in UTC), the cancellation
 * (METHOD:CANCEL) and the reminders. The reader's address is not confirmed, so their mails
 * carry nothing they typed (not the name, not the note): the form must not carry a
 * stranger's words to someone else's inbox. The owner's mails carry it all, as text.
 */

export type BookingMailContext = {
  siteUrl: string;
  ownerName: string;
  /** OWNER_EMAIL, else CONTACT_EMAIL: the organiser, and where readers' replies go. */
  ownerAddress: string;
  /** MAIL_FROM as the mails carry it ("Name from Engage with Engineer <news@site>"). */
  mailFrom: string;
  ownerZone: string;
  serviceTitle: string;
};

/**
 * The subject of every mail of one call to one side: Gmail and Outlook group a conversation by
 * its subject (Re: aside) as well as by the first mail's Message-ID (`thread`), so it names no
 * time, which a move changes, and no news: the first line of each mail says it.
 */
const subjectOf = (context: BookingMailContext, reader?: Pick<StoredBooking, "name">) =>
  oneLine(
    reader
      ? `Call with ${reader.name}: ${context.serviceTitle}`
      : `Your call with ${context.ownerName}: ${context.serviceTitle}`,
  );

const domainOf = (address: string) => /@([^@>\s]+)>?\s*$/.exec(address)?.[1]?.toLowerCase();

/**
 * The reader's mails about a call come from its organiser, the owner, when the owner's
 * address is on MAIL_FROM's domain (signed and sent as MAIL_FROM's are): Outlook shows an
 * invitation whose From is not its ORGANIZER as sent "on behalf of" the organiser. On
 * another domain (a Gmail address, say) the site may not send as the owner: MAIL_FROM.
 */
const fromOrganiser = (context: BookingMailContext) =>
  domainOf(context.ownerAddress) === domainOf(context.mailFrom)
    ? { from: { name: oneLine(context.ownerName), address: context.ownerAddress } }
    : {};

/** The owner's way to the console's bookings screen: a button, or a line of text. */
function consoleLink(siteUrl: string) {
  const url = `${siteUrl}/admin/bookings`;
  return {
    html: `<p style="margin:0">${button(url, "Open in the console")}</p>`,
    text: `Open in the console: ${url}`,
  };
}

/** The time in the zone of whoever reads the mail, then in the other side's when it differs, and how long the call is. */
function times(
  call: Pick<Call, "start" | "end" | "readerZone">,
  context: BookingMailContext,
  forOwner: boolean,
): [string, string][] {
  const reader = momentLabel(Date.parse(call.start), call.readerZone);
  const owner = momentLabel(Date.parse(call.start), context.ownerZone);
  // How long, as the booking page says it: the calendar file's end is not read by every mail program.
  const length: [string, string] = [
    "Length",
    `${Math.round((Date.parse(call.end) - Date.parse(call.start)) / 60_000)} minutes`,
  ];
  if (reader === owner) return [["When", owner], length];
  return forOwner
    ? [["When", owner], ["Their time", reader], length]
    : [["When", reader], [`${context.ownerName}'s time`, owner], length];
}

const meetingLine = (url: string | null, ownerName: string): [string, string] =>
  url ? ["Where", url] : ["Where", `${ownerName} will send the meeting link before the call`];

/** The reader's links to move or cancel the call, in both forms, and the footer under them. */
function readerLinks(siteUrl: string, token: string) {
  const move = tokenLink(siteUrl, "/book/reschedule", token);
  const cancel = tokenLink(siteUrl, "/book/cancel", token);
  const ask = "Cannot make it? Each link opens a page that asks first.";
  return {
    html: `<p style="margin:0 0 8px;color:#94a3b8;font-size:14px">${ask}</p>
<p style="margin:0 0 8px"><a href="${escapeHtml(move)}" style="color:#4ade80">Move the call</a></p>
<p style="margin:0"><a href="${escapeHtml(cancel)}" style="color:#fca5a5">Cancel the call</a></p>`,
    text: `${ask}\nMove the call: ${move}\nCancel the call: ${cancel}`,
    footer: `You get this mail because this address was given when a call was booked on ${siteUrl}/book. If that was not you, cancel it with the link above: nothing more will be sent.`,
  };
}

/** The reader's invitation: the time in both zones, the room, its links, and who moved it. */
export function readerInvitationMail(
  booking: StoredBooking,
  token: string,
  context: BookingMailContext,
  {
    ownerMove,
    first = booking.sequence === 0,
  }: { ownerMove?: { reason: string | null }; first?: boolean } = {},
): OutgoingMail {
  const update = booking.sequence > 0;
  const reason = ownerMove?.reason ? `: ${ownerMove.reason}` : ".";
  // Moved before any invitation reached them: this one puts the call in their calendar.
  const accept =
    first && update ? "\n\nAccept the invitation attached to put the call in your calendar." : "";
  const details: [string, string][] = [
    ...times(booking, context, false),
    ["About", context.serviceTitle],
    meetingLine(booking.meetingUrl, context.ownerName),
  ];
  const links = readerLinks(context.siteUrl, token);
  return mail({
    ...fromOrganiser(context),
    to: booking.email,
    subject: subjectOf(context),
    footer: links.footer,
    lead: ownerMove
      ? `${oneLine(`${context.ownerName} moved your call${reason}`)}${accept}\n\nThe new time:`
      : update
        ? `Your call has moved.${accept} The new time:`
        : "You're booked. Accept the invitation attached to put the call in your calendar:",
    html: `${detailsHtml(details)}
${booking.meetingUrl ? `<p style="margin:0 0 16px">${button(booking.meetingUrl, "Join the call")}</p>` : ""}
${links.html}`,
    text: `${detailsText(details)}

${links.text}`,
    replyTo: context.ownerAddress,
    headers: { "Auto-Submitted": "auto-replied" },
    ...thread("reader", booking.uid, first ? null : `moved-${booking.sequence}`),
    icalEvent: invitation(booking, context, { reader: booking.email }),
  });
}

const ownerLeads = {
  booked: "A reader booked a call.",
  reader: "A reader moved their call to a new time.",
  owner: "You moved this call to a new time; the reader is sent the new invitation.",
};

/** The owner's first line: what happened; a reader's move from when to when, in the owner's zone. */
function ownerLead(
  update: false | "reader" | "owner",
  movedFrom: string | undefined,
  booking: Pick<StoredBooking, "start">,
  { ownerZone }: Pick<BookingMailContext, "ownerZone">,
) {
  if (update !== "reader" || movedFrom === undefined) return ownerLeads[update || "booked"];
  const when = (at: string) => momentLabel(Date.parse(at), ownerZone);
  return `A reader moved their call from ${when(movedFrom)} to ${when(booking.start)}.`;
}

/** The owner's copy in their calendar, taken out: the feed has the call now. */
const copyTakenOut =
  "The file attached takes out of your calendar the copy an earlier mail put there: your calendar feed has the call at its new time.";

/**
 * The owner's invitation: who, about what, their note, and Reply-To the reader. Its
 * calendar copy (`calendar`) only while no calendar feed stands: a calendar shows an event
 * added from a mail and the same in a subscribed feed twice, one in each calendar; while
 * one stands, the cancellation of a copy mailed before it (queued-mails.ts, `ownerCalendar`).
 */
export function ownerInvitationMail(
  to: string,
  booking: StoredBooking,
  context: BookingMailContext,
  update: false | "reader" | "owner",
  calendar: "publish" | "cancel" | "none" = "publish",
  { movedFrom, first = !update }: { movedFrom?: string | undefined; first?: boolean } = {},
): OutgoingMail {
  const details: [string, string][] = [
    ["Name", booking.name],
    ["Email", booking.email],
    ["About", context.serviceTitle],
    ...times(booking, context, true),
    meetingLine(booking.meetingUrl, "You"),
  ];
  const note = booking.note ? messageBox(booking.note) : "";
  const footer =
    "Reply to this mail to write to the reader. You get these mails because OWNER_EMAIL (or CONTACT_EMAIL) is set.";
  return mail({
    to,
    subject: subjectOf(context, booking),
    footer,
    lead: `${ownerLead(update, movedFrom, booking, context)}${calendar === "cancel" ? `\n\n${copyTakenOut}` : ""}`,
    html: `${detailsHtml(details)}
${note}
${consoleLink(context.siteUrl).html}`,
    text: `${detailsText(details)}
${booking.note ? `\n${quoted(booking.note)}\n` : ""}
${consoleLink(context.siteUrl).text}`,
    replyTo: { name: booking.name, address: booking.email },
    headers: { "Auto-Submitted": "auto-generated" },
    ...thread("owner", booking.uid, first ? null : `moved-${booking.sequence}`),
    ...(calendar === "none" ? {} : { icalEvent: ownerCalendarFile(booking, context, calendar) }),
  });
}

/** The owner's calendar file of a call: it published, or its copy cancelled (METHOD:CANCEL, the call's UID and SEQUENCE). */
function ownerCalendarFile(
  booking: StoredBooking,
  context: BookingMailContext,
  calendar: "publish" | "cancel",
) {
  const owner = { owner: { name: booking.name, email: booking.email } };
  if (calendar === "publish") return invitation(booking, context, owner);
  return cancellationFile(booking, context, owner);
}

/** A calendar file that cancels the call (METHOD:CANCEL, its UID and SEQUENCE) in the calendar of `to`. */
const cancellationFile = (call: Call, context: BookingMailContext, to: CalendarFor) => ({
  method: "CANCEL" as const,
  filename: "cancellation.ics",
  content: calendarFile("cancellation", call, context, to),
});

/**
 * The cancellation, to either side: METHOD:CANCEL takes the call out of their
 * calendar; to a reader mailed no invitation of it (`first`, the owner cancelled), it
 * says so without a calendar file, and opens their thread. The owner's names the reader while
 * the booking is kept (`reader`); one deleted meanwhile ("Your data") is named by its
 * time alone.
 */
export function cancellationMail(
  to: string,
  side: "reader" | "owner",
  call: CancelledCall & { sequence: number },
  context: BookingMailContext,
  reader?: Pick<StoredBooking, "name" | "email">,
  first = false,
): OutgoingMail {
  const zone = side === "reader" ? call.readerZone : context.ownerZone;
  const when = momentLabel(Date.parse(call.start), zone);
  // One whose reader is deleted is named by its time alone: its subject was the reader's name.
  const subject =
    side === "owner" && !reader
      ? oneLine(`Cancelled: call on ${when}`)
      : subjectOf(context, side === "owner" ? reader : undefined);
  const who =
    call.by === "undeliverable"
      ? "This call is cancelled: the reader's address does not receive mail (the invitation to it bounced), so the time was given back."
      : call.by === "owner"
        ? side === "owner"
          ? "You cancelled this call."
          : `${context.ownerName} had to cancel this call.`
        : side === "owner"
          ? "The reader cancelled this call."
          : "You cancelled this call.";
  const message = call.by === "owner" && call.message ? messageBox(call.message) : "";
  const again = markedLink(context.siteUrl, "/book", "booking-cancellation");
  const details: [string, string][] = [
    ["When", when],
    ["About", context.serviceTitle],
    ...(reader ? [["With", `${reader.name} <${reader.email}>`] as [string, string]] : []),
  ];
  const footer =
    side === "reader"
      ? `The time is free again. To book another, visit ${again}.`
      : "The time is free again for other readers.";
  return mail({
    ...(side === "reader" ? fromOrganiser(context) : {}),
    to,
    subject,
    footer,
    lead: `${who} ${first ? "No invitation of it had been sent to you, so there is nothing to take out of your calendar." : "The invitation attached takes it out of your calendar."}`,
    html: `${detailsHtml(details)}
${message}
${side === "reader" ? `<p style="margin:0">${button(again, "Book another time")}</p>` : ""}`,
    text: `${detailsText(details)}
${call.by === "owner" && call.message ? `\n${call.message}\n` : ""}
${side === "reader" ? `Book another time: ${again}` : ""}`,
    // The owner's reply goes to the reader, but not to an address that bounced.
    ...(side === "reader"
      ? { replyTo: context.ownerAddress }
      : reader && call.by !== "undeliverable"
        ? { replyTo: { name: reader.name, address: reader.email } }
        : {}),
    headers: { "Auto-Submitted": "auto-generated" },
    ...thread(side, call.uid, first ? null : "cancelled"),
    ...(first
      ? {}
      : {
          icalEvent: cancellationFile(
            { ...call, meetingUrl: null },
            context,
            side === "reader" ? { reader: to } : { owner: reader ?? null },
          ),
        }),
  });
}

/**
 * A reminder, 24 hours or 1 hour before, to either side: the reader's with
 * the links to move or cancel the call (`token`), as the invitation, when the
 * call holds that token; the owner's with the way to the console.
 */
export function reminderMail(
  to: string,
  side: "reader" | "owner",
  booking: StoredBooking,
  hoursBefore: 24 | 1,
  context: BookingMailContext,
  token: string | null = null,
): OutgoingMail {
  const zone = side === "reader" ? booking.readerZone : context.ownerZone;
  const when = momentLabel(Date.parse(booking.start), zone);
  const soon = hoursBefore === 24 ? "tomorrow" : "in an hour";
  const details: [string, string][] = [
    ["When", when],
    ["About", context.serviceTitle],
    ...(side === "owner"
      ? [["With", `${booking.name} <${booking.email}>`] as [string, string]]
      : []),
    meetingLine(booking.meetingUrl, side === "reader" ? context.ownerName : "You"),
  ];
  const links = side === "reader" && token ? readerLinks(context.siteUrl, token) : null;
  const footer =
    links?.footer ??
    (side === "reader"
      ? "To cancel or move the call, use the links in the mail that confirmed it."
      : "Cancel it from the console if you cannot make it; the reader is told.");
  const below = side === "owner" ? consoleLink(context.siteUrl) : links;
  return mail({
    ...(side === "reader" ? fromOrganiser(context) : {}),
    to,
    subject: subjectOf(context, side === "owner" ? booking : undefined),
    footer,
    lead: `Reminder: the call is ${soon}.`,
    html: `${detailsHtml(details)}
${booking.meetingUrl ? `<p style="margin:0 0 16px">${button(booking.meetingUrl, "Join the call")}</p>` : ""}
${below?.html ?? ""}`,
    text: `${detailsText(details)}${below ? `\n\n${below.text}` : ""}`,
    // Reply answers the other side, as the invitation's does: the owner's, the reader.
    replyTo:
      side === "reader" ? context.ownerAddress : { name: booking.name, address: booking.email },
    headers: { "Auto-Submitted": "auto-generated" },
    ...thread(side, booking.uid, `reminder-${hoursBefore}h-${booking.sequence}`),
  });
}
