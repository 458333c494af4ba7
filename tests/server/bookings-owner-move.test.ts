import pg from "pg";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { errorResponseSchema } from "../../contract/api.ts";
import {
  bookingSchema,
  defaultAvailability,
  feedResponseSchema,
  moveTimesResponseSchema,
} from "../../contract/bookings.ts";
import { auditEntrySchema } from "../../contract/console.ts";
import { dateKey, wallTime } from "../../contract/time-zones.ts";
import { linkTokens } from "../../server/bookings/stored.ts";
import { calendarOfMail, readCalendar } from "../support/calendar.ts";
import { admin, adminAt } from "./support/admin.ts";
import { aged, cookieSecret, owner, ownerSideApp, ownerZone } from "./support/bookings.ts";
import { movableClock } from "./support/clock.ts";
import type { Owner } from "./support/owner.ts";
import type { ReceivedMail, SmtpSink } from "./support/smtp.ts";
import { lockWaiters, runSql } from "./support/sql.ts";
import { backends, json, siteUrl, type TestApp } from "./support/test-app.ts";

/*
 * The owner moves a booked call (docs/product.md, "Book a call"): from the console's API and
 * the command line, one owner action; the reader is sent the moved invitation (the same UID,
 * SEQUENCE one higher, METHOD:REQUEST) saying the owner moved it and why, their links work
 * still, and their own allowance of moves is untouched. A reader's move or booking at the
 * same moment: one wins, the other is told, nothing is booked twice.
 */

const invitationOf = (mail: ReceivedMail | undefined) => {
  const calendar = calendarOfMail(mail);
  if (!calendar) throw new Error("no calendar in the mail");
  return calendar;
};
const linkOf = (mail: ReceivedMail | undefined, path: "cancel" | "reschedule") =>
  new RegExp(`/book/${path}\\?token=([A-Za-z0-9_-]{43})`).exec(mail?.parsed.text ?? "")?.[1] ?? "";

