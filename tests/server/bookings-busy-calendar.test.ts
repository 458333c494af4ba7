import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { slotsResponseSchema } from "../../contract/bookings.ts";
import { healthResponseSchema } from "../../contract/console.ts";
import { instantOf, wallTime } from "../../contract/time-zones.ts";
import { waitFor } from "../support/wait-for.ts";
import { aged, bookingsApp, ownerZone } from "./support/bookings.ts";
import { movableClock } from "./support/clock.ts";
import { dom } from "./support/html.ts";
import { Owner } from "./support/owner.ts";
import { backends, json, siteUrl, type TestApp } from "./support/test-app.ts";

/*
 * The owner's busy calendar (docs/product.md, "Book a call"): a stand-in calendar
 * server on loopback serves an iCalendar file; the free times on the API, the page
 * without JavaScript and the form leave out what it says is busy, a booking for a
 * busy time is refused, and a calendar that fails keeps its last busy times a day.
 */

const minute = 60_000;
const day = 86_400_000;
/** What no answer, page, log line or Health may ever show: the events' own words. */
const secrets = ["Acquisition talks", "Room 4B", "cfo@acme.example", "quarterly numbers"];
const secretPath = "private-3f9a1c77e0b2d4";

type Day = { year: number; month: number; day: number };
/** The owner's date `days` after `from`. */
const plus = (from: Day, days: number): Day => {
  const noon = new Date(Date.UTC(from.year, from.month - 1, from.day, 12) + days * day);
  return { year: noon.getUTCFullYear(), month: noon.getUTCMonth() + 1, day: noon.getUTCDate() };
};
const ics = (date: Day, hour = 0, min = 0) =>
  `${date.year}${String(date.month).padStart(2, "0")}${String(date.day).padStart(2, "0")}` +
  (hour || min ? `T${String(hour).padStart(2, "0")}${String(min).padStart(2, "0")}00` : "");
const at = (date: Day, hour: number, min = 0, zone = ownerZone) =>
  instantOf(date, hour * 60 + min, zone) as number;
const iso = (instant: number) => new Date(instant).toISOString();

/** A Monday in the owner's zone at least three days ahead: the week the calendar fills. */
function nextMonday(): Day {
  const today = wallTime(Date.now(), ownerZone);
  const ahead = (8 - today.weekday) % 7 || 7;
  return plus(today, ahead < 3 ? ahead + 7 : ahead);
}
const monday = nextMonday();
const tuesday = plus(monday, 1);

