import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import { slotsResponseSchema } from "../../contract/bookings.ts";
import { deleteYourDataResponseSchema } from "../../contract/your-data.ts";
import { createBookingsRepository } from "../../server/bookings/repository.ts";
import { openStore } from "../../server/db/store.ts";
import { mailboxDigest } from "../../server/lib/mailbox.ts";
import { calendarOfMail } from "../support/calendar.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { aged, bookingsApp, cookieSecret, owner, ownerZone } from "./support/bookings.ts";
import { movableClock } from "./support/clock.ts";
import { Owner } from "./support/owner.ts";
import type { ReceivedMail, SmtpSink } from "./support/smtp.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, type TestApp, type Visitor } from "./support/test-app.ts";

/*
 * The bookings' hourly limits outlast the bookings' erasure
 * (docs/decisions/081-booking-limits-outlast-erasure.md): what they count is kept apart, as
 * keyed digests and a time, and "Your data" leaves it. Booking for an address, erasing the
 * booking and booking again is refused as a second booking would have been, and mails nothing
 * more; what is kept names nobody and is forgotten after the day.
 */

const hourMs = 3_600_000;
const isCancellation = (mail: ReceivedMail) => calendarOfMail(mail)?.method === "CANCEL";
const mailboxOf = mailboxDigest(cookieSecret, "booking reader address");

