import ICAL from "ical.js";
import { describe, expect, it } from "vitest";
import { namesNoDay } from "./busy-rules.ts";
import {
  busyIntervals,
  HeldBy,
  instancesMax,
  NotACalendar,
  readBusyTimes,
  type Skipped,
} from "./busy-times.ts";

const calendar = (...lines: string[]) =>
  ["BEGIN:VCALENDAR", "VERSION:2.0", ...lines, "END:VCALENDAR"].join("\r\n");
const event = (...lines: string[]) => ["BEGIN:VEVENT", "UID:x", ...lines, "END:VEVENT"];
const window = {
  from: Date.parse("2026-12-01T00:00:00Z"),
  to: Date.parse("2027-01-01T00:00:00Z"),
  zone: "Asia/Kolkata",
};
const read = (text: string) =>
  busyIntervals(ICAL, text, window).busy.map(({ start, end }) => [
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

  it("read a zone the file defines alone by its definition (Outlook's names), an IANA one by Intl's", () => {
    const text = calendar(
      "BEGIN:VTIMEZONE",
      "TZID:W. Europe Standard Time",
      "BEGIN:STANDARD",
      "DTSTART:16010101T000000",
      "TZOFFSETFROM:+0100",
      "TZOFFSETTO:+0100",
      "END:STANDARD",
      "END:VTIMEZONE",
      // Google's files define each zone they name, IANA's too: Intl's rules read those.
      "BEGIN:VTIMEZONE",
      "TZID:America/New_York",
      "BEGIN:STANDARD",
      "DTSTART:19700101T000000",
      "TZOFFSETFROM:-0500",
      "TZOFFSETTO:-0500",
      "END:STANDARD",
      "END:VTIMEZONE",
      ...event(
        "DTSTART;TZID=W. Europe Standard Time:20261214T150000",
        "DTEND;TZID=W. Europe Standard Time:20261214T160000",
      ),
      ...event(
        "DTSTART;TZID=America/New_York:20260714T090000",
        "DTEND;TZID=America/New_York:20260714T100000",
        "RRULE:FREQ=WEEKLY;COUNT=30",
      ),
    );
    const read = busyIntervals(ICAL, text, { ...window, zone: "Asia/Tokyo" }).busy.map(
      ({ start, end }) => [new Date(start).toISOString(), new Date(end).toISOString()],
    );
    // Tuesdays at 09:00 in New York, and Monday the 14th at 15:00 an hour east of London.
    expect(read.slice(0, 3)).toEqual([
      ["2026-12-01T14:00:00.000Z", "2026-12-01T15:00:00.000Z"],
      ["2026-12-08T14:00:00.000Z", "2026-12-08T15:00:00.000Z"],
      ["2026-12-14T14:00:00.000Z", "2026-12-14T15:00:00.000Z"],
    ]);
  });

  it("refuse what is not a calendar, and a file whose events make too many instances in all", () => {
    expect(() => read("<html>hello</html>")).toThrow(NotACalendar);
    expect(() => read("BEGIN:VCARD\r\nEND:VCARD")).toThrow(NotACalendar);
    // Six events of 17,000 days left out each (a date costs no zone's rules): none too many alone.
    const days = Array.from({ length: 17_000 }, () => "20261201").join(",");
    const crowded = calendar(
      ...Array.from({ length: 6 }, (_, index) => [
        "BEGIN:VEVENT",
        `UID:crowded-${index}`,
        "DTSTART;VALUE=DATE:20261201",
        "RRULE:FREQ=YEARLY",
        `EXDATE;VALUE=DATE:${days}`,
        "END:VEVENT",
      ]).flat(),
    );
    expect(crowded.length).toBeLessThan(2_000_000);
    expect(() => read(crowded)).toThrow(`more than ${instancesMax} instances`);
  });

  it("pass by an event whose rule makes too many instances, as when it holds a slower thread", () => {
    // By the second: its count runs out in well under a second, quiet; on a loaded machine the
    // thread's time ran out first, and the read went on without it. Either way, the same read.
    const text = calendar(
      ...event("DTSTART:20261211T100000Z", "DTEND:20261211T110000Z"),
      "BEGIN:VEVENT",
      "UID:every-second",
      "SUMMARY:Board dinner",
      "DTSTART:20261212T100000Z",
      "DTEND:20261212T100001Z",
      "RRULE:FREQ=SECONDLY",
      "END:VEVENT",
    );
    const marked: Skipped[] = [];
    const counted = busyIntervals(ICAL, text, window, {
      mark: (event) => void (event && marked.push(event)),
    });
    expect(marked.map(({ uid }) => uid)).toEqual(["every-second"]);
    const held = busyIntervals(ICAL, text, window, { skip: new Set([marked[0]?.key ?? ""]) });
    expect(counted).toEqual(held);
    expect(counted.skipped).toEqual(marked);
    expect(counted.busy).toEqual([
      { start: Date.parse("2026-12-11T10:00Z"), end: Date.parse("2026-12-11T11:00Z") },
      { start: Date.parse("2026-12-12T10:00Z"), end: Date.parse("2026-12-12T10:00:01Z") },
    ]);
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
    ).busy.map(({ start }) => new Date(start).toISOString());
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
    // By the second on 29 February: ical.js looks for the next one, in 2028, second by second.
    const never = calendar(
      ...event("DTSTART:20261201T000000Z", "RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=29"),
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
    expect((await readBusyTimes(many, window)).busy).toHaveLength(20_000);
    // The server's thread kept its timers meanwhile: a thread that held it would give one at
    // most, where a free one gives a hundred a second (20 once, in a second and more of
    // reading, with the checks run at a lower priority on a loaded machine).
    expect(ticks).toBeGreaterThan(5);
    const { busy } = await readBusyTimes(calendar(...event("DTSTART:20261211T100000Z")), window);
    expect(busy).toEqual([
      { start: Date.parse("2026-12-11T10:00:00Z"), end: Date.parse("2026-12-11T10:00:00Z") },
    ]);
  });

  it("hold the first time of an event whose rule names no day, and read the rest", () => {
    // ical.js looks for ever for 30 February by the day (and for a zone's such rule, each time
    // it is asked for an instant in it), and refuses day 1 of the year in February outright.
    const text = calendar(
      "BEGIN:VTIMEZONE",
      "TZID:Nowhere Standard Time",
      "BEGIN:STANDARD",
      "DTSTART:16010101T000000",
      "TZOFFSETFROM:+0100",
      "TZOFFSETTO:+0100",
      "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",
      "END:STANDARD",
      "END:VTIMEZONE",
      ...event("DTSTART:20261211T100000Z", "DTEND:20261211T110000Z"),
      "BEGIN:VEVENT",
      "UID:thirtieth",
      "SUMMARY:Board dinner",
      "DTSTART;TZID=Nowhere Standard Time:20261214T090000",
      "DTEND;TZID=Nowhere Standard Time:20261214T100000",
      "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:first-of-february",
      "DTSTART:20261215T090000Z",
      "RRULE:FREQ=YEARLY;BYYEARDAY=1;BYMONTH=2",
      "END:VEVENT",
      ...event("DTSTART:20261216T090000Z", "DTEND:20261216T093000Z", "RRULE:FREQ=DAILY;COUNT=2"),
      "BEGIN:VEVENT",
      "DTSTART:20261218T090000Z",
      "RRULE:FREQ=MONTHLY;BYMONTH=4;BYMONTHDAY=31",
      "END:VEVENT",
    );
    const { busy, skipped } = busyIntervals(ICAL, text, window);
    expect(busy.map(({ start }) => new Date(start).toISOString())).toEqual([
      "2026-12-11T10:00:00.000Z",
      "2026-12-14T08:00:00.000Z",
      "2026-12-15T09:00:00.000Z",
      "2026-12-16T09:00:00.000Z",
      "2026-12-17T09:00:00.000Z",
      "2026-12-18T09:00:00.000Z",
    ]);
    expect(skipped.map(({ uid, start }) => [uid, start])).toEqual([
      ["thirtieth", "2026-12-14T08:00:00.000Z"],
      ["first-of-february", "2026-12-15T09:00:00.000Z"],
      ["event 5", "2026-12-18T09:00:00.000Z"],
    ]);
    expect(JSON.stringify(skipped)).not.toContain("Board dinner");
  });

  it("know a rule that names no day from one that names a rare one", () => {
    const names = (rule: string) => !namesNoDay(ICAL.Recur.fromString(rule));
    expect(names("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30")).toBe(false);
    expect(names("FREQ=MONTHLY;BYMONTH=4,6,9,11;BYMONTHDAY=31,-31")).toBe(false);
    expect(names("FREQ=YEARLY;BYMONTH=2;BYYEARDAY=1,-1,61")).toBe(false);
    expect(names("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29")).toBe(true);
    expect(names("FREQ=DAILY;BYMONTH=2,3;BYMONTHDAY=31")).toBe(true);
    expect(names("FREQ=YEARLY;BYMONTH=3;BYYEARDAY=60")).toBe(true);
    expect(names("FREQ=YEARLY;BYMONTH=12;BYYEARDAY=-1")).toBe(true);
    expect(names("FREQ=DAILY;BYMONTHDAY=31")).toBe(true);
  });

  it("name the event that held the thread, pass it by when told, and try it again once edited", async () => {
    const text = (end: string) =>
      calendar(
        ...event("DTSTART:20261211T100000Z", "DTEND:20261211T110000Z"),
        "BEGIN:VEVENT",
        "UID:leap-seconds",
        "SUMMARY:Board dinner",
        "DTSTART:20261212T100000Z",
        `DTEND:${end}`,
        "RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=29",
        "END:VEVENT",
        ...event("DTSTART:20261213T100000Z", "DTEND:20261213T110000Z", "RRULE:FREQ=DAILY"),
      );
    const held = async (file: string, skip: string[] = []) => {
      const stopped = await readBusyTimes(file, window, { limitMs: 1000, skip }).catch((e) => e);
      expect(stopped).toBeInstanceOf(HeldBy);
      return (stopped as HeldBy).event;
    };
    const holder = await held(text("20261212T110000Z"));
    expect(holder).toMatchObject({ uid: "leap-seconds", start: "2026-12-12T10:00:00.000Z" });
    expect(JSON.stringify(holder)).not.toContain("Board dinner");
    // Passed by, within the thread's own time: the rest is read, and its first time held.
    const { busy, skipped } = await readBusyTimes(text("20261212T110000Z"), window, {
      skip: [holder.key],
    });
    expect(skipped).toEqual([holder]);
    expect(busy.slice(0, 3)).toEqual([
      { start: Date.parse("2026-12-11T10:00Z"), end: Date.parse("2026-12-11T11:00Z") },
      { start: Date.parse("2026-12-12T10:00Z"), end: Date.parse("2026-12-12T11:00Z") },
      { start: Date.parse("2026-12-13T10:00Z"), end: Date.parse("2026-12-13T11:00Z") },
    ]);
    expect(busy).toHaveLength(3 + 18);
    // Edited, it is another event: tried again, and named again.
    const edited = await held(text("20261212T113000Z"), [holder.key]);
    expect(edited.uid).toBe("leap-seconds");
    expect(edited.key).not.toBe(holder.key);
  });
});
