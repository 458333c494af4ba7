import ical, {
  ICalAttendeeRole,
  ICalAttendeeStatus,
  type ICalCalendar,
  ICalCalendarMethod,
  ICalEventStatus,
} from "ical-generator";
import type { StoredBooking } from "./repository.ts";

/**
 * A booked call as its mails carry it to calendars and mail programs: the
 * calendar file (METHOD:REQUEST or CANCEL, the booking's UID, SEQUENCE raised on
 * each change, times in UTC) and the thread each side's mails make.
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

/**
 * One event as a calendar file: the same UID each time, the sequence it is at,
 * titled by the other side: the owner, or the reader in the owner's copy (`attendee.name`).
 * The attendee is the reader, in both sides' files; null in the owner's cancellation of a
 * call whose reader deleted it ("Your data"), whose address is gone.
 */
export function calendarFile(
  method: "REQUEST" | "CANCEL",
  call: Call,
  context: CalendarContext,
  attendee: { email: string; name?: string } | null,
): string {
  const calendar = ical({
    method: method === "REQUEST" ? ICalCalendarMethod.REQUEST : ICalCalendarMethod.CANCEL,
    prodId: { company: "Engage with Engineer", product: "Bookings", language: "EN" },
  });
  calendar.createEvent({
    id: call.uid,
    sequence: call.sequence,
    start: new Date(call.start),
    end: new Date(call.end),
    stamp: new Date(),
    summary: `Call with ${attendee?.name ?? context.ownerName}: ${context.serviceTitle}`,
    // A cancelled call's file promises no link: calendars show it beside "Cancelled".
    description:
      method === "CANCEL"
        ? "This call is cancelled."
        : call.meetingUrl
          ? `Join the call: ${call.meetingUrl}`
          : `${context.ownerName} will send the meeting link before the call.`,
    ...(call.meetingUrl ? { location: call.meetingUrl, url: call.meetingUrl } : {}),
    organizer: { name: cn(context.ownerName), email: context.ownerAddress },
    attendees: attendee
      ? [
          {
            email: attendee.email,
            ...(attendee.name ? { name: cn(attendee.name) } : {}),
            rsvp: method === "REQUEST",
            role: ICalAttendeeRole.REQ,
            status: ICalAttendeeStatus.NEEDSACTION,
          },
        ]
      : [],
    status: method === "REQUEST" ? ICalEventStatus.CONFIRMED : ICalEventStatus.CANCELLED,
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

/** The invitation's calendar file, METHOD:REQUEST. */
export const invitation = (
  call: Call,
  context: CalendarContext,
  attendee: { email: string; name?: string },
) => ({
  method: "REQUEST" as const,
  filename: "invitation.ics",
  content: calendarFile("REQUEST", call, context, attendee),
});