/** A calendar as Google or Outlook would publish it, with every kind of event the tests need. */
function calendar(): string {
  const event = (lines: string[]) => [
    "BEGIN:VEVENT",
    "DTSTAMP:20261201T000000Z",
    ...lines,
    "END:VEVENT",
  ];
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Stand-in//EN",
    // A one-off meeting, Monday 11:00 to 12:00 on the owner's wall.
    ...event([
      "UID:one-off",
      `DTSTART;TZID=${ownerZone}:${ics(monday, 11)}`,
      `DTEND;TZID=${ownerZone}:${ics(monday, 12)}`,
      `SUMMARY:${secrets[0]}`,
      `LOCATION:${secrets[1]}`,
      `ATTENDEE;CN=CFO:mailto:${secrets[2]}`,
      `DESCRIPTION:${secrets[3]}`,
    ]),
    // Weekly on Tuesdays, 09:00 to 10:00 in New York, from the week before; not this Tuesday,
    // and next Tuesday's moved to Wednesday 15:00 London.
    ...event([
      "UID:weekly",
      `DTSTART;TZID=America/New_York:${ics(plus(tuesday, -7), 9)}`,
      `DTEND;TZID=America/New_York:${ics(plus(tuesday, -7), 10)}`,
      "RRULE:FREQ=WEEKLY;COUNT=10",
      `EXDATE;TZID=America/New_York:${ics(tuesday, 9)}`,
      `SUMMARY:${secrets[0]}`,
    ]),
    ...event([
      "UID:weekly",
      `RECURRENCE-ID;TZID=America/New_York:${ics(plus(tuesday, 7), 9)}`,
      `DTSTART:${new Date(at(plus(monday, 9), 15)).toISOString().replace(/[-:]|\.\d+/g, "")}`,
      `DTEND:${new Date(at(plus(monday, 9), 16)).toISOString().replace(/[-:]|\.\d+/g, "")}`,
      `SUMMARY:${secrets[0]}`,
    ]),
    // All of Thursday.
    ...event(["UID:all-day", `DTSTART;VALUE=DATE:${ics(plus(monday, 3))}`, "SUMMARY:Away"]),
    // Friday marked free, and the Monday after cancelled: neither is busy.
    ...event([
      "UID:free",
      `DTSTART;TZID=${ownerZone}:${ics(plus(monday, 4), 10)}`,
      `DTEND;TZID=${ownerZone}:${ics(plus(monday, 4), 17)}`,
      "TRANSP:TRANSPARENT",
    ]),
    ...event([
      "UID:cancelled",
      `DTSTART;TZID=${ownerZone}:${ics(plus(monday, 7), 10)}`,
      `DTEND;TZID=${ownerZone}:${ics(plus(monday, 7), 12)}`,
      "STATUS:CANCELLED",
    ]),
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

/** The starts the calendar above makes busy, and some beside them that stay free. */
const ny = (date: Day) => at(date, 9, 0, "America/New_York");
const busy = () => [
  at(monday, 11),
  at(monday, 11, 30),
  ny(plus(tuesday, 14)),
  ny(plus(tuesday, 14)) + 30 * minute,
  at(plus(monday, 9), 15),
  at(plus(monday, 9), 15, 30),
  at(plus(monday, 3), 10),
  at(plus(monday, 3), 16, 30),
];
const free = () => [
  at(monday, 10, 30),
  at(monday, 12),
  ny(tuesday),
  ny(plus(tuesday, 7)),
  ny(plus(tuesday, 14)) + 60 * minute,
  at(plus(monday, 4), 10),
  at(plus(monday, 7), 10),
];

/** What the stand-in answers now. */
let answer: { status: number; body: string | Buffer; location?: string } = {
  status: 200,
  body: "",
};
let stand: Server;
let port = 0;
beforeAll(async () => {
  stand = createServer((_request, response) => {
    if (answer.location) response.setHeader("location", answer.location);
    response.writeHead(answer.status, { "content-type": "text/calendar" }).end(answer.body);
  });
  await new Promise<void>((resolve) => stand.listen(0, "127.0.0.1", resolve));
  port = (stand.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => stand.close(() => resolve())));

describe.each(backends)("the owner's busy calendar on %s", (backend) => {
  let t: TestApp;
  const clock = movableClock();
  const logs: string[] = [];
  let ip = 0;
  const browser = () => t.visitor({ ip: `10.6.${Math.floor(++ip / 250)}.${ip % 250}` });
  const slots = async (zone = "") =>
    json(await browser().get(`/api/bookings/slots${zone && `?zone=${zone}`}`), slotsResponseSchema);
  let ownerSide: Owner;
  const health = async () => {
    if (!ownerSide.cookie) expect((await ownerSide.signIn()).statusCode).toBe(200);
    return json(await ownerSide.get("/api/admin/health"), healthResponseSchema).busyCalendar;
  };

  beforeAll(() => {
    answer = { status: 200, body: calendar() };
  });
  bookingsApp(
    backend,
    clock,
    () => ({ BOOKING_BUSY_CALENDAR_URL: `http://127.0.0.1:${port}/${secretPath}/basic.ics` }),
    (app) => {
      t = app.t;
      ownerSide = new Owner(t);
    },
    {
      busyCalendar: { allowPrivate: (address) => address === "127.0.0.1", everyMs: 100 },
      logger: {
        level: "info",
        stream: new Writable({
          write(chunk, _encoding, done) {
            logs.push(String(chunk));
            done();
          },
        }),
      },
    },
  );

  it("offers no time the calendar holds busy, on the API, in any zone, and on the page without JavaScript", async () => {
    await waitFor(async () => (await health())?.readAt != null, { what: "a first read" });
    for (const zone of ["", "Asia/Kolkata"]) {
      const starts = new Set((await slots(zone)).starts);
      for (const start of busy())
        expect(starts.has(iso(start)), `${iso(start)} is busy`).toBe(false);
      for (const start of free())
        expect(starts.has(iso(start)), `${iso(start)} is free`).toBe(true);
    }
    for (const url of [
      "/book?days=30",
      "/book?zone=Asia/Kolkata&days=30",
      "/book/times?zone=America/New_York&days=30",
    ]) {
      const page = await browser().get(url);
      expect(page.statusCode).toBe(200);
      const offered = new Set(
        [...dom(page.body).querySelectorAll("input[name=start]")].map((input) =>
          input.getAttribute("value"),
        ),
      );
      expect(offered.has(iso(at(monday, 12))), url).toBe(true);
      for (const start of busy())
        expect(offered.has(iso(start)), `${url} ${iso(start)}`).toBe(false);
      for (const secret of [...secrets, secretPath]) expect(page.body).not.toContain(secret);
    }
    const listed = JSON.stringify(await slots());
    for (const secret of [...secrets, secretPath]) expect(listed).not.toContain(secret);
  });

  it("refuses a booking for a busy time as a time not offered, with JavaScript and without", async () => {
    const start = iso(at(monday, 11, 30));
    const fields = {
      start,
      name: "Meera Iyer",
      email: "meera@example.org",
      service: "dfmea",
      zone: "Asia/Kolkata",
      formToken: aged(),
    };
    const api = await browser().post("/api/bookings", fields);
    expect(api.statusCode).toBe(422);
    expect(json(api, errorResponseSchema).error.code).toBe("not_offered");
    const form = await t.app.inject({
      method: "POST",
      url: "/book",
      remoteAddress: "10.5.0.9",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ ...fields, formToken: aged() }).toString(),
    });
    expect(form.statusCode).toBe(422);
    expect(form.body).toContain("That time is not one of the free times");
    // The time beside it is still booked as ever.
    const beside = await browser().post("/api/bookings", {
      ...fields,
      start: iso(at(monday, 12)),
      formToken: aged(),
    });
    expect(beside.statusCode, beside.body).toBe(201);
  });

  it("keeps the last busy times when the calendar fails, says so on Health, and offers the hours alone after a day", async () => {
    await waitFor(async () => (await health())?.readAt != null, { what: "a first read" });
    expect(await health()).toMatchObject({ failedAt: null, why: null, inForce: true });
    const failures = [
      [{ status: 500, body: "oops" }, "it answered 500"],
      [{ status: 200, body: Buffer.alloc(2_000_001, "A") }, "it is larger than 2 MB"],
      [{ status: 200, body: "<html>not a calendar</html>" }, "not an iCalendar file"],
      [
        { status: 302, body: "", location: "http://10.1.2.3/cal.ics" },
        "its address is a private one",
      ],
    ] as const;
    for (const [given, why] of failures) {
      answer = given;
      await waitFor(async () => (await health())?.why === why, { what: why });
      expect(await health()).toMatchObject({ inForce: true });
      const starts = new Set((await slots()).starts);
      for (const start of busy()) expect(starts.has(iso(start))).toBe(false);
    }
    // Said once in the log, by the calendar's origin alone, and nothing of the events anywhere.
    const said = logs.filter((line) => line.includes("busy calendar could not be read"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(`http://127.0.0.1:${port}`);
    const shown = JSON.stringify(
      json(await ownerSide.get("/api/admin/health"), healthResponseSchema),
    );
    for (const secret of [...secrets, secretPath]) {
      expect(logs.join("")).not.toContain(secret);
      expect(shown).not.toContain(secret);
    }

    // A day on without a good read: the free times come from the hours alone.
    clock.advance(day + minute);
    expect(await health()).toMatchObject({ inForce: false });
    const starts = new Set((await slots()).starts);
    expect(starts.has(iso(at(monday, 11, 30)))).toBe(true);

    // Read again: its busy times stand once more.
    answer = { status: 200, body: calendar() };
    await waitFor(async () => (await health())?.failedAt === null, { what: "a good read" });
    expect(await health()).toMatchObject({ inForce: true, why: null });
    expect(new Set((await slots()).starts).has(iso(at(monday, 11, 30)))).toBe(false);
    expect(logs.some((line) => line.includes("busy calendar was read again"))).toBe(true);
  });
});
