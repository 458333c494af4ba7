import ICAL from "ical.js";
import type { ParsedMail } from "mailparser";

/*
 * Calendar files as a calendar program reads them: by ical.js, Mozilla's iCalendar parser
 * (Thunderbird's), not by matching their text.
 */

type Person = { address: string; cn: string | undefined };

const person = (prop: ICAL.Property | null): Person => ({
  address: String(prop?.getFirstValue() ?? "").replace(/^mailto:/i, ""),
  cn: prop?.getParameter("cn") as string | undefined,
});

/** One event of a calendar file, its times as instants. */
function eventOf(vevent: ICAL.Component) {
  const event = new ICAL.Event(vevent);
  return {
    uid: event.uid,
    sequence: event.sequence,
    status: vevent.getFirstPropertyValue("status")?.toString(),
    summary: event.summary,
    location: event.location,
    description: event.description,
    stamped: vevent.getFirstProperty("dtstamp") !== null,
    start: event.startDate.toJSDate(),
    end: event.endDate.toJSDate(),
    /** The zone its start is written in: "UTC" for a time ending in Z. */
    startZone: event.startDate.zone?.tzid,
    organizer: person(vevent.getFirstProperty("organizer")),
    attendees: vevent.getAllProperties("attendee").map(person),
  };
}
export type CalendarEvent = ReturnType<typeof eventOf>;

/** A calendar file's METHOD and its events. */
export function readCalendar(text: string) {
  const calendar = new ICAL.Component(ICAL.parse(text));
  return {
    method: calendar.getFirstPropertyValue("method")?.toString(),
    events: calendar.getAllSubcomponents("vevent").map(eventOf),
  };
}

/**
 * A mail's calendar file, its one event and its METHOD, and the method its MIME part
 * says (Outlook reads that one); null when the mail carries none.
 */
export function calendarOfMail(mail: { parsed: ParsedMail } | undefined) {
  const part = mail?.parsed.attachments.find((a) => a.contentType === "text/calendar");
  if (!part) return null;
  const text = part.content.toString("utf8");
  const { method, events } = readCalendar(text);
  if (events.length !== 1) throw new Error(`not one event in the mail's calendar file: ${text}`);
  const type = part.headers.get("content-type") as { params?: { method?: string } } | undefined;
  return {
    text,
    method,
    partMethod: type?.params?.method?.toUpperCase(),
    event: events[0] as CalendarEvent,
  };
}

/** What RFC 5545 asks of the lines themselves: CRLF after each, the last too, at most 75 octets. */
export function lineProblems(text: string): string[] {
  const problems: string[] = [];
  if (!text.endsWith("\r\n")) problems.push("the last line has no CRLF");
  if (/[^\r]\n|\r[^\n]/.test(text)) problems.push("a line break that is not CRLF");
  for (const line of text.split("\r\n")) {
    if (Buffer.byteLength(line) > 75) problems.push(`longer than 75 octets: ${line}`);
  }
  return problems;
}
