import pg from "pg";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { errorResponseSchema } from "../../contract/api.ts";
import {
  availabilityAnswerSchema,
  bookingConflictResponseSchema,
  bookingSchema,
  bookingsResponseSchema,
  bookingWeeksResponseSchema,
  defaultAvailability,
  feedResponseSchema,
  slotsResponseSchema,
  slotTakenMessage,
} from "../../contract/bookings.ts";
import { auditEntrySchema, healthResponseSchema } from "../../contract/console.ts";
import { dateKey, wallTime } from "../../contract/time-zones.ts";
import { calendarOfMail, readCalendar } from "../support/calendar.ts";
import { admin, adminAt } from "./support/admin.ts";
import { aged, owner, ownerSideApp, ownerZone } from "./support/bookings.ts";
import { movableClock } from "./support/clock.ts";
import { dom } from "./support/html.ts";
import type { Owner } from "./support/owner.ts";
import type { Answer, ReceivedMail, SmtpSink } from "./support/smtp.ts";
import { lockWaiters, runSql } from "./support/sql.ts";
import { backends, json, siteUrl, type TestApp } from "./support/test-app.ts";

/*
 * The owner's side of booked calls (docs/product.md, "Book a call"): the
 * console's Bookings screen through its API and the command line's
 * `bookings` commands, each an adapter of the same owner actions, each
 * action on the audit trail once, and every bad input refused with nothing
 * changed.
 */

const method = (mail: ReceivedMail | undefined) => calendarOfMail(mail)?.method;

/** The Monday (UTC) of a time's week, as the chart of calls per week names it. */
/** The Monday that starts the week of `iso` in the owner's zone, as the Overview counts weeks. */
const mondayOf = (iso: string) => {
  const day = Date.parse(`${dateKey(Date.parse(iso), ownerZone)}T00:00:00Z`);
  return new Date(day - ((new Date(day).getUTCDay() + 6) % 7) * 86_400_000)
    .toISOString()
    .slice(0, 10);
};

