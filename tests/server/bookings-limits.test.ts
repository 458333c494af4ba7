import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import {
  bookingConflictResponseSchema,
  defaultAvailability,
  slotsResponseSchema,
} from "../../contract/bookings.ts";
import { dateKey } from "../../contract/time-zones.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";
import { atOnce as gateAtOnce, startInstances } from "./support/gate.ts";
import { type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, siteUrl, type TestApp } from "./support/test-app.ts";

/*
 * The bookings' limits under requests at the same instant
 * (docs/decisions/043-bookings.md): bookings an hour from one connection, one
 * booking an hour per mailbox, and a day's most calls, hold for bookings and
 * moves that overlap, on two instances on one PostgreSQL (held at a gate:
 * support/gate.ts) and on SQLite.
 */

const cookieSecret = "booking-limits-tests-cookie-secret-0123456789";
const ownerZone = "Europe/London";
const tokens = createFormTokens(cookieSecret, { purpose: "booking form timing", minimumMs: 0 });

const call = (start: string, email: string) => ({
  start,
  name: "Meera Iyer",
  email,
  service: "dfmea",
  note: "A second opinion on our pump's DFMEA, please.",
  zone: "Asia/Kolkata",
  formToken: tokens.issue(Date.now() - 60_000),
});

describe.each(backends)("the bookings' limits under requests at once on %s", (backend) => {
  let smtp: SmtpSink;
  let instances: TestApp[] = [];
  /** The instance the `i`th request goes to: each in turn. */
  const on = (i: number) => instances[i % instances.length] as TestApp;
  let ip = 0;
  const book = (i: number, start: string, email: string, from = `10.61.0.${++ip}`) =>
    on(i).visitor({ ip: from }).post("/api/bookings", call(start, email));
  /** The free times, by the owner's day. */
  const freeDays = async () => {
    const { starts } = json(await on(0).visitor().get("/api/bookings/slots"), slotsResponseSchema);
    return [...Map.groupBy(starts, (start) => dateKey(Date.parse(start), ownerZone)).values()];
  };
  const bookedOn = async (day: string[]) =>
    (await runSql(on(0), "select starts_at from bookings where status = 'booked'")).filter((row) =>
      day.includes(new Date(String(row.starts_at)).toISOString()),
    );

  const atOnce = <T>(requests: (() => Promise<T>)[]) =>
    gateAtOnce(on(0).databaseUrl, "bookings", requests);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    const env = {
      COOKIE_SECRET: cookieSecret,
      SMTP_URL: smtp.url,
      OWNER_EMAIL: "owner@example.com",
      BOOKING_TIMEZONE: ownerZone,
      BOOKINGS_PER_HOUR: "2",
    };
    instances = await startInstances(backend, env);
  });
  afterAll(async () => {
    for (const instance of instances.reverse()) await instance.close();
    await smtp?.close();
  });

  it("books one call an hour for a mailbox, and tells it once, however many ask for it at once", async () => {
    const days = await freeDays();
    const email = `at-once-${backend}@example.org`;
    const answers = await atOnce(
      days.slice(0, 4).map((day, i) => () => book(i, day[0] ?? "", email)),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 409, 409, 409]);
    // The others are refused in words that say nothing of what the address holds.
    const refused = answers.find((answer) => answer.statusCode === 409);
    expect(json(refused ?? { body: "" }, errorResponseSchema).error.code).toBe("not_booked");
    expect(await runSql(on(0), "select id from bookings where email = ?", [email])).toHaveLength(1);
    const told = "select id from outbox where kind = 'booking_not_made' and email = ?";
    expect(await runSql(on(0), told, [email])).toHaveLength(1);
  });

  it("refuses a connection at its most bookings alike, whatever the address it sends holds", async () => {
    const free = (await freeDays()).flat();
    // An address with its most calls ahead (3), none booked within the hour.
    const full = `full-${backend}@example.org`;
    for (const start of free.slice(20, 23)) {
      expect((await book(0, start, full)).statusCode).toBe(201);
      const before = new Date(Date.now() - 2 * 3_600_000).toISOString();
      await runSql(on(0), "update bookings set created_at = ? where email = ?", [before, full]);
      await runSql(
        on(0),
        "update bookings_made set made_at = ? where address_hash in (select address_hash from bookings where email = ?)",
        [before, full],
      );
    }
    // A connection that booked its two calls this hour, the second for `recent`.
    const from = `10.62.0.${backend.length}`;
    const recent = `recent-${backend}@example.org`;
    expect((await book(0, free[23] ?? "", `other-${backend}@example.org`, from)).statusCode).toBe(
      201,
    );
    expect((await book(1, free[24] ?? "", recent, from)).statusCode).toBe(201);
    const answer = async (email: string) => {
      const response = await book(0, free[25] ?? "", email, from);
      return [response.statusCode, response.headers["retry-after"], response.body];
    };
    const ahead = await answer(full);
    expect(ahead).toEqual(await answer(recent));
    expect(ahead[0]).toBe(429);
  });

  it("books BOOKINGS_PER_HOUR calls an hour from one connection, however many ask at once", async () => {
    // Days with a second free time: late in the owner's day, today may have one left.
    const days = (await freeDays()).filter((day) => day.length > 1);
    const answers = await atOnce(
      days
        .slice(0, 4)
        .map(
          (day, i) => () =>
            book(i, day[1] ?? "", `one-ip-${backend}-${i}@example.org`, "10.62.0.1"),
        ),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 201, 429, 429]);
    const refused = answers.find((answer) => answer.statusCode === 429);
    expect(json(refused ?? { body: "" }, errorResponseSchema).error.message).toContain(
      "Too many calls were booked from your connection",
    );
    const stored = await runSql(on(0), "select id from bookings where email like ?", [
      `one-ip-${backend}-%`,
    ]);
    expect(stored).toHaveLength(2);
  });

  it("gives a time pressed by four readers at once to one, tells the others with the times left, and frees it when cancelled", async () => {
    const start = (await freeDays())[5]?.[2] ?? "";
    const readers = [0, 1, 2, 3].map((i) => `same-time-${backend}-${i}@example.org`);
    const answers = await atOnce(readers.map((email, i) => () => book(i, start, email)));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 409, 409, 409]);
    for (const refused of answers.filter((answer) => answer.statusCode === 409)) {
      const { error } = json(refused, bookingConflictResponseSchema);
      expect(error.code).toBe("slot_taken");
      expect(error.message).toBe("That time was just taken. Choose another of the free times.");
      expect(error.slots?.starts.length).toBeGreaterThan(10);
      expect(error.slots?.starts).not.toContain(start);
    }
    expect(
      await runSql(on(0), "select id from bookings where starts_at = ?", [start]),
    ).toHaveLength(1);

    // Its reader cancels: the time is free again, on every instance.
    const winner = readers[answers.findIndex((answer) => answer.statusCode === 201)] ?? "";
    await smtp.waitFor(() => smtp.to(winner).length > 0);
    const token = /\/book\/cancel\?token=([A-Za-z0-9_-]{43})/.exec(
      smtp.to(winner)[0]?.parsed.text ?? "",
    )?.[1];
    const cancelled = await on(1).app.inject({
      method: "POST",
      url: "/book/cancel",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ token: token ?? "" }).toString(),
    });
    expect(cancelled.statusCode).toBe(200);
    for (const instance of instances) {
      const { starts } = json(
        await instance.visitor().get("/api/bookings/slots"),
        slotsResponseSchema,
      );
      expect(starts).toContain(start);
    }
    expect((await book(0, start, `after-${backend}@example.org`)).statusCode).toBe(201);
  });

  it("keeps a day to its most calls, booked at once or moved into it at once", async () => {
    await runSql(
      on(0),
      "insert into booking_settings (id, availability, updated_at) values (1, ?, ?) on conflict (id) do update set availability = excluded.availability",
      [JSON.stringify({ ...defaultAvailability, dailyMax: 2 }), new Date().toISOString()],
    );
    // Late days, where the test above booked nothing, but not the last, which the horizon cuts.
    const [full, into, from1, from2] = (await freeDays()).slice(-5, -1) as string[][];
    const answers = await atOnce(
      [0, 1, 2, 3].map((i) => () => book(i, full?.[i] ?? "", `day-${backend}-${i}@example.org`)),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 201, 409, 409]);
    expect(await bookedOn(full ?? [])).toHaveLength(2);

    // A day with one call, and two calls from other days moved into it at once.
    expect((await book(0, into?.[0] ?? "", `into-${backend}@example.org`)).statusCode).toBe(201);
    const movers = [from1?.[0] ?? "", from2?.[0] ?? ""].map((start, i) => ({
      start,
      email: `mover-${backend}-${i}@example.org`,
    }));
    for (const [i, mover] of movers.entries()) {
      expect((await book(i, mover.start, mover.email)).statusCode).toBe(201);
    }
    await smtp.waitFor(() => movers.every((mover) => smtp.to(mover.email).length > 0));
    const moved = await atOnce(
      movers.map((mover, i) => () => {
        const token = /\/book\/reschedule\?token=([A-Za-z0-9_-]{43})/.exec(
          smtp.to(mover.email)[0]?.parsed.text ?? "",
        )?.[1];
        return on(i).app.inject({
          method: "POST",
          url: "/book/reschedule",
          headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
          payload: new URLSearchParams({
            token: token ?? "",
            start: into?.[i + 1] ?? "",
          }).toString(),
        });
      }),
    );
    // The one refused is led to the move page that says the time was taken.
    expect(moved.map((answer) => answer.statusCode).sort()).toEqual([200, 303]);
    const refused = moved.find((answer) => answer.statusCode === 303);
    expect(String(refused?.headers.location)).toMatch(/[?&]refused=taken(&|$)/);
    expect(await bookedOn(into ?? [])).toHaveLength(2);
  });
});
