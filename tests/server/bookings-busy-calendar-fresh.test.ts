import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import {
  bookingsResponseSchema,
  moveTimesResponseSchema,
  slotsResponseSchema,
} from "../../contract/bookings.ts";
import { healthResponseSchema } from "../../contract/console.ts";
import { wallTime } from "../../contract/time-zones.ts";
import { waitFor } from "../support/wait-for.ts";
import { adminAt, adminEnv } from "./support/admin.ts";
import { aged, bookingsApp, owner, ownerZone } from "./support/bookings.ts";
import {
  at,
  calendarFile,
  calendarStandIn,
  type Day,
  ics,
  iso,
  nextMonday,
  plus,
} from "./support/busy-calendar.ts";
import { movableClock } from "./support/clock.ts";
import { Owner } from "./support/owner.ts";
import type { SmtpSink } from "./support/smtp.ts";
import { lockWaiters } from "./support/sql.ts";
import { backends, json, siteUrl, type TestApp } from "./support/test-app.ts";

/*
 * The owner's busy calendar at the moment it matters (docs/product.md, "Book a call"): a
 * booking or a reader's move reads the calendar again when the last read is over a minute
 * old, and a slow or failing calendar host never refuses one; the owner's move shows, and
 * the command line says, which times meet the owner's own calendar.
 */

const minute = 60_000;
const monday = nextMonday();
/** A meeting on Monday from `hour` for an hour, on the owner's wall. */
const meeting = (date: Day, hour: number) => [
  `UID:meeting-${hour}`,
  `DTSTART;TZID=${ownerZone}:${ics(date, hour)}`,
  `DTEND;TZID=${ownerZone}:${ics(date, hour + 1)}`,
];
const stand = calendarStandIn();