describe.each(backends)("the owner's bookings on %s", (backend) => {
  let smtp: SmtpSink;
  let t: TestApp;
  let env: Record<string, string>;
  let ownerBrowser: Owner;
  const clock = movableClock();
  const { freeStarts, upcoming, book } = ownerSideApp(backend, clock, "owner-side", (side) => {
    ({ t, smtp, env, owner: ownerBrowser } = side);
  });
  const audit = async () =>
    auditEntrySchema.array().parse(JSON.parse((await admin(env, "audit", "--json")).stdout));
  const linesFor = async (action: string, object: string) =>
    (await audit()).filter((entry) => entry.action === action && entry.object === object);
  const availability = async () =>
    json(await ownerBrowser.get("/api/admin/bookings"), bookingsResponseSchema).availability;

  it("lists calls with the note and service, and cancels one with a message to both sides, once, audited", async () => {
    const call = await book(3, "Could we look at the detection ratings of the seal?");
    expect(call).toMatchObject({
      status: "booked",
      serviceTitle: expect.stringContaining("DFMEA"),
      note: "Could we look at the detection ratings of the seal?",
      readerZone: "America/New_York",
    });
    const path = `/api/admin/bookings/${call.id}/cancel`;
    // A message no mail should carry is refused, and the call stays booked.
    const refused = await ownerBrowser.post(path, { message: "Sorry\u202e, moved" });
    expect(refused.statusCode).toBe(400);
    expect(json(refused, errorResponseSchema).error.message).toContain("text-direction");
    expect((await ownerBrowser.post("/api/admin/bookings/0x1/cancel", {})).statusCode).toBe(400);
    expect((await upcoming()).find((b) => b.id === call.id)?.status).toBe("booked");

    const message = "I am travelling that day; please choose another time.";
    const cancelled = await ownerBrowser.post(path, { message });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(json(cancelled, z.object({ booking: bookingSchema })).booking).toMatchObject({
      id: call.id,
      status: "cancelled",
      cancelledBy: "owner",
    });
    await smtp.waitFor(
      () =>
        smtp.to(call.email).some((m) => method(m) === "CANCEL") &&
        smtp.to(owner).some((m) => method(m) === "CANCEL" && m.parsed.text?.includes(message)),
    );
    const readerMail = smtp.to(call.email).find((m) => method(m) === "CANCEL");
    expect(readerMail?.parsed.text).toContain(message);
    expect(calendarOfMail(readerMail)?.event.start.toISOString()).toBe(call.start);

    // Once: again is "no such booked call", and the trail has one line.
    const again = await ownerBrowser.post(path, { message });
    expect(again.statusCode).toBe(404);
    expect(await linesFor("booking cancel", `booking ${call.id}`)).toHaveLength(1);
    expect((await linesFor("booking cancel", `booking ${call.id}`))[0]?.sessionId).not.toBeNull();
    // The time is free again, and the call reads as cancelled by the owner with the message.
    const { starts } = json(await t.visitor().get("/api/bookings/slots"), slotsResponseSchema);
    expect(starts).toContain(call.start);
    expect((await upcoming()).find((b) => b.id === call.id)).toMatchObject({
      status: "cancelled",
      cancelledBy: "owner",
      cancelMessage: message,
    });
  });

  it("lists, shows, cancels and deletes from the command line, each audited without a session", async () => {
    // Line breaks as a form sends them (\r\n), and a lone \r, which a terminal would print
    // as a return to the line's start, hiding what came before it.
    const call = await book(8, '=HYPERLINK("http://x")\r\nand a second line\rand a third');
    expect(call.note).toBe('=HYPERLINK("http://x")\nand a second line\nand a third');
    const later = await book(9);
    const list = await admin(env, "bookings", "list");
    expect(list.code, list.stderr).toBe(0);
    const row = list.stdout.split("\n").find((line) => line.startsWith(`${call.id}\t`));
    expect(row?.split("\t")).toEqual([
      String(call.id),
      call.start,
      "booked",
      call.serviceTitle,
      call.name,
      call.email,
      "America/New_York",
      '\'=HYPERLINK("http://x")',
    ]);
    const shown = await admin(env, "bookings", "show", String(call.id));
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Call ${call.id}, booked`);
    expect(shown.stdout).toContain(`With: ${call.name} <${call.email}>`);
    expect(shown.stdout).toContain("and a second line\nand a third");
    expect(shown.stdout).not.toContain("\r");
    expect(shown.stdout).toMatch(/The reader's time: .*America \/ New York/);
    expect((await admin(env, "bookings", "show", "99999")).code).toBe(3);
    expect((await admin(env, "bookings", "show", "01")).code).toBe(2);

    // Without a terminal to ask, cancelling needs --yes; nothing is done without it.
    const unasked = await admin(env, "bookings", "cancel", String(call.id));
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain("--yes");
    const tooLong = await admin(
      env,
      "bookings",
      "cancel",
      String(call.id),
      "--yes",
      "--message",
      "x".repeat(5000),
    );
    expect(tooLong.code).toBe(2);
    expect((await upcoming()).find((b) => b.id === call.id)?.status).toBe("booked");

    const cancel = await admin(
      env,
      "bookings",
      "cancel",
      String(call.id),
      "--yes",
      "--message",
      "Something came up; sorry.",
    );
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toContain(`Cancelled call ${call.id}`);
    await smtp.waitFor(() =>
      smtp
        .to(call.email)
        .some((m) => method(m) === "CANCEL" && m.parsed.text?.includes("Something came up")),
    );
    expect((await admin(env, "bookings", "cancel", String(call.id), "--yes")).code).toBe(3);
    const lines = await linesFor("booking cancel", `booking ${call.id}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.sessionId).toBeNull();

    // A call still ahead is cancelled before it is deleted, so both calendars hear.
    const ahead = await admin(env, "bookings", "delete", String(later.id));
    expect(ahead.code).toBe(1);
    expect(ahead.stderr).toContain("cancel it first");
    expect((await ownerBrowser.delete(`/api/admin/bookings/${later.id}`)).statusCode).toBe(409);
    // Its cancellation done with, as the outbox records it:
    await expect
      .poll(() =>
        runSql(t, "select id from outbox where email = ? and status in ('queued', 'sending')", [
          call.email,
        ]),
      )
      .toEqual([]);
    expect((await admin(env, "bookings", "delete", String(call.id))).code).toBe(0);
    // Nothing of it stays: not even the record of the mails sent to its reader, the cancellation's included.
    expect(
      await runSql(t, "select kind, status from outbox where email = ?", [call.email]),
    ).toEqual([]);
    expect((await admin(env, "bookings", "delete", String(call.id))).code).toBe(3);
    expect((await admin(env, "bookings", "show", String(call.id))).code).toBe(3);
    expect(await linesFor("booking delete", `booking ${call.id}`)).toHaveLength(1);
    // From the console: cancelled, then deleted.
    expect((await ownerBrowser.post(`/api/admin/bookings/${later.id}/cancel`, {})).statusCode).toBe(
      200,
    );
    expect((await ownerBrowser.delete(`/api/admin/bookings/${later.id}`)).statusCode).toBe(204);
    expect((await ownerBrowser.delete(`/api/admin/bookings/${later.id}`)).statusCode).toBe(404);
    expect((await upcoming()).map((b) => b.id)).not.toContain(later.id);
  });

  it("still sends the reader's cancellation when the owner deletes the call before it went", async () => {
    const call = await book(10);
    // The reader's mail server says "try later" until the call is deleted.
    let later = true;
    smtp.answer = (to) =>
      later && to.includes(call.email)
        ? { code: 451, message: "4.3.0 Try again later" }
        : undefined;
    try {
      expect(
        (await ownerBrowser.post(`/api/admin/bookings/${call.id}/cancel`, {})).statusCode,
      ).toBe(200);
      // Tried and refused a few times: queued, its next try over a second away.
      const cancellation = () =>
        runSql(t, "select status, attempts from outbox where kind = ? and email = ?", [
          "booking_cancellation",
          call.email,
        ]);
      await expect
        .poll(async () => (await cancellation()).map((row) => Number(row.attempts) >= 6), {
          timeout: 20_000,
        })
        .toEqual([true]);
      expect((await ownerBrowser.delete(`/api/admin/bookings/${call.id}`)).statusCode).toBe(204);
      expect(await cancellation()).toHaveLength(1);
    } finally {
      later = false;
    }
    // It goes once the reader's server takes mail, and takes the call out of their calendar.
    await smtp.waitFor(() => smtp.to(call.email).some((m) => method(m) === "CANCEL"), 30_000);
    expect((await admin(env, "bookings", "show", String(call.id))).code).toBe(3);
    // Sent, it leaves nothing of the reader behind.
    await expect
      .poll(() => runSql(t, "select kind from outbox where email = ?", [call.email]))
      .toEqual([]);
  });

  it("still sends the reader's cancellation when the call is deleted while it is being sent and the server says later", async () => {
    const call = await book(12);
    await smtp.waitFor(() => smtp.to(call.email).length > 0);
    // The reader's server holds its answer to the cancellation, then says "later" once.
    let release = (_answer: Answer) => {};
    const held = new Promise<Answer>((resolve) => {
      release = resolve;
    });
    let asked = false;
    smtp.answer = (to) => {
      if (!to.includes(call.email) || asked) return undefined;
      asked = true;
      return held;
    };
    try {
      expect(
        (await ownerBrowser.post(`/api/admin/bookings/${call.id}/cancel`, {})).statusCode,
      ).toBe(200);
      await expect.poll(() => asked).toBe(true);
      expect((await ownerBrowser.delete(`/api/admin/bookings/${call.id}`)).statusCode).toBe(204);
    } finally {
      release({ code: 451, message: "4.3.0 Try again later" });
    }
    await smtp.waitFor(() => smtp.to(call.email).some((m) => method(m) === "CANCEL"), 30_000);
    await expect
      .poll(() => runSql(t, "select kind from outbox where email = ?", [call.email]))
      .toEqual([]);
    smtp.answer = () => undefined;
  });

  it("keeps no address of a deleted call's reader when their server refuses the cancellation for good", async () => {
    const call = await book(11);
    await smtp.waitFor(() => smtp.to(call.email).length > 0);
    // "Later" until the call is deleted, then "no", in Postfix's words: the address in the answer.
    let answer = { code: 451, message: "4.3.0 Try again later" };
    smtp.answer = (to) => (to.includes(call.email) ? answer : undefined);
    const cancellation = () =>
      runSql(t, "select status, attempts, last_error from outbox where kind = ? and email = ?", [
        "booking_cancellation",
        call.email,
      ]);
    try {
      expect(
        (await ownerBrowser.post(`/api/admin/bookings/${call.id}/cancel`, {})).statusCode,
      ).toBe(200);
      await expect
        .poll(async () => (await cancellation()).map((row) => Number(row.attempts) >= 6), {
          timeout: 20_000,
        })
        .toEqual([true]);
      expect((await ownerBrowser.delete(`/api/admin/bookings/${call.id}`)).statusCode).toBe(204);
      answer = { code: 550, message: `5.1.1 <${call.email}>: Recipient address rejected` };
      const failed = () =>
        runSql(t, "select last_error from outbox where kind = ? and status = ?", [
          "booking_cancellation",
          "failed",
        ]);
      await expect
        .poll(async () => (await failed()).map((row) => String(row.last_error).includes("5.1.1")), {
          timeout: 20_000,
        })
        .toEqual([true]);
      // Failed for good, it stays counted, without the address it could not reach.
      expect(JSON.stringify(await runSql(t, "select * from outbox"))).not.toContain(call.email);
    } finally {
      smtp.answer = () => undefined;
    }
  });

  it("sets when calls can be booked from either side, and refuses what is wrong with nothing changed", async () => {
    const saturdays = {
      ...defaultAvailability,
      weekly: { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [["09:00", "12:00"]], sun: [] },
      callMinutes: 45,
      bufferMinutes: 15,
      dailyMax: 2,
    };
    const put = (body: unknown) =>
      ownerBrowser.request("PUT", "/api/admin/bookings/availability", body as never);
    const saved = await put(saturdays);
    expect(saved.statusCode, saved.body).toBe(200);
    const cli = await admin(env, "bookings", "hours", "--json");
    expect(availabilityAnswerSchema.parse(JSON.parse(cli.stdout))).toEqual(saturdays);
    const { starts } = json(await t.visitor().get("/api/bookings/slots"), slotsResponseSchema);
    expect(starts.length).toBeGreaterThan(0);
    for (const start of starts) {
      const wall = wallTime(Date.parse(start), ownerZone);
      expect(wall.weekday, start).toBe(6);
      // An hour apart, a 45-minute call and 15 minutes free after it; 11:00 ends by noon.
      expect([9 * 60, 10 * 60, 11 * 60], start).toContain(wall.hour * 60 + wall.minute);
    }

    // Refused on both sides, with the same words, and nothing changes.
    const shortCall = await admin(env, "bookings", "hours", "--length", "5");
    expect(shortCall.code).toBe(2);
    expect(shortCall.stderr).toContain("--length: A call is 10 to 240 minutes long.");
    const shortPut = await put({ ...saturdays, callMinutes: 5 });
    expect(shortPut.statusCode).toBe(400);
    expect(json(shortPut, errorResponseSchema).error.message).toContain(
      "A call is 10 to 240 minutes long.",
    );
    const badHours = await admin(env, "bookings", "hours", "--mon", "nine till five");
    expect(badHours.code).toBe(2);
    expect(badHours.stderr).toContain("Write hours as 10:00-17:00");
    const badZone = await admin(env, "bookings", "hours", "--zone", "Mars/Olympus");
    expect(badZone.code).toBe(2);
    expect(badZone.stderr).toContain(
      '--zone: "Mars/Olympus" is not a time zone: give an IANA zone such as Europe/Paris, or "default".',
    );
    // The console chooses from its list, and says so.
    const badZonePut = await put({ ...saturdays, timeZone: "Mars/Olympus" });
    expect(json(badZonePut, errorResponseSchema).error.message).toContain(
      "Choose a time zone from the list.",
    );
    // Each refusal names the option it is about.
    const backwards = await admin(
      env,
      "bookings",
      "hours",
      "--mon",
      "9:00-12:00",
      "--tue",
      "17:00-10:00",
    );
    expect(backwards.code).toBe(2);
    expect(backwards.stderr).toContain(
      '--tue: A stretch of hours must end after it starts, not "17:00-10:00".',
    );
    const noDay = await admin(env, "bookings", "hours", "--dates-off", "2026-02-30");
    expect(noDay.stderr).toContain('--dates-off: Write dates as YYYY-MM-DD, not "2026-02-30".');
    expect(
      (await put({ ...saturdays, weekly: { ...saturdays.weekly, sat: [["12:00", "09:00"]] } }))
        .statusCode,
    ).toBe(400);
    expect(await availability()).toEqual(saturdays);

    // Whether a first call is free, from either side; a word it does not know is refused.
    expect((await admin(env, "bookings", "hours")).stdout).toContain("First call: free");
    const paid = await admin(env, "bookings", "hours", "--first-call", "paid", "--notice", "1");
    expect(paid.code, paid.stderr).toBe(0);
    expect(paid.stdout).toContain("First call: paid");
    expect(paid.stdout).toContain("Notice: 1 hour;");
    expect(await availability()).toEqual({ ...saturdays, firstCallFree: false, noticeHours: 1 });
    const maybe = await admin(env, "bookings", "hours", "--first-call", "sometimes");
    expect(maybe.code).toBe(2);
    expect(maybe.stderr).toContain('--first-call: say "free" or "paid", not "sometimes".');
    expect((await put({ ...saturdays, firstCallFree: true })).statusCode).toBe(200);

    // The room the invitations name: where it comes from, or that there is none.
    expect((await admin(env, "bookings", "hours")).stdout).toContain(
      "Room: none: each invitation says you will send the link (set --meeting-url, or --meeting jitsi)",
    );
    const room = "https://meet.example.org/engineer";
    expect(
      (await admin({ ...env, BOOKING_MEETING_URL: room }, "bookings", "hours")).stdout,
    ).toContain(`Room: ${room} (BOOKING_MEETING_URL)`);

    // The command line changes only what it is given.
    const changed = await admin(
      env,
      "bookings",
      "hours",
      "--mon",
      "10:00-12:00, 14:00-16:30",
      "--daily-max",
      "none",
      "--dates-off",
      "2027-01-01, 2026-12-25",
      "--meeting",
      "jitsi",
    );
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toContain("mon  10:00-12:00, 14:00-16:30");
    expect(await availability()).toEqual({
      ...saturdays,
      weekly: {
        ...saturdays.weekly,
        mon: [
          ["10:00", "12:00"],
          ["14:00", "16:30"],
        ],
      },
      dailyMax: null,
      datesOff: ["2026-12-25", "2027-01-01"],
      meeting: "jitsi",
    });
    const trail = (await audit()).filter((entry) => entry.action === "bookings availability");
    expect(trail.slice(0, 2).map((entry) => entry.sessionId === null)).toEqual([true, false]);

    expect((await put(defaultAvailability)).statusCode).toBe(200);
  });

  it("moves a call to another time of its day at the daily maximum, and none into a full day", async () => {
    const put = (body: unknown) =>
      ownerBrowser.request("PUT", "/api/admin/bookings/availability", body as never);
    expect((await put({ ...defaultAvailability, dailyMax: 2 })).statusCode).toBe(200);
    // The last two whole days of the next three weeks, where no other test books: the
    // horizon's last day may hold a time or two, and a week past the chart's four.
    const soon = (await freeStarts()).filter(
      (start) => Date.parse(start) < Date.now() + 21 * 86_400_000,
    );
    const byDay = Map.groupBy(soon, (start) => dateKey(Date.parse(start), ownerZone));
    const [other, full] = [...byDay.values()].filter((day) => day.length >= 4).slice(-2) as [
      string[],
      string[],
    ];
    const moving = await book(full[0] ?? "");
    await book(full[1] ?? "");
    const elsewhere = await book(other[0] ?? "");
    const tokenOf = async (call: { email: string }) => {
      await smtp.waitFor(() => smtp.to(call.email).length > 0);
      return /\/book\/reschedule\?token=([A-Za-z0-9_-]{43})/.exec(
        smtp.to(call.email)[0]?.parsed.text ?? "",
      )?.[1];
    };
    const move = async (call: { email: string }, start: string) =>
      t.app.inject({
        method: "POST",
        url: "/book/reschedule",
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ token: (await tokenOf(call)) ?? "", start }).toString(),
      });
    const heading = (html: string) => dom(html).querySelector("h1")?.textContent;

    // The full day's other times are offered to the call on it, not its own.
    const page = await t.visitor().get(`/book/reschedule?token=${await tokenOf(moving)}`);
    const offered = [...dom(page.body).querySelectorAll("input[type=radio]")].map((radio) =>
      radio.getAttribute("value"),
    );
    expect(offered).toContain(full[2]);
    expect(offered).not.toContain(full[0]);
    expect(offered).not.toContain(full[1]);
    const moved = await move(moving, full[2] ?? "");
    expect(moved.statusCode, moved.body).toBe(200);
    expect(heading(moved.body)).toBe("Your call is moved");

    // The maximum holds for everything else: no booking, no move from another day.
    const starts = await freeStarts();
    expect(starts).not.toContain(full[3]);
    const refused = await move(elsewhere, full[3] ?? "");
    expect(refused.statusCode).toBe(303);
    const into = await t.visitor().get(String(refused.headers.location));
    expect(into.statusCode).toBe(409);
    expect(dom(into.body).querySelector("[role=alert]")?.textContent).toContain(
      "That time was just taken",
    );
    const calls = await upcoming();
    expect(calls.find((call) => call.id === elsewhere.id)?.start).toBe(other[0]);
    // The owner sees which call was moved, and how often; the refused move changed nothing.
    expect(calls.find((call) => call.id === moving.id)?.moves).toBe(1);
    expect(calls.find((call) => call.id === elsewhere.id)?.moves).toBe(0);
    expect(calls.filter((call) => full.includes(call.start)).map((call) => call.start)).toEqual([
      full[1],
      full[2],
    ]);
    expect((await put(defaultAvailability)).statusCode).toBe(200);
  });

  it("makes and revokes the calendar feed's address from the command line, and counts calls per week", async () => {
    const made = await admin(env, "bookings", "feed", "--new");
    expect(made.code).toBe(0);
    // The first address stops none: only a new one says the one before no longer works.
    expect(made.stdout).not.toMatch(/before/);
    const first = made.stdout.split("\n")[0] ?? "";
    const again = await admin(env, "bookings", "feed", "--new");
    expect(again.stdout).toMatch(/The address before no longer works\.\n$/);
    expect((await t.visitor().get(first.slice("http://ewe.test".length))).statusCode).toBe(404);
    const url = again.stdout.split("\n")[0] ?? "";
    expect(url).toMatch(/^http:\/\/ewe\.test\/book\/feed\/[A-Za-z0-9_-]{43}\.ics$/);
    const path = url.slice("http://ewe.test".length);
    expect((await t.visitor().get(path)).statusCode).toBe(200);
    expect(json(await ownerBrowser.get("/api/admin/bookings"), bookingsResponseSchema).feed).toBe(
      true,
    );
    expect((await admin(env, "bookings", "feed")).code).toBe(2);
    expect((await admin(env, "bookings", "feed", "--revoke")).code).toBe(0);
    expect((await t.visitor().get(path)).statusCode).toBe(404);
    expect((await admin(env, "bookings", "feed", "--revoke")).code).toBe(3);
    const actions = (await audit()).slice(0, 3).map((entry) => entry.action);
    expect(actions).toEqual(["bookings feed revoke", "bookings feed new", "bookings feed new"]);

    await book(12);
    const { weeks } = json(
      await ownerBrowser.get("/api/admin/bookings/weeks"),
      bookingWeeksResponseSchema,
    );
    // The last 12 weeks, and those ahead to the horizon's, 30 days on: 4 or 5.
    expect(weeks.length).toBeGreaterThanOrEqual(16);
    expect(weeks.length).toBeLessThanOrEqual(17);
    const expected = new Map<string, number>();
    for (const call of (await upcoming()).filter((b) => b.status === "booked")) {
      expected.set(mondayOf(call.start), (expected.get(mondayOf(call.start)) ?? 0) + 1);
    }
    expect(expected.size).toBeGreaterThan(0);
    for (const [week, count] of expected) {
      expect(weeks.find((w) => w.week === week)?.count, week).toBe(count);
    }
  });

  it("counts calls per week up to the booking horizon, however far", async () => {
    const put = (body: unknown) =>
      ownerBrowser.request("PUT", "/api/admin/bookings/availability", body as never);
    expect((await put({ ...defaultAvailability, horizonDays: 60 })).statusCode).toBe(200);
    // The last free time, past where any other test books.
    const call = await book((await freeStarts()).at(-1) ?? "");
    const { weeks } = json(
      await ownerBrowser.get("/api/admin/bookings/weeks"),
      bookingWeeksResponseSchema,
    );
    expect(weeks.find((week) => week.week === mondayOf(call.start))?.count).toBe(1);
    expect((await put(defaultAvailability)).statusCode).toBe(200);
  });

  it("tells on Health a booked call's reminders as due later, not as mail waiting", async () => {
    const call = await book(15);
    await smtp.waitFor(
      () =>
        smtp.to(call.email).some((m) => method(m) === "REQUEST") &&
        smtp.to(owner).some((m) => method(m) === "PUBLISH"),
    );
    const outbox = async () =>
      json(await ownerBrowser.get("/api/admin/health"), healthResponseSchema).outbox;
    // Its invitations gone, nothing is due: the four reminders (24 h and 1 h before, to
    // each side) wait for their time, however early they were queued.
    await expect.poll(outbox).toMatchObject({ queued: 0, oldestQueuedAt: null });
    expect((await outbox()).scheduled).toBeGreaterThanOrEqual(4);
  });

  it("refuses to cancel a call that has begun, from the console and the command line", async () => {
    const call = await book(0);
    const mails = () =>
      runSql(t, "select id, kind from outbox where payload like ? order by id", [
        `{"bookingId":${call.id},%`,
      ]);
    const before = await mails();
    clock.advance(Date.parse(call.start) - clock.now().getTime() + 60_000);
    const late = await ownerBrowser.post(`/api/admin/bookings/${call.id}/cancel`, {});
    expect(late.statusCode).toBe(409);
    expect(json(late, errorResponseSchema).error.message).toContain("has begun");
    const cli = await adminAt({ env, clock: () => clock.now() }, [
      "bookings",
      "cancel",
      String(call.id),
      "--message",
      "Sorry",
      "--yes",
    ]);
    expect(cli).toEqual({
      code: 1,
      stdout: "",
      stderr: `Call ${call.id} has begun; it can no longer be cancelled.\n`,
    });
    expect(await linesFor("booking cancel", `booking ${call.id}`)).toHaveLength(0);
    // Still booked, in both calendars: neither side is queued a cancellation, nor sent one.
    expect((await upcoming()).find((b) => b.id === call.id)).toMatchObject({
      status: "booked",
      start: call.start,
    });
    expect(await mails()).toEqual(before);
    expect(smtp.to(call.email)).toHaveLength(1);
  });

  it("keeps a call in the calendar feed for a month after it, by the site's clock", async () => {
    const call = await book(1);
    const made = await ownerBrowser.post("/api/admin/bookings/feed");
    expect(made.statusCode).toBe(200);
    const path = json(made, feedResponseSchema).url.slice(siteUrl.length);
    const starts = async () =>
      readCalendar((await t.visitor().get(path)).body).events.map((e) => e.start.toISOString());
    expect(await starts()).toContain(call.start);
    clock.advance(Date.parse(call.end) - clock.now().getTime() + 29 * 86_400_000);
    expect(await starts()).toContain(call.start);
    clock.advance(2 * 86_400_000);
    expect(await starts()).not.toContain(call.start);
    expect((await ownerBrowser.request("DELETE", "/api/admin/bookings/feed")).statusCode).toBe(204);
  });

  it("mails the owner no calendar copy of a call while the calendar feed stands: a calendar shows each call once", async () => {
    /** The owner's mail that a call was booked, once it has come. */
    const ownerNews = async (call: { name: string }) => {
      const news = () =>
        smtp
          .to(owner)
          .find(
            (m) =>
              m.parsed.subject?.startsWith(`Call with ${call.name}:`) &&
              m.parsed.text?.includes("A reader booked a call."),
          );
      await smtp.waitFor(() => news() !== undefined);
      return news();
    };
    const made = await ownerBrowser.post("/api/admin/bookings/feed");
    expect(made.statusCode).toBe(200);
    const feed = json(made, feedResponseSchema).url.slice(siteUrl.length);
    const call = await book(6);
    // The event comes from the feed alone, under the call's UID: no copy to add beside it.
    const [event] = readCalendar((await t.visitor().get(feed)).body).events.filter(
      (e) => e.start.toISOString() === call.start,
    );
    expect(event?.summary).toBe(`Call with ${call.name}: ${call.serviceTitle}`);
    const news = await ownerNews(call);
    expect(news?.parsed.text).toContain(call.email);
    expect(calendarOfMail(news)).toBeNull();
    expect(news?.parsed.attachments.map((a) => a.contentType)).toEqual([]);
    // Revoked, the feed no longer has them: the owner's mails carry each call again.
    expect((await ownerBrowser.request("DELETE", "/api/admin/bookings/feed")).statusCode).toBe(204);
    const next = await book(7);
    expect(method(await ownerNews(next))).toBe("PUBLISH");
    for (const { id } of [call, next]) {
      expect((await ownerBrowser.post(`/api/admin/bookings/${id}/cancel`, {})).statusCode).toBe(
        200,
      );
    }
  });

  it("keeps no booking on a day the owner takes off while it is posted: those readers are told it was taken", async () => {
    const put = (body: unknown) =>
      ownerBrowser.request("PUT", "/api/admin/bookings/availability", body as never);
    expect((await put(defaultAvailability)).statusCode).toBe(200);
    const all = await freeStarts();
    const day = dateKey(Date.parse(all[0] ?? ""), ownerZone);
    const onDay = (start: string) => dateKey(Date.parse(start), ownerZone) === day;
    const starts = all.filter(onDay).slice(0, 4);
    // On PostgreSQL the test holds every insert into bookings until the owner's change is
    // answered: each booking has read the old hours by then, and writes after the change.
    const hold = backend === "postgres" ? new pg.Client(t.databaseUrl) : undefined;
    await hold?.connect();
    await hold?.query("begin; lock table bookings in share mode");
    const posted = starts.map((start, i) =>
      t.visitor({ ip: `10.9.7.${i + 1}` }).post("/api/bookings", {
        start,
        name: `Reader on the day off ${i}`,
        email: `day-off-${backend}-${i}@example.org`,
        service: "dfmea",
        note: "",
        zone: "America/New_York",
        formToken: aged(),
      }),
    );
    if (hold)
      await expect
        .poll(() => lockWaiters(t), { timeout: 15_000 })
        .toBeGreaterThanOrEqual(starts.length);
    const changed = await put({ ...defaultAvailability, datesOff: [day] });
    expect(changed.statusCode, changed.body).toBe(200);
    await hold?.query("commit");
    await hold?.end();
    const answers = await Promise.all(posted);

    const kept = (await runSql(t, "select starts_at from bookings where status = 'booked'")).filter(
      (row) => onDay(new Date(String(row.starts_at)).toISOString()),
    );
    const booked = answers.filter((answer) => answer.statusCode === 201);
    // Booked before the change (only where nothing held them), or refused: never kept after it.
    expect(kept).toHaveLength(booked.length);
    if (hold) expect(booked).toHaveLength(0);
    for (const answer of answers.filter((a) => a.statusCode !== 201)) {
      expect(answer.statusCode, answer.body).toBe(409);
      const { error } = json(answer, bookingConflictResponseSchema);
      expect(error.code).toBe("slot_taken");
      expect(error.message).toContain(slotTakenMessage);
      expect(error.slots?.starts.filter(onDay)).toEqual([]);
    }
    expect((await freeStarts()).filter(onDay)).toEqual([]);
  });
});
