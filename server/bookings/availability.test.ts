import { describe, expect, it, vi } from "vitest";
import { type Availability, defaultAvailability } from "../../contract/bookings.ts";
import { instantOf, slotsByDay, timeLabel, wallTime } from "../../contract/time-zones.ts";
import { freeStarts, meetsAny } from "./availability.ts";

const hour = 3_600_000;
const day = 24 * hour;
const at = (iso: string) => Date.parse(iso);
const iso = (instant: number) => new Date(instant).toISOString();

function free(
  zone: string,
  now: string,
  change: Partial<Availability> = {},
  taken: { start: number; end: number }[] = [],
) {
  return freeStarts({
    availability: { ...defaultAvailability, ...change },
    zone,
    now: at(now),
    taken,
  });
}

/** The starts on one date of the owner's zone, as its wall-clock times. */
function wallTimesOn(starts: number[], zone: string, date: string) {
  return starts
    .filter((start) => {
      const wall = wallTime(start, zone);
      return (
        `${wall.year}-${String(wall.month).padStart(2, "0")}-${String(wall.day).padStart(2, "0")}` ===
        date
      );
    })
    .map((start) => timeLabel(start, zone));
}

const weekdayHours = Array.from({ length: 14 }, (_, i) => {
  const minutes = 600 + i * 30;
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
});

describe("free times", () => {
  it("are weekdays 10:00 to 17:00 in the owner's zone by default, in 30-minute calls", () => {
    // Wednesday 4 March 2026, 09:00 in London.
    const starts = free("Europe/London", "2026-03-04T09:00:00Z");
    expect(wallTimesOn(starts, "Europe/London", "2026-03-05")).toEqual(weekdayHours);
    expect(wallTimesOn(starts, "Europe/London", "2026-03-07")).toEqual([]); // Saturday
    expect(wallTimesOn(starts, "Europe/London", "2026-03-08")).toEqual([]); // Sunday
  });

  it("keep the minimum notice and stop at the horizon", () => {
    const now = "2026-03-04T11:15:00Z";
    const starts = free("Europe/London", now);
    expect(starts[0]).toBe(at("2026-03-05T11:30:00Z"));
    expect(Math.max(...starts)).toBeLessThanOrEqual(at(now) + 30 * day);
    expect(Math.max(...starts)).toBeGreaterThan(at(now) + 28 * day);
    const shorter = free("Europe/London", now, { noticeHours: 2, horizonDays: 2 });
    expect(shorter[0]).toBe(at("2026-03-04T13:30:00Z"));
    expect(Math.max(...shorter)).toBeLessThanOrEqual(at(now) + 2 * day);
  });

  it("leave a buffer around booked calls and between calls", () => {
    const now = "2026-03-02T08:00:00Z";
    const booked = { start: at("2026-03-04T11:00:00Z"), end: at("2026-03-04T11:30:00Z") };
    const starts = free("Europe/London", now, { bufferMinutes: 15 }, [booked]);
    // 45-minute steps: 10:00, 10:45, 11:30, …; 10:45 and 11:30 fall within 15 minutes of the
    // call at 11:00 (London is on GMT, so 11:00Z is 11:00 there).
    expect(wallTimesOn(starts, "Europe/London", "2026-03-04")).toEqual([
      "10:00",
      "12:15",
      "13:00",
      "13:45",
      "14:30",
      "15:15",
      "16:00",
    ]);
    expect(wallTimesOn(starts, "Europe/London", "2026-03-05")).toEqual([
      "10:00",
      "10:45",
      "11:30",
      "12:15",
      "13:00",
      "13:45",
      "14:30",
      "15:15",
      "16:00",
    ]);
  });

  it("stop on a day once its daily maximum is booked, and skip dates off", () => {
    const now = "2026-03-02T08:00:00Z";
    const booked = [
      { start: at("2026-03-04T10:00:00Z"), end: at("2026-03-04T10:30:00Z") },
      { start: at("2026-03-04T14:00:00Z"), end: at("2026-03-04T14:30:00Z") },
    ];
    const starts = free("Europe/London", now, { dailyMax: 2, datesOff: ["2026-03-05"] }, booked);
    expect(wallTimesOn(starts, "Europe/London", "2026-03-04")).toEqual([]);
    expect(wallTimesOn(starts, "Europe/London", "2026-03-05")).toEqual([]);
    expect(wallTimesOn(starts, "Europe/London", "2026-03-06")).toEqual(weekdayHours);
    expect(
      wallTimesOn(
        free("Europe/London", now, { dailyMax: 3 }, booked),
        "Europe/London",
        "2026-03-04",
      ),
    ).toHaveLength(12);
  });

  it("leave out the owner's busy times with the buffer around them, which count toward no day's maximum", () => {
    const now = "2026-03-02T08:00:00Z";
    const busy = [{ start: at("2026-03-04T11:00:00Z"), end: at("2026-03-04T12:10:00Z") }];
    const starts = freeStarts({
      availability: { ...defaultAvailability, bufferMinutes: 15, dailyMax: 1 },
      zone: "Europe/London",
      now: at(now),
      taken: [],
      busy,
    });
    // 45-minute steps: 10:45 ends 11:15, inside the meeting; 12:15 starts within its buffer.
    expect(wallTimesOn(starts, "Europe/London", "2026-03-04")).toEqual([
      "10:00",
      "13:00",
      "13:45",
      "14:30",
      "15:15",
      "16:00",
    ]);
  });

  it("find what a start meets among many busy times, overlapping, touching or apart, as one by one does", () => {
    // A made-up generator with a seed, so a failure can be replayed.
    let seed = 57;
    const next = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    const minute = 60_000;
    const busy = Array.from({ length: 400 }, () => {
      const start = next(20_000) * minute;
      return { start, end: start + (1 + next(90)) * minute };
    });
    for (const [callMinutes, bufferMinutes] of [
      [30, 0],
      [30, 10],
      [45, 15],
    ] as const) {
      const meets = meetsAny({ callMinutes, bufferMinutes }, busy);
      const call = callMinutes * minute;
      const buffer = bufferMinutes * minute;
      const oneByOne = (start: number) =>
        busy.some((other) => other.start - buffer < start + call && other.end + buffer > start);
      const starts = Array.from({ length: 2_000 }, () => next(21_000) * minute);
      expect(starts.map(meets)).toEqual(starts.map(oneByOne));
      expect(starts.filter(meets).length).toBeGreaterThan(0);
      expect(starts.filter((start) => !meets(start)).length).toBeGreaterThan(0);
    }
  });

  it("follow the owner's own weekly hours", () => {
    const starts = free("Asia/Kolkata", "2026-03-02T00:00:00Z", {
      weekly: {
        ...defaultAvailability.weekly,
        sat: [
          ["09:00", "10:00"],
          ["18:00", "19:00"],
        ],
      },
      callMinutes: 60,
    });
    expect(wallTimesOn(starts, "Asia/Kolkata", "2026-03-07")).toEqual(["09:00", "18:00"]);
    expect(wallTimesOn(starts, "Asia/Kolkata", "2026-03-09")).toHaveLength(7);
  });
});