describe.each(backends)("the owner's busy calendar, read when it matters, on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  let ownerSide: Owner;
  const clock = movableClock();
  let readers = 0;
  const url = () => stand.url("secret/basic.ics");
  const serve = (...hours: number[]) => {
    stand.answer = { status: 200, body: calendarFile(...hours.map((h) => meeting(monday, h))) };
  };
  const book = (start: number) => {
    readers += 1;
    return t.visitor({ ip: `10.7.0.${readers}` }).post("/api/bookings", {
      start: iso(start),
      name: `Reader ${readers}`,
      email: `fresh-${backend}-${readers}@example.org`,
      service: "dfmea",
      zone: "Asia/Kolkata",
      formToken: aged(),
    });
  };
  const health = async () => {
    if (!ownerSide.cookie) expect((await ownerSide.signIn()).statusCode).toBe(200);
    return json(await ownerSide.get("/api/admin/health"), healthResponseSchema).busyCalendar;
  };
  const tuesday = plus(monday, 1);
  /**
   * The answer to `request`, sent on PostgreSQL while the test holds the bookings' table and the
   * calendar's host hangs: it checks its time by the last read, 3 seconds on, and goes to write
   * it, where it waits; meanwhile the read comes in with a meeting on Tuesday at `hour`.
   */
  async function afterReadComesIn<T>(request: () => Promise<T>, hour: number): Promise<T> {
    stand.answer = "no answer";
    clock.advance(minute + 1000);
    const hold = new pg.Client(t.databaseUrl);
    await hold.connect();
    await hold.query("begin; lock table bookings in share mode");
    const reads = stand.reads;
    const answer = request();
    try {
      await expect.poll(() => lockWaiters(t), { timeout: 20_000 }).toBe(1);
      expect(stand.reads).toBe(reads + 1);
      const before = (await health())?.readAt;
      const meetings = [11, 10, 14].map((h) => meeting(monday, h));
      const then = [`UID:tuesday-${hour}`, ...meeting(tuesday, hour).slice(1)];
      stand.release({ status: 200, body: calendarFile(...meetings, then) });
      await waitFor(async () => (await health())?.readAt !== before, { what: "the read in" });
    } finally {
      await hold.query("commit");
      await hold.end();
    }
    return answer;
  }
  /** How the reader of the call booked last moves it: by the link their invitation carries. */
  async function mover() {
    const email = `fresh-${backend}-${readers}@example.org`;
    await smtp.waitFor(() => smtp.to(email).length > 0);
    const token = /\/book\/reschedule\?token=([\w-]{43})/.exec(
      smtp.to(email)[0]?.parsed.text ?? "",
    )?.[1];
    return (start: number) =>
      t.app.inject({
        method: "POST",
        url: "/book/reschedule",
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ token: token ?? "", start: iso(start) }).toString(),
      });
  }

  bookingsApp(
    backend,
    clock,
    () => ({ BOOKING_BUSY_CALENDAR_URL: url() }),
    (app) => {
      ({ t, smtp } = app);
      ownerSide = new Owner(t);
    },
    // Read at start, and then only when a booking asks: the timer's reads are an hour apart.
    { busyCalendar: { allowPrivate: (address) => address === "127.0.0.1", everyMs: 3_600_000 } },
  );

  it("reads the calendar again for a booking when the last read is over a minute old, once a minute at most", async () => {
    serve(11);
    await waitFor(async () => (await health())?.readAt != null, { what: "a first read" });
    const reads = stand.reads;
    // A meeting added a moment after a read: within the minute a booking may still meet it.
    serve(11, 10);
    expect((await book(at(monday, 10))).statusCode).toBe(201);
    expect(stand.reads).toBe(reads);
    // Over a minute on, the booking reads the calendar first and is refused its new meeting.
    serve(11, 10, 14);
    clock.advance(minute + 1000);
    const refused = await book(at(monday, 14));
    expect(refused.statusCode, refused.body).toBe(422);
    expect(stand.reads).toBe(reads + 1);
    // The next, within a minute of that read, reads nothing.
    expect((await book(at(monday, 15))).statusCode).toBe(201);
    expect(stand.reads).toBe(reads + 1);
  });

  it("books from the last good read when the calendar host fails or does not answer within 3 seconds", async () => {
    serve(11, 10, 14);
    clock.advance(minute + 1000);
    expect((await book(at(monday, 14, 30))).statusCode).toBe(422);
    const failures = [
      [{ status: 500, body: "down" }, at(monday, 16)],
      ["no answer", at(monday, 16, 30)],
    ] as const;
    for (const [answer, free] of failures) {
      stand.answer = answer;
      clock.advance(minute + 1000);
      const reads = stand.reads;
      const started = Date.now();
      // A free time is booked, within the 3 seconds and not the fetch's 15; a time busy by the
      // last good read is still refused. Asked at once, both wait for the one read (each asked
      // after the other would wait its own 3 seconds for the read still under way).
      const [booked, busy] = await Promise.all([book(free), book(at(monday, 11))]);
      expect(booked.statusCode, booked.body).toBe(201);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(stand.reads).toBe(reads + 1);
      expect(busy.statusCode, busy.body).toBe(422);
    }
    // The read kept waiting fails once the host lets it go.
    stand.release();
    await waitFor(async () => (await health())?.why === "it could not be reached", {
      what: "the read let go",
    });
  });

  // PostgreSQL alone: each statement there waits for the database, and a read may come in
  // meanwhile. SQLite runs the check and the transaction in one turn of the event loop (its
  // statements are calls, not I/O): no read comes in between them, nor can a test make one.
  it.runIf(backend === "postgres")(
    "refuses a booking whose time a read marked busy after the time was checked, as it commits",
    async () => {
      serve(11, 10, 14);
      clock.advance(minute + 1000);
      expect((await book(at(monday, 14, 30))).statusCode).toBe(422);
      const answer = await afterReadComesIn(() => book(at(tuesday, 11)), 11);
      expect(answer.statusCode, answer.body).toBe(409);
      const list = json(await ownerSide.get("/api/admin/bookings"), bookingsResponseSchema);
      expect(list.bookings.map((call) => call.start)).not.toContain(iso(at(tuesday, 11)));
      // The time beside it is booked as ever.
      expect((await book(at(tuesday, 12))).statusCode).toBe(201);
    },
  );

  // The same for a reader's move, on PostgreSQL alone as the booking's above.
  it.runIf(backend === "postgres")(
    "refuses a reader's move to a time a read marked busy after the time was checked, as it commits",
    async () => {
      serve(11, 10, 14);
      clock.advance(minute + 1000);
      const booked = await book(at(tuesday, 15));
      expect(booked.statusCode, booked.body).toBe(201);
      const move = await mover();
      const answer = await afterReadComesIn(() => move(at(tuesday, 13)), 13);
      expect(answer.statusCode, answer.body).toBe(303);
      expect(answer.headers.location).toContain("refused=taken");
      // The call stays at its time, and moves to the time beside it as ever.
      const list = json(await ownerSide.get("/api/admin/bookings"), bookingsResponseSchema);
      const starts = list.bookings.map((call) => call.start);
      expect(starts).toContain(iso(at(tuesday, 15)));
      expect(starts).not.toContain(iso(at(tuesday, 13)));
      expect((await move(at(tuesday, 14, 30))).statusCode).toBe(200);
    },
  );

  it("reads it again for a reader's move too", async () => {
    serve(11, 10, 14);
    clock.advance(minute + 1000);
    const booked = await book(at(monday, 12));
    expect(booked.statusCode).toBe(201);
    const move = await mover();
    serve(11, 10, 14, 13);
    clock.advance(minute + 1000);
    const refused = await move(at(monday, 13));
    expect(refused.statusCode).toBe(303);
    expect(refused.headers.location).toContain("refused=not_offered");
    expect((await move(at(monday, 12, 30))).statusCode).toBe(200);
  });

  it("shows the owner which times to move a call to meet their calendar, and lets them choose one", async () => {
    serve(11, 10, 14, 13);
    clock.advance(minute + 1000);
    const booked = await book(at(monday, 12));
    expect(booked.statusCode, booked.body).toBe(201);
    const list = json(await ownerSide.get("/api/admin/bookings"), bookingsResponseSchema);
    const id = list.bookings.find((call) => call.start === iso(at(monday, 12)))?.id ?? 0;
    const times = json(
      await ownerSide.get(`/api/admin/bookings/${id}/times`),
      moveTimesResponseSchema,
    );
    // Meetings from 10, 11, 13 and 14 o'clock for an hour; 10:00 and 12:30 are booked.
    for (const busy of [at(monday, 10, 30), at(monday, 11, 30), at(monday, 13)]) {
      expect(times.starts).toContain(iso(busy));
      expect(times.busy).toContain(iso(busy));
    }
    expect(times.starts).toContain(iso(at(monday, 15, 30)));
    expect(times.busy).not.toContain(iso(at(monday, 15, 30)));
    expect(times.busy.every((start) => times.starts.includes(start))).toBe(true);
    const moved = await ownerSide.post(`/api/admin/bookings/${id}/move`, {
      start: iso(at(monday, 11)),
    });
    expect(moved.statusCode, moved.body).toBe(200);

    // The command line reads the calendar for itself and says so.
    const env = {
      ...adminEnv(t),
      OWNER_EMAIL: owner,
      BOOKING_TIMEZONE: ownerZone,
      BOOKING_BUSY_CALENDAR_URL: url(),
    };
    const cli = (to: number) => {
      const w = wallTime(to, ownerZone);
      const two = (n: number) => String(n).padStart(2, "0");
      const wall = `${w.year}-${two(w.month)}-${two(w.day)}T${two(w.hour)}:${two(w.minute)}`;
      const allowPrivate = (address: string) => address === "127.0.0.1";
      return adminAt({ env, allowPrivate }, ["bookings", "move", String(id), "--to", wall]);
    };
    const busy = await cli(at(monday, 14));
    expect(busy.code, busy.stderr).toBe(0);
    expect(busy.stdout).toContain("It meets a busy time in your own calendar.");
    const free = await cli(at(monday, 15, 30));
    expect(free.code, free.stderr).toBe(0);
    expect(free.stdout).not.toContain("busy");
    const notFree = await cli(at(monday, 12, 15));
    expect(notFree.code).toBe(2);
    expect(notFree.stderr).toMatch(/Free times near it:[\s\S]*busy in your calendar/);
    stand.answer = { status: 500, body: "down" };
    const unread = await cli(at(monday, 16, 30) + 60 * minute);
    expect(unread.stdout + unread.stderr).toContain(
      "Your calendar could not be read (it answered 500).",
    );
    // An event whose rule names no day (30 February) is skipped, and the command line says so.
    const thirtieth = [
      "UID:thirtieth",
      "DTSTART:20200101T090000Z",
      "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",
    ];
    stand.answer = { status: 200, body: calendarFile(meeting(monday, 11), thirtieth) };
    const skipped = await cli(at(monday, 16, 30) + 60 * minute);
    expect(skipped.stdout + skipped.stderr).toContain(
      "Your calendar: 1 event skipped: could not be expanded.",
    );
  });
});