describe.each(backends)("the bookings' limits after Your data on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  const clock = movableClock();
  bookingsApp(backend, clock, { BOOKINGS_PER_HOUR: "2" }, (app) => ({ t, smtp } = app));
  let free: string[] = [];
  beforeAll(async () => {
    free = json(await t.visitor().get("/api/bookings/slots"), slotsResponseSchema).starts;
  });
  let next = 0;
  /** The next free time of the list, for a booking of its own. */
  const time = () => {
    next += 1;
    return free[next] ?? "";
  };

  const book = (from: Visitor, email: string, start = time()) =>
    from.post("/api/bookings", {
      start,
      name: "Zeta Quill",
      email,
      service: "dfmea",
      note: "A second opinion on our pump's DFMEA, please.",
      zone: "Asia/Kolkata",
      formToken: aged(),
    });
  /** What a refusal tells the form: its status, Retry-After and error, the free times aside. */
  const refusal = (response: Awaited<ReturnType<typeof book>>) => {
    const { code, message } = json(response, errorResponseSchema).error;
    return {
      status: response.statusCode,
      retryAfter: response.headers["retry-after"],
      code,
      message,
    };
  };
  const erase = async (from: Visitor) =>
    json(await from.post("/api/your-data/delete", { confirm: true }), deleteYourDataResponseSchema)
      .deleted.bookings;
  const stored = async (email: string) =>
    (await runSql(t, "select id from bookings where email = ?", [email])).length;
  const queued = async (email: string) =>
    (await runSql(t, "select kind from outbox where email = ? and status = 'queued'", [email]))
      .length;
  const made = async () => (await runSql(t, "select * from bookings_made")).length;

  it("refuses a mailbox's second booking of the hour alike when the first was erased, and mails it nothing more", async () => {
    // What a second booking for a mailbox within the hour is told, nothing erased.
    const control = `control-${backend}@example.org`;
    expect((await book(t.visitor({ ip: "10.71.0.1" }), control)).statusCode).toBe(201);
    const expected = refusal(await book(t.visitor({ ip: "10.71.0.2" }), control));
    expect(expected).toMatchObject({ status: 409, code: "not_booked" });

    // Someone books for a stranger's address, erases it through Your data, and books again.
    const victim = `victim-${backend}@example.org`;
    const attacker = t.visitor({ ip: "10.71.1.1" });
    expect((await book(attacker, victim)).statusCode).toBe(201);
    // Its invitation in first: an erasure before it went would mail the address nothing.
    await smtp.waitFor(() => smtp.to(victim).length === 1);
    expect(await erase(attacker)).toBe(1);
    expect(await stored(victim)).toBe(0);
    // Its calendar hears of the erasure: the booking's cancellation, nothing queued after it.
    await smtp.waitFor(() => smtp.to(victim).some(isCancellation));
    await waitFor(async () => (await queued(victim)) === 0, { what: "the cancellation sent" });
    const mailed = smtp.to(victim).length;
    const before = await made();
    const [last] = await runSql(t, "select max(id) as id from outbox");
    const queuedSince = "select kind from outbox where id > ?";
    for (let round = 0; round < 4; round += 1) {
      // A browser of its own each round, on another connection: the mailbox's limit is its own.
      const again = t.visitor({ ip: `10.71.2.${round}` });
      expect(refusal(await book(again, victim))).toEqual(expected);
      expect(await erase(again)).toBe(0);
    }
    expect(await stored(victim)).toBe(0);
    expect(await made()).toBe(before);
    // Nothing for the owner either: no invitation, no reminder.
    const since = (await runSql(t, queuedSince, [Number(last?.id)])).map((row) => row.kind);
    expect(since.filter((kind) => kind !== "booking_not_made")).toEqual([]);
    // The mailbox is told once that a booking was not made, as it would be without the
    // erasure, and sent no invitation.
    await smtp.waitFor(() => smtp.to(victim).length > mailed);
    await waitFor(async () => (await queued(victim)) === 0, { what: "the news sent" });
    const news = smtp.to(victim).slice(mailed);
    expect(news.map((mail) => mail.parsed.subject)).toEqual([
      "Your call with Arjun Rao was not booked",
    ]);
    expect(news.map(calendarOfMail)).toEqual([null]);
  });

  it("refuses a connection past BOOKINGS_PER_HOUR alike when its bookings were erased, storing and mailing nothing", async () => {
    const bookTwice = async (from: Visitor, name: string) => {
      for (const i of [1, 2]) {
        expect((await book(from, `${name}-${i}-${backend}@example.org`)).statusCode).toBe(201);
      }
    };
    const control = t.visitor({ ip: "10.72.0.1" });
    await bookTwice(control, "kept");
    const expected = refusal(await book(control, `kept-3-${backend}@example.org`));
    expect(expected).toMatchObject({ status: 429, retryAfter: "3600", code: "rate_limited" });

    const attacker = t.visitor({ ip: "10.72.0.2" });
    await bookTwice(attacker, "erased");
    expect(await erase(attacker)).toBe(2);
    const before = await made();
    for (const round of [3, 4, 5]) {
      const third = `erased-${round}-${backend}@example.org`;
      expect(refusal(await book(attacker, third))).toEqual(expected);
      // A fresh browser on the same connection is the same connection.
      expect(refusal(await book(t.visitor({ ip: "10.72.0.2" }), third))).toEqual(expected);
      expect(await stored(third)).toBe(0);
      expect(await runSql(t, "select id from outbox where email = ?", [third])).toEqual([]);
      expect(smtp.to(third)).toEqual([]);
    }
    expect(await made()).toBe(before);
  });

  it("keeps of a booking only keyed digests and its time, and forgets them after the day", async () => {
    const email = `Kept.Digest+${backend}@example.org`;
    expect((await book(t.visitor({ ip: "10.73.0.1" }), email)).statusCode).toBe(201);
    const rows = await runSql(t, "select * from bookings_made where address_hash = ?", [
      mailboxOf(email),
    ]);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(Object.keys(row ?? {}).sort()).toEqual([
      "address_hash",
      "ip_hash",
      "made_at",
      "network_hash",
    ]);
    // Neither the address, nor the name, nor the connection, in any spelling.
    const kept = JSON.stringify(await runSql(t, "select * from bookings_made")).toLowerCase();
    for (const word of ["kept.digest", "keptdigest", "example.org", "zeta", "quill"]) {
      expect(kept).not.toContain(word);
    }
    // Any of the file's addresses (10.7x.y.z), which a time's "10.7" seconds must not pass for.
    expect(kept).not.toMatch(/10\.7\d\.\d/);

    // An hour on, the mailbox may be booked again; retention keeps what the day holds.
    clock.advance(hourMs + 60_000);
    expect((await book(t.visitor({ ip: "10.73.0.2" }), email)).statusCode).toBe(201);
    const dayOn = () => new Date(clock.now().getTime() + 24 * hourMs - 30 * 60_000);
    const store = await openStore(
      t.databaseUrl
        ? { kind: "postgres", connectionString: t.databaseUrl }
        : { kind: "sqlite", file: path.join(t.dataDir, "engage.sqlite") },
    );
    try {
      await createBookingsRepository(store, clock.now).prune(180);
      expect(
        await runSql(t, "select 1 from bookings_made where address_hash = ?", [mailboxOf(email)]),
      ).toHaveLength(2);
      // A day after the first, retention forgets it, and keeps the one of the hour after.
      await createBookingsRepository(store, dayOn).prune(180);
    } finally {
      await store.close();
    }
    const left = await runSql(t, "select made_at from bookings_made");
    expect(left.length).toBeGreaterThan(0);
    const dayAgo = dayOn().getTime() - 24 * hourMs;
    for (const each of left) expect(Date.parse(String(each.made_at))).toBeGreaterThan(dayAgo);
    expect(
      await runSql(t, "select 1 from bookings_made where address_hash = ?", [mailboxOf(email)]),
    ).toHaveLength(1);
    // The bookings themselves are the retention's to delete, after their days.
    expect(await stored(email)).toBe(2);
  });

  it("does not hold the owner's moves of a connection's calls to its limits, nor count them", async () => {
    const from = t.visitor({ ip: "10.74.0.1" });
    const emails = [1, 2].map((i) => `moved-${i}-${backend}@example.org`);
    for (const email of emails) expect((await book(from, email)).statusCode).toBe(201);
    expect(refusal(await book(from, `moved-3-${backend}@example.org`)).status).toBe(429);
    const ids = await Promise.all(
      emails.map(async (email) =>
        String((await runSql(t, "select id from bookings where email = ?", [email]))[0]?.id),
      ),
    );
    const before = await made();
    const signedIn = new Owner(t);
    expect((await signedIn.signIn()).statusCode).toBe(200);
    const moved = await signedIn.post(`/api/admin/bookings/${ids[0]}/move`, { start: time() });
    expect(moved.statusCode, moved.body).toBe(200);
    const env = { ...adminEnv(t), OWNER_EMAIL: owner, BOOKING_TIMEZONE: ownerZone };
    const cli = await admin(env, "bookings", "move", ids[1] ?? "", "--to", time());
    expect(cli.code, cli.stderr).toBe(0);
    expect(await made()).toBe(before);
  });

  it("mails an address booked for by a stranger, erased and booked again each hour, three invitations a day and one word of the rest", async () => {
    // The file's last test: it moves the clock a day on. Late in the list: past the notice.
    const late = (round: number) => free[free.length - 1 - round] ?? "";
    const victim = `daily-${backend}@example.org`;
    const invitations = () =>
      smtp.to(victim).filter((mail) => calendarOfMail(mail)?.method === "REQUEST");
    const statuses: number[] = [];
    for (let round = 0; round < 6; round += 1) {
      // Each hour a browser of its own, on a connection of its own, then erased.
      const attacker = t.visitor({ ip: `10.75.0.${round}` });
      const answer = await book(attacker, victim, late(round));
      statuses.push(answer.statusCode);
      if (answer.statusCode !== 201) expect(refusal(answer)).toMatchObject({ code: "not_booked" });
      // Erased once its invitation is in the mailbox: a queued one would go with the booking.
      const booked = statuses.filter((status) => status === 201).length;
      await smtp.waitFor(() => invitations().length === booked);
      await erase(attacker);
      clock.advance(hourMs + 60_000);
    }
    expect(statuses).toEqual([201, 201, 201, 409, 409, 409]);
    const notBooked = (mail: ReceivedMail) => mail.parsed.subject?.includes("was not booked");
    await smtp.waitFor(() => smtp.to(victim).some(notBooked));
    await waitFor(async () => (await queued(victim)) === 0, { what: "the mails sent" });
    expect(smtp.to(victim).filter(notBooked)).toHaveLength(1);
    expect(
      smtp.to(victim).filter((mail) => calendarOfMail(mail)?.method === "REQUEST"),
    ).toHaveLength(3);
    const [news] = smtp.to(victim).filter(notBooked);
    expect(news?.parsed.text).toContain("Three calls were booked for this address in the last day");
    // A day after the first, the address may be booked again.
    clock.advance(19 * hourMs);
    expect((await book(t.visitor({ ip: "10.75.1.1" }), victim, late(7))).statusCode).toBe(201);
  });
});
