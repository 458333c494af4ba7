import ICAL from "ical.js";
import { describe, expect, it } from "vitest";
import { busyIntervals, instancesMax, NotACalendar, readBusyTimes } from "./busy-times.ts";

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
    expect(() => read(everySecond)).toThrow(`more than ${instancesMax} instances`);
  });

  it("expand a rule from the window's start, with its exceptions, dates and moved instances", () => {
    // Every 30 minutes since 1970: 1.0 million instances before the window, 48 a day in it.
    const halfHourly = read(
      calendar(
        ...event(
          "DTSTART:19700101T000000Z",
          "DTEND:19700101T000500Z",
          "RRULE:FREQ=MINUTELY;INTERVAL=30",
        ),
      ),
    );
    expect(halfHourly).toHaveLength(31 * 48);
    expect(halfHourly[0]).toEqual(["2026-12-01T00:00:00.000Z", "2026-12-01T00:05:00.000Z"]);
    expect(halfHourly.at(-1)?.[0]).toBe("2026-12-31T23:30:00.000Z");
    // Weekly on Mondays and Wednesdays at 09:00 in New York since 2001, less one Monday,
    // one Wednesday moved to Thursday, and two dates of its own (one long, as a period).
    const weekly = read(
      calendar(
        "BEGIN:VEVENT",
        "UID:w",
        "DTSTART;TZID=America/New_York:20010101T090000",
        "DTEND;TZID=America/New_York:20010101T100000",
        "RRULE:FREQ=WEEKLY;BYDAY=MO,WE",
        "EXDATE;TZID=America/New_York:20261207T090000",
        "RDATE;TZID=America/New_York:20261205T090000,19990101T090000",
        "RDATE;VALUE=PERIOD:20261226T100000Z/PT3H",
        "END:VEVENT",
        ...event(
          "RECURRENCE-ID;TZID=America/New_York:20261209T090000",
          "DTSTART;TZID=America/New_York:20261210T150000",
          "DTEND;TZID=America/New_York:20261210T160000",
        ).map((line) => (line === "UID:x" ? "UID:w" : line)),
      ),
    );
    const starts = weekly.map(([start]) => start);
    expect(starts.slice(0, 4)).toEqual([
      "2026-12-02T14:00:00.000Z",
      "2026-12-05T14:00:00.000Z",
      "2026-12-10T20:00:00.000Z",
      "2026-12-14T14:00:00.000Z",
    ]);
    expect(starts).toContain("2026-12-30T14:00:00.000Z");
    expect(weekly).toContainEqual(["2026-12-26T10:00:00.000Z", "2026-12-26T13:00:00.000Z"]);
    // Four Mondays and five Wednesdays, less the two, with the Thursday and both dates.
    expect(starts).toHaveLength(4 + 5 - 2 + 1 + 2);
    // A counted rule skips its instances before the window, and keeps its end: 40 days from
    // 1 November are 10 in December.
    const counted = read(
      calendar(...event("DTSTART:20261101T100000Z", "RRULE:FREQ=DAILY;COUNT=40")),
    );
    expect(counted.map(([start]) => start?.slice(0, 10))).toEqual(
      Array.from({ length: 10 }, (_, index) => `2026-12-${String(index + 1).padStart(2, "0")}`),
    );
    // Daily at 09:00 in London since 1990, across the clocks' change in March: on the wall.
    const spring = busyIntervals(
      ICAL,
      calendar(
        ...event(
          "DTSTART;TZID=Europe/London:19900101T090000",
          "DTEND;TZID=Europe/London:19900101T093000",
          "RRULE:FREQ=DAILY",
        ),
      ),
      {
        from: Date.parse("2027-03-27T00:00:00Z"),
        to: Date.parse("2027-03-30T00:00:00Z"),
        zone: "UTC",
      },
    ).map(({ start }) => new Date(start).toISOString());
    expect(spring).toEqual([
      "2027-03-27T09:00:00.000Z",
      "2027-03-28T08:00:00.000Z",
      "2027-03-29T08:00:00.000Z",
    ]);
    // A yearly all-day event since 1972 on 31 December, and a monthly one on the 31st.
    const yearly = read(
      calendar(
        ...event("DTSTART;VALUE=DATE:19721231", "RRULE:FREQ=YEARLY"),
        ...event("DTSTART;VALUE=DATE:19700131", "RRULE:FREQ=MONTHLY;BYMONTHDAY=31"),
      ),
    );
    expect(yearly).toEqual([
      ["2026-12-30T18:30:00.000Z", "2026-12-31T18:30:00.000Z"],
      ["2026-12-30T18:30:00.000Z", "2026-12-31T18:30:00.000Z"],
    ]);
  });

  it("are read in a thread of their own that a rule which never ends cannot hold", async () => {
    const never = calendar(
      ...event("DTSTART:20261201T000000Z", "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30"),
    );
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 10);
    try {
      await expect(readBusyTimes(never, window, { limitMs: 1000 })).rejects.toThrow(
        "it takes more than 1 seconds to read",
      );
    } finally {
      clearInterval(ticking);
    }
    // 20,000 events, each on its own: ical.js would look through all the others for each
    // one's exceptions (400 million steps, far past the thread's 5 seconds); read, it is quick.
    const many = calendar(
      ...Array.from({ length: 20_000 }, (_, index) => [
        "BEGIN:VEVENT",
        `UID:e${index}`,
        `DTSTART:${new Date(window.from + (index + 1) * 120_000).toISOString().replace(/[-:]|\.\d+/g, "")}`,
        "END:VEVENT",
      ]).flat(),
    );
    expect(many.length).toBeLessThan(2_000_000);
    expect(await readBusyTimes(many, window)).toHaveLength(20_000);
    // The server's thread kept its timers meanwhile (a thread that held it would give none).
    expect(ticks).toBeGreaterThan(20);
    const read = await readBusyTimes(calendar(...event("DTSTART:20261211T100000Z")), window);
    expect(read).toEqual([
      { start: Date.parse("2026-12-11T10:00:00Z"), end: Date.parse("2026-12-11T10:00:00Z") },
    ]);
  });
});