// Four events that each hold a read for its thread's time: once, on SQLite, is enough. The thread
// is given 3 s, not the server's 5: what is tested is the reads one after another, not their
// limit (a file of one event and four passed by is read in 2 s of the clock at a load of 16).
const threadMs = 3000;
describe("the owner's busy calendar after a start, past more events that hold it than a read tries", () => {
  let t: TestApp;
  let ownerSide: Owner;
  const clock = movableClock();
  /** By the second on 29 February, each: ical.js looks for the next, in 2028, second by second. */
  const holding = [1, 2, 3, 4].map((index) => [
    `UID:leap-seconds-${index}`,
    `DTSTART;TZID=${ownerZone}:${ics(plus(monday, 1), 9 + index)}`,
    `DTEND;TZID=${ownerZone}:${ics(plus(monday, 1), 9 + index, 30)}`,
    "RRULE:FREQ=SECONDLY;BYMONTH=2;BYMONTHDAY=29",
  ]);
  beforeAll(() => {
    stand.answer = { status: 200, body: calendarFile(meeting(monday, 14), ...holding) };
  });
  bookingsApp(
    "sqlite",
    clock,
    () => ({ BOOKING_BUSY_CALENDAR_URL: stand.url("secret/holding.ics") }),
    (app) => {
      t = app.t;
      ownerSide = new Owner(t);
    },
    // The timer's reads an hour apart: the first read after the start must finish the job.
    {
      busyCalendar: {
        allowPrivate: (address) => address === "127.0.0.1",
        everyMs: 3_600_000,
        limitMs: threadMs,
      },
    },
  );

  it("reads again at once until it is read past them all, not at the timer's next turn", async () => {
    expect((await ownerSide.signIn()).statusCode).toBe(200);
    const health = async () =>
      json(await ownerSide.get("/api/admin/health"), healthResponseSchema).busyCalendar;
    // Three tries, each past one more of them (9 s), and a second read past the fourth.
    await waitFor(async () => (await health())?.readAt != null, {
      what: "the calendar read past all four",
      timeoutMs: 60_000,
    });
    expect(await health()).toMatchObject({ skipped: 4, failedAt: null, inForce: true });
    const starts = new Set(
      json(await t.visitor().get("/api/bookings/slots"), slotsResponseSchema).starts,
    );
    expect(starts.has(iso(at(monday, 14)))).toBe(false);
    expect(starts.has(iso(at(monday, 15)))).toBe(true);
    // Each event keeps its first time busy.
    expect(starts.has(iso(at(plus(monday, 1), 10)))).toBe(false);
    expect(starts.has(iso(at(plus(monday, 1), 14)))).toBe(true);
  });
});
