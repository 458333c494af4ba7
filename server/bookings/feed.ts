import ical, { ICalCalendarMethod, ICalEventStatus } from "ical-generator";
import { dayMs } from "../lib/time.ts";
import { icsText } from "./calendar-file.ts";
import type { Bookings } from "./service.ts";

/**
 * The owner's calendar feed (docs/product.md, "Book a call"): every call from
 * a month ago on, cancelled ones marked so, at a secret address the owner
 * subscribes to in any calendar program and can revoke in the console. Only
 * the owner holds the address, so the events carry the reader's name,
 * address and note.
 */
export async function calendarFeed(bookings: Bookings): Promise<string> {
  const calendar = ical({
    method: ICalCalendarMethod.PUBLISH,
    name: "Engage with Engineer: booked calls",
    prodId: { company: "Engage with Engineer", product: "Bookings", language: "EN" },
    ttl: 15 * 60,
  });
  const from = new Date(bookings.clock().getTime() - 30 * dayMs);
  for (const booking of await bookings.repository.since(from)) {
    const about = bookings.serviceTitle(booking.service);
    calendar.createEvent({
      id: booking.uid,
      sequence: booking.sequence,
      start: new Date(booking.start),
      end: new Date(booking.end),
      stamp: new Date(booking.createdAt),
      summary: `${booking.status === "cancelled" ? "Cancelled: " : ""}Call with ${booking.name}: ${about}`,
      description: [
        `${booking.name} <${booking.email}>`,
        `About: ${about}`,
        `Their time zone: ${booking.readerZone}`,
        ...(booking.note ? ["", booking.note] : []),
      ].join("\n"),
      ...(booking.meetingUrl ? { location: booking.meetingUrl, url: booking.meetingUrl } : {}),
      status:
        booking.status === "cancelled" ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    });
  }
  return icsText(calendar);
}
