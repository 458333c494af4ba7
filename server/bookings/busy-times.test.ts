import ICAL from "ical.js";
import { describe, expect, it } from "vitest";
import { busyIntervals, NotACalendar } from "./busy-times.ts";

const calendar = (...lines: string[]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", ...lines, "END:VCALENDAR"].join("\r\n");
const event = (...lines: string[]) => ["BEGIN:VEVENT", "UID:x", ...lines, "END:VEVENT"];
const window = {
  from: Date.parse("2026-12-01T00:00:00Z"),
  to: Date.parse("2027-01-01T00:00:00Z"),
  zone: "Asia/Kolkata",
};
const read = (text: string) =>
  busyIntervals(ICAL, text, window).map(({ start, end }) => [
    new Date(start).toISOString(),
    new Date(end).toISOString(),
  ]);

describe("busy times from a calendar file", () => {
  it("fill an all-day event's day, and read a floating time, on the owner's wall", () => {
    const text = calendar(
      ...event("DTSTART;VALUE=DATE:20261210", "SUMMARY:Away"),
      ...event("DTSTART:20261211T100000", "DTEND:20261211T110000"),
    );
    expect(read(text)).toEqual([
      ["2026-12-09T18:30:00.000Z", "2026-12-10T18:30:00.000Z"],
      ["2026-12-11T04:30:00.000Z", "2026-12-11T05:30:00.000Z"],
    ]);
  });

  it("read a zone the file defines alone by its definition (Outlook's names)", () => {
    const text = calendar(
      "BEGIN:VTIMEZONE",
      "TZID:India Standard Time",
      "BEGIN:STANDARD",
      "DTSTART:16010101T000000",
      "TZOFFSETFROM:+0530",
      "TZOFFSETTO:+0530",
      "END:STANDARD",
      "END:VTIMEZONE",
      ...event(
        "DTSTART;TZID=India Standard Time:20261214T150000",
        "DTEND;TZID=India Standard Time:20261214T160000",
      ),
    );
    expect(read(text)).toEqual([["2026-12-14T09:30:00.000Z", "2026-12-14T10:30:00.000Z"]]);
  });

  it("refuse what is not a calendar, and a rule that makes too many instances", () => {
    expect(() => read("<html>hello</html>")).toThrow(NotACalendar);
    expect(() => read("BEGIN:VCARD\r\nEND:VCARD")).toThrow(NotACalendar);
    const everySecond = calendar(...event("DTSTART:20261201T000000Z", "RRULE:FREQ=SECONDLY"));
    expect(() => read(everySecond)).toThrow(/more than/);
  });
});