describe("across a change of the clocks", () => {
  it("keeps a 10:00 call at 10:00 on the owner's wall when London goes to summer time", () => {
    // British Summer Time begins on Sunday 29 March 2026 at 01:00 UTC.
    const starts = free("Europe/London", "2026-03-25T08:00:00Z");
    const friday = starts.find((s) => iso(s).startsWith("2026-03-27"));
    const monday = starts.find((s) => iso(s).startsWith("2026-03-30"));
    expect(iso(friday ?? 0)).toBe("2026-03-27T10:00:00.000Z");
    expect(iso(monday ?? 0)).toBe("2026-03-30T09:00:00.000Z");
    expect(wallTimesOn(starts, "Europe/London", "2026-03-30")).toEqual(weekdayHours);
  });

  it("keeps New York's hours through its change, two weeks before London's", () => {
    // Daylight time begins on Sunday 8 March 2026 at 02:00 local.
    const starts = free("America/New_York", "2026-03-04T12:00:00Z");
    expect(starts.filter((s) => iso(s).startsWith("2026-03-06"))[0]).toBe(
      at("2026-03-06T15:00:00Z"),
    );
    expect(starts.filter((s) => iso(s).startsWith("2026-03-09"))[0]).toBe(
      at("2026-03-09T14:00:00Z"),
    );
    expect(wallTimesOn(starts, "America/New_York", "2026-03-09")).toEqual(weekdayHours);
  });

  it("shows Kolkata's readers (no daylight saving) a London call an hour earlier after the change", () => {
    const starts = free("Europe/London", "2026-03-25T08:00:00Z");
    const days = slotsByDay(
      starts.map((s) => iso(s)),
      "Asia/Kolkata",
    );
    const friday = days.find((d) => d.date === "2026-03-27");
    const monday = days.find((d) => d.date === "2026-03-30");
    expect(friday?.slots[0]?.label).toBe("15:30");
    expect(monday?.slots[0]?.label).toBe("14:30");
    expect(monday?.label).toBe("Monday 30 March 2026");
  });

  it("shows New York's readers the right local times while the two zones are out of step", () => {
    // From 8 to 29 March 2026 New York is on daylight time and London not yet: 4 hours apart, not 5.
    const starts = free("Europe/London", "2026-03-04T08:00:00Z");
    const days = slotsByDay(
      starts.map((s) => iso(s)),
      "America/New_York",
    );
    expect(days.find((d) => d.date === "2026-03-06")?.slots[0]?.label).toBe("05:00");
    expect(days.find((d) => d.date === "2026-03-16")?.slots[0]?.label).toBe("06:00");
    expect(days.find((d) => d.date === "2026-03-30")?.slots[0]?.label).toBe("05:00");
  });

  it("skips a time the clocks skip, and takes the first of a time they repeat", () => {
    expect(instantOf({ year: 2026, month: 3, day: 29 }, 60 + 30, "Europe/London")).toBeNull();
    expect(instantOf({ year: 2026, month: 10, day: 25 }, 60 + 30, "Europe/London")).toBe(
      at("2026-10-25T00:30:00Z"),
    );
    expect(instantOf({ year: 2026, month: 3, day: 8 }, 2 * 60 + 30, "America/New_York")).toBeNull();
    expect(instantOf({ year: 2026, month: 3, day: 8 }, 10 * 60, "Asia/Kolkata")).toBe(
      at("2026-03-08T04:30:00Z"),
    );
    // Hours that cross the change: 00:30 to 03:00 on the night London changes.
    const starts = free("Europe/London", "2026-03-26T00:00:00Z", {
      weekly: { ...defaultAvailability.weekly, sun: [["00:30", "03:00"]] },
      noticeHours: 0,
    });
    expect(wallTimesOn(starts, "Europe/London", "2026-03-29")).toEqual(["00:30", "02:00", "02:30"]);
  });

  it("never offers two calls that overlap, where the clocks skip an hour or the owner's stretches overlap", () => {
    const overlapping = (starts: number[], minutes: number) =>
      starts.filter((start, i) => i > 0 && (starts[i - 1] ?? 0) + minutes * 60_000 > start);
    // 45-minute calls from 00:00 on the night London skips 01:00 to 02:00: the call at 00:45
    // (GMT) ends at 02:30 (BST), so a call at 02:15 would begin inside it.
    const night = free("Europe/London", "2026-03-26T00:00:00Z", {
      weekly: { ...defaultAvailability.weekly, sun: [["00:00", "03:00"]] },
      callMinutes: 45,
      noticeHours: 0,
    });
    expect(wallTimesOn(night, "Europe/London", "2026-03-29")).toEqual(["00:00", "00:45"]);
    expect(overlapping(night, 45).map(iso)).toEqual([]);
    // Stretches written so they overlap: a call is offered only once the one before has ended.
    const day = free("Europe/London", "2026-03-02T08:00:00Z", {
      weekly: {
        ...defaultAvailability.weekly,
        tue: [
          ["10:00", "13:00"],
          ["12:30", "17:00"],
        ],
      },
      callMinutes: 45,
      bufferMinutes: 15,
    });
    expect(wallTimesOn(day, "Europe/London", "2026-03-03")).toEqual([
      "10:00",
      "11:00",
      "12:00",
      "13:30",
      "14:30",
      "15:30",
    ]);
    expect(overlapping(day, 60).map(iso)).toEqual([]);
  });

  it("offers a 45-minute zone's late hours across the year's end, each reader on their own date", () => {
    const none = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
    const late: [string, string][] = [["22:00", "24:00"]];
    // 23:50 on Wednesday 30 December in Kathmandu (GMT+5:45): that day's last call has begun.
    const starts = free("Asia/Kathmandu", "2026-12-30T18:05:00Z", {
      weekly: { ...none, wed: late, thu: late },
      noticeHours: 0,
      horizonDays: 3,
    });
    expect(starts.map(iso)).toEqual([
      "2026-12-31T16:15:00.000Z",
      "2026-12-31T16:45:00.000Z",
      "2026-12-31T17:15:00.000Z",
      "2026-12-31T17:45:00.000Z",
    ]);
    const days = (zone: string) =>
      slotsByDay(starts.map(iso), zone).map((d) => [d.date, d.slots.map((s) => s.label)]);
    expect(days("Asia/Kathmandu")).toEqual([["2026-12-31", ["22:00", "22:30", "23:00", "23:30"]]]);
    expect(days("America/New_York")).toEqual([
      ["2026-12-31", ["11:15", "11:45", "12:15", "12:45"]],
    ]);
    expect(days("Pacific/Kiritimati")).toEqual([
      ["2027-01-01", ["06:15", "06:45", "07:15", "07:45"]],
    ]);
  });

  it("follows Lord Howe Island's half-hour changes of the clocks, forward and back", () => {
    const zone = "Australia/Lord_Howe";
    const sunday = {
      ...defaultAvailability.weekly,
      sun: [["01:00", "03:30"]] as [string, string][],
    };
    const on = (now: string, date: string) =>
      free(zone, now, { weekly: sunday, noticeHours: 0, horizonDays: 3 })
        .filter((start) => wallTimesOn([start], zone, date).length > 0)
        .map(iso);
    // 4 October 2026: 02:00 (GMT+10:30) becomes 02:30 (GMT+11); 02:00 never happens.
    expect(on("2026-10-02T00:00:00Z", "2026-10-04")).toEqual([
      "2026-10-03T14:30:00.000Z",
      "2026-10-03T15:00:00.000Z",
      "2026-10-03T15:30:00.000Z",
      "2026-10-03T16:00:00.000Z",
    ]);
    // 5 April 2026: 02:00 (GMT+11) goes back to 01:30 (GMT+10:30); 01:30 is its first.
    expect(on("2026-04-03T00:00:00Z", "2026-04-05")).toEqual([
      "2026-04-04T14:00:00.000Z",
      "2026-04-04T14:30:00.000Z",
      "2026-04-04T15:30:00.000Z",
      "2026-04-04T16:00:00.000Z",
      "2026-04-04T16:30:00.000Z",
    ]);
  });

  it("offers 01:30 once where New York's clocks go back, at its first occurrence", () => {
    const starts = free("America/New_York", "2026-10-30T12:00:00Z", {
      weekly: { ...defaultAvailability.weekly, sun: [["00:30", "03:00"]] },
      noticeHours: 0,
      horizonDays: 3,
    });
    expect(starts.filter((s) => iso(s).startsWith("2026-11-01")).map(iso)).toEqual([
      "2026-11-01T04:30:00.000Z",
      "2026-11-01T05:00:00.000Z",
      "2026-11-01T05:30:00.000Z", // 01:30 EDT; the repeated hour (EST) is not offered
      "2026-11-01T07:00:00.000Z",
      "2026-11-01T07:30:00.000Z",
    ]);
    expect(wallTimesOn(starts, "America/New_York", "2026-11-01")).toEqual([
      "00:30",
      "01:00",
      "01:30",
      "02:00",
      "02:30",
    ]);
  });

  it("lays out a year of 10-minute calls round the clock reading the zone's clock by the day, not at each call", () => {
    // The most the console's settings allow a day of one stretch: 144 calls, 365 days ahead.
    const allDay: [string, string][] = [["00:00", "24:00"]];
    const change = {
      weekly: {
        mon: allDay,
        tue: allDay,
        wed: allDay,
        thu: allDay,
        fri: allDay,
        sat: allDay,
        sun: allDay,
      },
      callMinutes: 10,
      noticeHours: 0,
      horizonDays: 365,
    };
    // Each look at the free times lays them all out, for anyone who asks: a reading of the
    // zone's clock at each of them took seconds, a request at a time.
    const readings = vi.spyOn(Intl.DateTimeFormat.prototype, "formatToParts");
    const starts = free("America/New_York", "2026-01-01T05:00:00Z", change);
    const read = readings.mock.calls.length;
    readings.mockRestore();
    // About 580 readings a day before; a handful now, more only the days the clocks change.
    expect(read).toBeLessThan(20 * 365);
    // Every ten minutes of the year to the first of the next, but the hour skipped in March,
    // each on the grid on the owner's wall, the days the clocks change too.
    expect(starts.length).toBe(365 * 144 + 1 - 6);
    expect(starts.filter((start) => wallTime(start, "America/New_York").minute % 10 !== 0)).toEqual(
      [],
    );
    expect(wallTimesOn(starts, "America/New_York", "2026-03-08").slice(11, 13)).toEqual([
      "01:50",
      "03:00",
    ]);
    expect(wallTimesOn(starts, "America/New_York", "2026-11-01").slice(6, 14)).toEqual([
      "01:00",
      "01:10",
      "01:20",
      "01:30",
      "01:40",
      "01:50",
      "02:00",
      "02:10",
    ]);
  });
});
