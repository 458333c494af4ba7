import ical, {
  ICalAttendeeRole,
  ICalAttendeeStatus,
  type ICalCalendar,
  ICalCalendarMethod,
  ICalEventStatus,
} from "ical-generator";
import type { StoredBooking } from "./stored.ts";

/**
 * A booked call as its mails carry it to calendars and mail programs: the
 * calendar file (the booking's UID, SEQUENCE raised on each change, times in UTC)
 * and the thread each side's mails make. The reader is invited (METHOD:REQUEST,
 * the owner the ORGANIZER, the reader the one ATTENDEE); the owner, who organises
 * the call, is not: their copy is published to them (METHOD:PUBLISH, no ATTENDEE,
 * RFC 5546 3.2.1), which calendars add as an event of their own, where an invitation
 * from oneself is one they would not act on (docs/product.md, "Book a call").
 * A cancellation is METHOD:CANCEL to both.
 */

/**
 * A calendar as its file's text: RFC 5545 ends every line with CRLF, the last too, which
 * ical-generator leaves off.
 */
export const icsText = (calendar: ICalCalendar) => `${calendar.toString()}\r\n`;

/**
 * A name as a parameter (CN) holds it: a double quote would be written `^'` (RFC 6868), which
 * Outlook and Google Calendar show as it is, so it goes as a single one.
 */
const cn = (name: string) => name.replaceAll('"', "'");

/** Who the calendar names: the organiser, and the service the call is about. */
type CalendarContext = { ownerName: string; ownerAddress: string; serviceTitle: string };

export type Call = Pick<StoredBooking, "uid" | "start" | "end" | "readerZone" | "service"> & {
  sequence: number;
  meetingUrl: string | null;
};

/** Who a calendar file is for: the reader, invited; or the owner, with the reader's name (none once deleted). */
export type CalendarFor = { reader: string } | { owner: { name: string; email: string } | null };

/**
 * One event as a calendar file: the same UID each time, the sequence it is at,
 * titled by the other side: the owner in the reader's, the reader in the owner's copy.
 * The reader's file names them the one ATTENDEE; the owner's names no one but its
 * organiser (a published event has no attendees), the reader's name and address in its
 * description: none in the cancellation of a call whose reader deleted it ("Your data").
 */
export function calendarFile(
  change: "invitation" | "cancellation",
  call: Call,
  context: CalendarContext,
  to: CalendarFor,
): string {
  const method =
    change === "cancellation"
      ? ICalCalendarMethod.CANCEL
      : "reader" in to
        ? ICalCalendarMethod.REQUEST
        : ICalCalendarMethod.PUBLISH;
  const calendar = ical({
    method,
    prodId: { company: "Engage with Engineer", product: "Bookings", language: "EN" },
  });
  const reader = "owner" in to ? to.owner : null;
  const said =
    change === "cancellation"
      ? "This call is cancelled."
      : call.meetingUrl
        ? `Join the call: ${call.meetingUrl}`
        : `${context.ownerName} will send the meeting link before the call.`;
  calendar.createEvent({
    id: call.uid,
    sequence: call.sequence,
    start: new Date(call.start),
    end: new Date(call.end),
    stamp: new Date(),
    summary: `Call with ${reader?.name ?? context.ownerName}: ${context.serviceTitle}`,
    // A cancelled call's file promises no link: calendars show it beside "Cancelled".
    description: reader ? `With ${reader.name} <${reader.email}>\n${said}` : said,
    ...(call.meetingUrl ? { location: call.meetingUrl, url: call.meetingUrl } : {}),
    organizer: { name: cn(context.ownerName), email: context.ownerAddress },
    attendees:
      "reader" in to
        ? [
            {
              email: to.reader,
              rsvp: change === "invitation",
              role: ICalAttendeeRole.REQ,
              status: ICalAttendeeStatus.NEEDSACTION,
            },
          ]
        : [],
    status: change === "invitation" ? ICalEventStatus.CONFIRMED : ICalEventStatus.CANCELLED,
  });
  return icsText(calendar);
}

/**
 * A call's mails to one side as one thread in a mail program: the first invitation's
 * Message-ID is made from the call's UID, and every later mail (a move, a reminder, the
 * cancellation) answers it, with a Message-ID of its own made the same way (`what`).
 */
export function thread(side: "reader" | "owner", uid: string, what: string | null) {
  const first = `<${side}.${uid}>`;
  if (what === null) return { messageId: first };
  return { messageId: `<${side}.${what}.${uid}>`, inReplyTo: first, references: [first] };
}

/** The invitation's calendar file: METHOD:REQUEST to the reader, PUBLISH to the owner. */
export const invitation = (call: Call, context: CalendarContext, to: CalendarFor) => ({
  method: "reader" in to ? ("REQUEST" as const) : ("PUBLISH" as const),
  filename: "invitation.ics",
  content: calendarFile("invitation", call, context, to),
});