describe.each(backends)("the owner's move of a call on %s", (backend) => {
  let smtp: SmtpSink;
  let t: TestApp;
  let env: Record<string, string>;
  let ownerBrowser: Owner;
  const clock = movableClock();
  const { freeStarts, upcoming, book } = ownerSideApp(backend, clock, "owner-move", (side) => {
    ({ t, smtp, env, owner: ownerBrowser } = side);
  });
  const timesFor = async (id: number) => {
    const response = await ownerBrowser.get(`/api/admin/bookings/${id}/times`);
    expect(response.statusCode, response.body).toBe(200);
    return json(response, moveTimesResponseSchema);
  };
  const move = (id: number, body: Record<string, unknown>) =>
    ownerBrowser.post(`/api/admin/bookings/${id}/move`, body);
  const readerMove = (token: string, start: string) =>
    t.app.inject({
      method: "POST",
      url: "/book/reschedule",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ token, start, zone: "America/New_York" }).toString(),
    });
  const lines = async (object: string) =>
    auditEntrySchema
      .array()
      .parse(JSON.parse((await admin(env, "audit", "--json")).stdout))
      .filter((entry) => entry.action === "booking move" && entry.object === object);
  const put = (body: unknown) =>
    ownerBrowser.request("PUT", "/api/admin/bookings/availability", body as never);

  it("moves a call to a free time: the reader's invitation moves with a line and the reason, their links work still", async () => {
    const free = await freeStarts();
    const call = await book(free[20] ?? "");
    const first = smtp.to(call.email)[0];
    const target = free[24] ?? "";
    expect((await timesFor(call.id)).starts).toContain(target);
    const reason = "I am ill on Tuesday <b>sorry</b>";
    const moved = await move(call.id, { start: target, reason });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(json(moved, z.object({ booking: bookingSchema })).booking).toMatchObject({
      start: target,
      moves: 0,
      ownerMoves: 1,
    });
    expect((await upcoming()).find((b) => b.id === call.id)?.start).toBe(target);
    // The old time is free again for readers; the new one is not.
    const after = await freeStarts();
    expect(after).toContain(free[20]);
    expect(after).not.toContain(target);

    await smtp.waitFor(
      () =>
        smtp.to(call.email).length === 2 &&
        smtp.to(owner).some((m) => m.parsed.text?.includes("You moved this call")),
    );
    const mail = smtp.to(call.email)[1];
    const before = invitationOf(first);
    const now = invitationOf(mail);
    expect(now.method).toBe("REQUEST");
    expect(now.event.uid).toBe(before.event.uid);
    expect(now.event.sequence).toBe(1);
    expect(now.event.start.toISOString()).toBe(target);
    expect(mail?.parsed.text).toContain(`moved your call: ${reason}`);
    expect(mail?.parsed.html).toContain("I am ill on Tuesday &lt;b&gt;sorry&lt;/b&gt;");
    expect(mail?.parsed.html).not.toContain("<b>sorry");
    // The reason is the reader's mail's, not their calendar's.
    expect(JSON.stringify(now)).not.toContain("ill on Tuesday");
    const ownerCopy = smtp.to(owner).find((m) => m.parsed.text?.includes("You moved this call"));
    expect(invitationOf(ownerCopy).event.start.toISOString()).toBe(target);
    expect(invitationOf(ownerCopy).event.sequence).toBe(1);

    // The reader's links, old and new alike, work for the new time.
    expect(linkOf(mail, "reschedule")).toBe(linkOf(first, "reschedule"));
    const page = await t.visitor().get(`/book/reschedule?token=${linkOf(first, "reschedule")}`);
    expect(page.statusCode).toBe(200);
    expect(await lines(`booking ${call.id}`)).toHaveLength(1);
  });

  it("does not count the owner's moves against the reader's own three", async () => {
    const free = await freeStarts();
    const call = await book(free[30] ?? "");
    const uid = invitationOf(smtp.to(call.email)[0]).event.uid;
    for (const at of [free[31], free[32]]) {
      expect((await move(call.id, { start: at })).statusCode).toBe(200);
    }
    const links = linkTokens(cookieSecret);
    // Three moves of the reader's own, each with its mail's new link; a fourth is refused.
    for (const [moves, at] of [free[33], free[34], free[35]].entries()) {
      const answer = await readerMove(links({ uid, sequence: moves }), at ?? "");
      expect(answer.statusCode, answer.body).toBe(200);
    }
    const spent = await t.visitor().get(`/book/reschedule?token=${links({ uid, sequence: 3 })}`);
    expect(spent.statusCode).toBe(409);
    expect((await upcoming()).find((b) => b.id === call.id)).toMatchObject({
      start: free[35],
      moves: 3,
      ownerMoves: 2,
    });
  });

  it("offers the owner the times within the notice and on a full day, never over another call", async () => {
    const free = await freeStarts();
    // Two free times of one day, past those the tests above book: which
    // indices share a day depends on the hour the test runs at.
    const day = (iso = "") => dateKey(Date.parse(iso), ownerZone);
    const i = free.findIndex((start, at) => at >= 36 && day(start) === day(free[at + 1]));
    const [a, b] = [free[i] ?? "", free[i + 1] ?? ""];
    expect(i + 1).toBeLessThan(50);
    const first = await book(a);
    const second = await book(b);
    expect(dateKey(Date.parse(a), ownerZone)).toBe(dateKey(Date.parse(b), ownerZone));
    const tight = { ...defaultAvailability, noticeHours: 96, dailyMax: 2 };
    expect((await put(tight)).statusCode).toBe(200);
    try {
      const readersSee = await freeStarts();
      const { starts } = await timesFor(first.id);
      // Every time a reader may book, and more: within the notice, and on the full day.
      expect(readersSee.every((start) => starts.includes(start))).toBe(true);
      expect(starts.some((start) => Date.parse(start) < Date.parse(readersSee[0] ?? ""))).toBe(
        true,
      );
      const sameDay = starts.filter(
        (s) => dateKey(Date.parse(s), ownerZone) === dateKey(Date.parse(a), ownerZone),
      );
      expect(sameDay.length).toBeGreaterThan(0);
      expect(readersSee.some((s) => sameDay.includes(s))).toBe(false);
      // Never the other call's time, nor its own.
      expect(starts).not.toContain(b);
      expect(starts).not.toContain(a);
      const taken = await move(first.id, { start: b });
      expect(taken.statusCode).toBe(409);
      expect(json(taken, errorResponseSchema).error.message).toContain("not one of the free times");
      expect((await move(first.id, { start: a })).statusCode).toBe(409);
      const soon = starts[0] ?? "";
      expect((await move(second.id, { start: soon })).statusCode).toBe(200);
      expect((await upcoming()).find((call) => call.id === second.id)?.start).toBe(soon);
    } finally {
      expect((await put(defaultAvailability)).statusCode).toBe(200);
    }
  });

  it("refuses a bad reason, a call that is not there or was cancelled, and changes nothing", async () => {
    const free = await freeStarts();
    const call = await book(free[50] ?? "");
    const target = free[51] ?? "";
    for (const reason of ["x".repeat(201), "two\nlines", "turned\u202earound"]) {
      expect((await move(call.id, { start: target, reason })).statusCode).toBe(400);
    }
    expect((await move(call.id, { start: "tomorrow" })).statusCode).toBe(400);
    expect((await move(999_999, { start: target })).statusCode).toBe(404);
    expect((await ownerBrowser.get("/api/admin/bookings/999999/times")).statusCode).toBe(404);
    expect((await upcoming()).find((b) => b.id === call.id)?.start).toBe(call.start);
    expect(await lines(`booking ${call.id}`)).toHaveLength(0);
    expect((await ownerBrowser.post(`/api/admin/bookings/${call.id}/cancel`, {})).statusCode).toBe(
      200,
    );
    const cancelled = await move(call.id, { start: target });
    expect(cancelled.statusCode).toBe(409);
    expect(json(cancelled, errorResponseSchema).error.message).toContain("cancelled");
  });

  it("lets one of a reader's move and the owner's win, and tells the other", async () => {
    const free = await freeStarts();
    const call = await book(free[60] ?? "");
    const token = linkOf(smtp.to(call.email)[0], "reschedule");
    // On PostgreSQL the test holds every write to bookings until both have checked the call
    // as it was and wait to write: then they truly meet, and one must lose.
    const hold = backend === "postgres" ? new pg.Client(t.databaseUrl) : undefined;
    await hold?.connect();
    await hold?.query("begin; lock table bookings in share mode");
    const answers = Promise.all([
      move(call.id, { start: free[61] }),
      readerMove(token, free[62] ?? ""),
    ]);
    if (hold) await expect.poll(() => lockWaiters(t), { timeout: 15_000 }).toBe(2);
    await hold?.query("commit");
    await hold?.end();
    const [ownerAnswer, readerAnswer] = await answers;
    // One wins; the other is told: the owner that the reader moved it meanwhile, the reader
    // sent back (303) to the move page that says the time was taken. Both win only one after
    // the other, each move made on the call as the other left it.
    const ownerWon = ownerAnswer.statusCode === 200;
    const readerWon = readerAnswer.statusCode === 200;
    if (!ownerWon) {
      expect(ownerAnswer.statusCode).toBe(409);
      expect(json(ownerAnswer, errorResponseSchema).error.message).toContain("meanwhile");
    }
    if (!readerWon) {
      expect(readerAnswer.statusCode, readerAnswer.body).toBe(303);
      expect(readerAnswer.headers.location).toContain("refused=taken");
    }
    expect(ownerWon || readerWon).toBe(true);
    if (hold) expect(ownerWon).not.toBe(readerWon);
    const now = (await upcoming()).find((b) => b.id === call.id);
    expect(now).toMatchObject({ moves: readerWon ? 1 : 0, ownerMoves: ownerWon ? 1 : 0 });
    if (ownerWon !== readerWon) expect(now?.start).toBe(ownerWon ? free[61] : free[62]);
    else expect([free[61], free[62]]).toContain(now?.start);
    // Whichever time it holds, the other is free, and the one it left.
    const left = await freeStarts();
    for (const start of [free[60], free[61], free[62]]) {
      expect(left.includes(start ?? ""), start).toBe(start !== now?.start);
    }
    // And a reader booking the very time the owner moves a call to: one of them has it.
    const other = await book(free[63] ?? "");
    const target = free[64] ?? "";
    const [owner2, reader2] = await Promise.all([
      move(other.id, { start: target }),
      t.visitor({ ip: "10.8.1.1" }).post("/api/bookings", {
        start: target,
        name: "Racer",
        email: `owner-move-racer-${backend}@example.org`,
        service: "dfmea",
        note: "",
        zone: "Europe/London",
        formToken: aged(),
      }),
    ]);
    expect([
      [200, 409],
      [409, 201],
    ]).toContainEqual([owner2.statusCode, reader2.statusCode]);
    const atTarget = (await upcoming()).filter((b) => b.status === "booked" && b.start === target);
    expect(atTarget).toHaveLength(1);
  });

  it("shows the new time in the calendar feed, without the reason", async () => {
    const made = await ownerBrowser.post("/api/admin/bookings/feed");
    const feed = json(made, feedResponseSchema).url.slice(siteUrl.length);
    try {
      const free = await freeStarts();
      const call = await book(free[70] ?? "");
      const target = free[71] ?? "";
      const reason = "A workshop ran over";
      expect((await move(call.id, { start: target, reason })).statusCode).toBe(200);
      const body = (await t.visitor().get(feed)).body;
      const uid = invitationOf(smtp.to(call.email)[0]).event.uid;
      const event = readCalendar(body).events.find((e) => e.uid === uid);
      expect(event?.start.toISOString()).toBe(target);
      expect(event?.sequence).toBe(1);
      expect(body).not.toContain(reason);
    } finally {
      await ownerBrowser.request("DELETE", "/api/admin/bookings/feed");
    }
  });

  it("takes out the owner's calendar copy mailed before the feed when the call moves: once, by its UID and new SEQUENCE", async () => {
    const free = await freeStarts();
    const call = await book(free[90] ?? "");
    const readers = await book(free[95] ?? "");
    /** The owner's mail of a call at `sequence`: the first, or a move's. */
    const ownerMail = async (sequence: number, of = call) => {
      const id = (m: ReceivedMail) =>
        m.parsed.messageId?.startsWith(
          sequence === 0 ? "<owner.booking." : `<owner.moved-${sequence}.`,
        );
      const mail = () =>
        smtp.to(owner).find((m) => id(m) && m.parsed.subject?.includes(`${of.name}:`));
      await smtp.waitFor(() => mail() !== undefined);
      return mail();
    };
    // Booked while no feed stood: the owner's calendar took the calls from the mails.
    const copy = invitationOf(await ownerMail(0));
    expect(copy.method).toBe("PUBLISH");
    const readersCopy = invitationOf(await ownerMail(0, readers));
    const made = await ownerBrowser.post("/api/admin/bookings/feed");
    const feed = json(made, feedResponseSchema).url.slice(siteUrl.length);
    try {
      expect((await move(call.id, { start: free[91] })).statusCode).toBe(200);
      const moved = await ownerMail(1);
      const cancel = invitationOf(moved);
      expect([cancel.method, cancel.partMethod]).toEqual(["CANCEL", "CANCEL"]);
      expect(cancel.event.uid).toBe(copy.event.uid);
      expect(cancel.event.sequence).toBe(1);
      expect(moved?.parsed.text).toContain(
        "takes out of your calendar the copy an earlier mail put there",
      );
      // The feed has the call at its new time, under the same UID, a calendar of its own.
      const event = readCalendar((await t.visitor().get(feed)).body).events.find(
        (e) => e.uid === copy.event.uid,
      );
      expect(event?.start.toISOString()).toBe(free[91]);
      expect(event?.sequence).toBe(1);
      // The reader's calendar is moved as ever.
      await smtp.waitFor(() => smtp.to(call.email).length === 2);
      expect(invitationOf(smtp.to(call.email)[1]).method).toBe("REQUEST");
      // Taken out once: the next move's mail carries no calendar file at all.
      expect((await move(call.id, { start: free[92] })).statusCode).toBe(200);
      expect(calendarOfMail(await ownerMail(2))).toBeNull();
      // A call its reader moves, from their mail, is taken out of the owner's calendar alike.
      const token = linkOf(smtp.to(readers.email)[0], "reschedule");
      expect((await readerMove(token, free[96] ?? "")).statusCode).toBe(200);
      const byReader = await ownerMail(1, readers);
      expect(byReader?.parsed.text).toContain("A reader moved their call from ");
      const taken = invitationOf(byReader);
      expect([taken.method, taken.event.uid, taken.event.sequence]).toEqual([
        "CANCEL",
        readersCopy.event.uid,
        1,
      ]);
    } finally {
      await ownerBrowser.request("DELETE", "/api/admin/bookings/feed");
    }
    // With the feed revoked, the owner's calendar is given the call again.
    expect((await move(call.id, { start: free[93] })).statusCode).toBe(200);
    const again = invitationOf(await ownerMail(3));
    expect([again.method, again.event.uid, again.event.sequence]).toEqual([
      "PUBLISH",
      copy.event.uid,
      3,
    ]);
    expect(again.event.start.toISOString()).toBe(free[93]);
  });

  it("moves from the command line, by a time in the owner's zone, and refuses a time not free with exit 2", async () => {
    const free = await freeStarts();
    const call = await book(free[80] ?? "");
    const blocker = await book(free[82] ?? "");
    const wall = (iso: string) => {
      const w = wallTime(Date.parse(iso), ownerZone);
      const two = (n: number) => String(n).padStart(2, "0");
      return `${w.year}-${two(w.month)}-${two(w.day)}T${two(w.hour)}:${two(w.minute)}`;
    };
    const id = String(call.id);
    const taken = await admin(env, "bookings", "move", id, "--to", wall(blocker.start));
    expect(taken.code, taken.stderr).toBe(2);
    expect(taken.stderr).toContain("not one of the free times");
    for (const to of ["next tuesday", "2026-02-31T10:00", "2026-12-09T25:00"]) {
      const refused = await admin(env, "bookings", "move", id, "--to", to);
      expect(refused.code, to).toBe(2);
      expect(refused.stderr).toContain("--to takes a time");
    }
    expect(
      (await admin(env, "bookings", "move", "999999", "--to", wall(free[81] ?? ""))).code,
    ).toBe(3);
    const moved = await admin(
      env,
      "bookings",
      "move",
      id,
      "--to",
      wall(free[81] ?? ""),
      "--reason",
      "Clash",
      "--json",
    );
    expect(moved.code, moved.stderr).toBe(0);
    // Its mail goes before the next move, which would take its place in the queue.
    await smtp.waitFor(() => smtp.to(call.email).length === 2);
    expect(smtp.to(call.email)[1]?.parsed.text).toContain("moved your call: Clash");
    expect(bookingSchema.parse(JSON.parse(moved.stdout))).toMatchObject({
      start: free[81],
      ownerMoves: 1,
    });
    // With an offset, the time is read as written.
    const utc = await admin(env, "bookings", "move", id, "--to", `${free[83]?.slice(0, 16)}Z`);
    expect(utc.code, utc.stderr).toBe(0);
    expect(utc.stdout).toContain(`Moved call ${id}`);
    const trail = await lines(`booking ${id}`);
    expect(trail).toHaveLength(2);
    expect(trail.every((line) => line.sessionId === null)).toBe(true);
    await smtp.waitFor(() => smtp.to(call.email).length === 3);
    expect(invitationOf(smtp.to(call.email)[2]).event.sequence).toBe(2);
    expect(await admin(env, "bookings", "cancel", id, "--yes")).toMatchObject({ code: 0 });
    expect((await admin(env, "bookings", "move", id, "--to", free[84] ?? "")).code).toBe(1);
  });

  it("refuses to move a call that has begun, from the console and the command line", async () => {
    const free = await freeStarts();
    const call = await book(free[1] ?? "");
    const mails = () =>
      runSql(t, "select id, kind from outbox where payload like ? order by id", [
        `{"bookingId":${call.id},%`,
      ]);
    const before = await mails();
    clock.advance(Date.parse(call.start) - clock.now().getTime() + 60_000);
    const late = await move(call.id, { start: free[90] });
    expect(late.statusCode).toBe(409);
    expect(json(late, errorResponseSchema).error.message).toContain("has begun");
    const to = `${free[90]?.slice(0, 16)}Z`;
    const cli = await adminAt({ env, clock: () => clock.now() }, [
      "bookings",
      "move",
      String(call.id),
      "--to",
      to,
      "--reason",
      "Clash",
    ]);
    expect(cli).toEqual({
      code: 1,
      stdout: "",
      stderr: "That call has begun or is over; it can no longer be moved.\n",
    });
    expect(await lines(`booking ${call.id}`)).toEqual([]);
    expect(await mails()).toEqual(before);
    // Nothing changed, and neither side is sent a new invitation.
    expect((await upcoming()).find((b) => b.id === call.id)).toMatchObject({
      status: "booked",
      start: call.start,
      moves: 0,
    });
    expect((await freeStarts()).includes(free[90] ?? "")).toBe(true);
    expect(smtp.to(call.email)).toHaveLength(1);
  });
});
