import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { errorResponseSchema } from "../../contract/api.ts";
import {
  bookedResponseSchema,
  bookingConflictResponseSchema,
  bookingsResponseSchema,
  feedResponseSchema,
  slotsResponseSchema,
} from "../../contract/bookings.ts";
import { momentLabel, wallTime } from "../../contract/time-zones.ts";
import { deleteYourDataResponseSchema, yourDataResponseSchema } from "../../contract/your-data.ts";
import { createBookingsRepository } from "../../server/bookings/repository.ts";
import { openStore } from "../../server/db/store.ts";
import { tokenDigest } from "../../server/lib/tokens.ts";
import { calendarOfMail, lineProblems, readCalendar } from "../support/calendar.ts";
import { createDatabase, dropDatabase } from "../support/postgres.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import {
  aged,
  bookingsApp,
  cookieSecret,
  formTokens,
  owner,
  ownerZone,
} from "./support/bookings.ts";
import { movableClock } from "./support/clock.ts";
import { dom } from "./support/html.ts";
import { Owner } from "./support/owner.ts";
import { signedExport } from "./support/signed-export.ts";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  freshItem,
  json,
  siteUrl,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

const hourMs = 3_600_000;

/** What the tests change in an export file. */
type ExportFile = {
  exportedAt: string;
  tables: { bookings: { email: string; starts_at: string; ends_at: string }[] };
};

/** The one calendar event of a mail's invitation, read back as a calendar program reads it. */
function invitation(mail: ReceivedMail | undefined) {
  const calendar = calendarOfMail(mail);
  expect(calendar, "the mail carries an invitation").not.toBeNull();
  if (!calendar) throw new Error("no calendar file in the mail");
  return calendar;
}

/**
 * A booked call's mail by the news its first line gives ("Reminder: the call is tomorrow."):
 * every mail of a call to one side has one subject, so that it reads as one conversation.
 */
const says = (news: string) => (mail: ReceivedMail | undefined) =>
  mail?.parsed.text?.includes(news) ?? false;
const isReminder = says("Reminder: the call is ");
const isCancellation = (mail: ReceivedMail | undefined) =>
  calendarOfMail(mail)?.method === "CANCEL";

/** The reader's links in a mail, as its HTML shows them: the token of each, or null. */
function links(mail: ReceivedMail | undefined) {
  const anchors = [...dom(String(mail?.parsed.html || "")).querySelectorAll("a")];
  const token = (label: string) => {
    const href = anchors.find((a) => a.textContent === label)?.getAttribute("href");
    return href ? new URL(href).searchParams.get("token") : null;
  };
  return { move: token("Move the call"), cancel: token("Cancel the call") };
}

/** The starts of the first `count` days of `starts` in `zone`, as a reader there reads the dates. */
function firstDays(starts: string[], zone: string, count: number): string[] {
  const date = new Intl.DateTimeFormat("en-CA", { timeZone: zone });
  const days = [...new Set(starts.map((start) => date.format(Date.parse(start))))].slice(0, count);
  return starts.filter((start) => days.includes(date.format(Date.parse(start))));
}

let reader = 0;
type Booking = ReturnType<typeof booking>;
function booking(start: string, overrides: Record<string, unknown> = {}) {
  reader += 1;
  return {
    start,
    name: "Meera Iyer",
    email: `reader${reader}@example.org`,
    service: "dfmea",
    note: "Our DFMEA for a pump module keeps growing; I would like a second opinion.",
    zone: "Asia/Kolkata",
    formToken: aged(),
    ...overrides,
  };
}

describe.each(backends)("booking a call on %s", (backend) => {
  let smtp: SmtpSink;
  let t: TestApp;
  const clock = movableClock();
  let ip = 0;
  /** A browser on an address of its own, so the per-address limit stays out of the way. */
  const browser = () => t.visitor({ ip: `10.7.${Math.floor(++ip / 250)}.${ip % 250}` });
  const slots = async (zone = "") =>
    json(
      await browser().get(`/api/bookings/slots${zone ? `?zone=${zone}` : ""}`),
      slotsResponseSchema,
    );

  /** The booking form posted without JavaScript, from `remoteAddress`. */
  const postForm = (fields: Record<string, unknown>, remoteAddress: string) =>
    t.app.inject({
      method: "POST",
      url: "/book",
      remoteAddress,
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams(
        Object.entries(fields).map(([name, value]) => [name, String(value)]),
      ).toString(),
    });

  bookingsApp(
    backend,
    clock,
    { BOOKING_MEETING_URL: "https://meet.example.org/engineer" },
    (app) => ({ t, smtp } = app),
  );

  it("offers weekdays 10:00 to 17:00 in the owner's zone out of the box, from a day ahead to 30 days", async () => {
    const answer = await slots();
    expect(answer.ownerZone).toBe(ownerZone);
    expect(answer.zone).toBe(ownerZone);
    expect(answer.callMinutes).toBe(30);
    expect(answer.starts.length).toBeGreaterThan(100);
    const now = clock.now().getTime();
    for (const start of answer.starts) {
      const at = Date.parse(start);
      const wall = wallTime(at, ownerZone);
      expect(wall.weekday, start).toBeGreaterThanOrEqual(1);
      expect(wall.weekday, start).toBeLessThanOrEqual(5);
      const minutes = wall.hour * 60 + wall.minute;
      expect(minutes).toBeGreaterThanOrEqual(600);
      expect(minutes + 30).toBeLessThanOrEqual(17 * 60);
      expect(at).toBeGreaterThanOrEqual(now + 24 * hourMs - 60_000);
      expect(at).toBeLessThanOrEqual(now + 30 * 24 * hourMs + 60_000);
    }
    // An unknown zone is not an error: the times come in the owner's.
    expect((await slots("Mars/Olympus")).zone).toBe(ownerZone);
    expect((await slots(encodeURIComponent("+05:30"))).zone).toBe(ownerZone);
    // A browser's spelling of a zone of the list is that zone, by the list's name.
    expect((await slots("America/Argentina/Buenos_Aires")).zone).toBe("America/Buenos_Aires");
    expect((await slots("America/New_York")).zone).toBe("America/New_York");
  });

  it("lets search engines index the booking page, but no answer to a post or a bad zone", async () => {
    for (const url of ["/book", "/book?zone=America/New_York&service=dfmea"]) {
      const page = await browser().get(url);
      expect(page.statusCode).toBe(200);
      expect(page.headers["x-robots-tag"], url).toBeUndefined();
      expect(page.headers["cache-control"]).toBe("no-store");
    }
    const unknownZone = await browser().get("/book?zone=Mars/Olympus");
    expect(unknownZone.headers["x-robots-tag"]).toBe("noindex");
    const refused = await t.app.inject({
      method: "POST",
      url: "/book",
      remoteAddress: "10.9.0.2",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: "name=Meera",
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers["x-robots-tag"]).toBe("noindex");
    // What the reader sent, kept by their browser alone, so that Back shows it without posting again.
    expect(refused.headers["cache-control"]).toBe("private, no-cache");
  });

  it("writes a week of free times into /book, compressed, with a link to a week more, and the times alone in any zone for the page's script", async () => {
    const get = (url: string, headers: Record<string, string> = {}) =>
      t.app.inject({ method: "GET", url, remoteAddress: `10.8.0.${++ip % 250}`, headers });
    // The pages below are compared with one list of times: run the clock on to ten minutes past
    // a half hour's start, so that no time leaves the list (a day ahead) while the test reads.
    const halfHour = 30 * 60_000;
    clock.advance((10 * 60_000 - (clock.now().getTime() % halfHour) + halfHour) % halfHour);
    const all = (await slots()).starts;
    const offered = (html: string) =>
      [...dom(html).querySelectorAll("input[name=start]")].map((input) =>
        input.getAttribute("value"),
      );

    // The page goes out in brotli or gzip where the browser takes it, and says so to caches.
    const br = await get("/book", { "accept-encoding": "gzip, deflate, br" });
    expect(br.statusCode).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("accept-encoding");
    const page = brotliDecompressSync(br.rawPayload).toString("utf8");
    expect(br.rawPayload.length).toBeLessThan(page.length / 3);
    expect((await get("/book", { "accept-encoding": "gzip" })).headers["content-encoding"]).toBe(
      "gzip",
    );
    const plain = await get("/book");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(offered(plain.body)).toEqual(offered(page));

    // A week of days, in the owner's zone, and a link to the same page with a week more,
    // at the first day it adds.
    expect(offered(page)).toEqual(firstDays(all, ownerZone, 7));
    expect(dom(page).querySelectorAll(".booking-day")).toHaveLength(7);
    const more = dom(page).querySelector(".booking-times a");
    expect(more?.textContent).toBe("Show more days");
    expect(more?.getAttribute("href")).toBe(
      `/book?zone=${encodeURIComponent(ownerZone)}&days=14#day-8`,
    );
    const twoWeeks = await get(`/book?zone=America/New_York&service=dfmea&days=14`);
    expect(offered(twoWeeks.body)).toEqual(firstDays(all, "America/New_York", 14));
    expect(dom(twoWeeks.body).querySelector(".booking-times a")?.getAttribute("href")).toBe(
      "/book?zone=America%2FNew_York&service=dfmea&days=21#day-15",
    );
    expect(dom(twoWeeks.body).querySelectorAll(".booking-day")[7]?.id).toBe("day-8");
    // A post from that page lists as many days again, so the time chosen is still there.
    expect(dom(twoWeeks.body).querySelector("input[name=days]")?.getAttribute("value")).toBe("14");
    // Nonsense in `days` is a week.
    expect(offered((await get("/book?days=lots")).body)).toEqual(firstDays(all, ownerZone, 7));

    // The times alone: what the page's script asks for with the browser's zone.
    const times = await get("/book/times?zone=Asia/Calcutta&service=dfmea", {
      "accept-encoding": "br",
    });
    expect(times.statusCode).toBe(200);
    expect(times.headers["x-robots-tag"]).toBe("noindex");
    const fragment = dom(brotliDecompressSync(times.rawPayload).toString("utf8"));
    const list = fragment.querySelector("fieldset.booking-times");
    // V8's old name for the zone is answered with today's.
    expect(list?.getAttribute("data-zone")).toBe("Asia/Kolkata");
    expect(list?.querySelector("legend")?.textContent).toBe("Free times, in Asia / Kolkata");
    expect(offered(fragment.body.innerHTML)).toEqual(firstDays(all, "Asia/Kolkata", 7));
    expect(fragment.querySelector("form, select")).toBeNull();
    const unknown = await get("/book/times?zone=Mars/Olympus");
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain("That time zone is not known.");
  });

  it("books a time, mails both sides an invitation a calendar library reads, and takes the time off the list", async () => {
    const [start] = (await slots()).starts;
    const sent = booking(start ?? "");
    const response = await browser().post("/api/bookings", sent);
    expect(response.statusCode, response.body).toBe(201);
    const answer = json(response, bookedResponseSchema);
    expect(answer).toMatchObject({ booked: true, start, zone: "Asia/Kolkata", ownerZone });
    expect(Object.keys(answer).sort()).toEqual(["booked", "end", "ownerZone", "start", "zone"]);

    await smtp.waitFor(
      () =>
        smtp.to(sent.email).length > 0 &&
        smtp.to(owner).some((m) => m.parsed.text?.includes(sent.note)),
    );
    const mine = smtp.to(sent.email)[0];
    const theirs = smtp.to(owner).find((m) => m.parsed.text?.includes(sent.note));
    const readerInvite = invitation(mine);
    const ownerInvite = invitation(theirs);
    // The reader is invited; the owner, who organises the call, is sent it to keep.
    expect(readerInvite.method).toBe("REQUEST");
    expect(ownerInvite.method).toBe("PUBLISH");
    for (const invite of [readerInvite, ownerInvite]) {
      expect(invite.event.start.toISOString()).toBe(start);
      expect(invite.event.end?.toISOString()).toBe(
        new Date(Date.parse(start ?? "") + 30 * 60_000).toISOString(),
      );
      expect(invite.event.sequence).toBe(0);
      expect(invite.event.location).toBe("https://meet.example.org/engineer");
    }
    // The owner's address is not on MAIL_FROM's domain: the site may not send as the owner.
    expect(mine?.parsed.from?.value[0]?.address).toBe("newsletter@localhost");
    expect(readerInvite.event.uid).toBe(ownerInvite.event.uid);
    expect(readerInvite.event.uid).toMatch(/^booking\.[0-9a-f]{24}@ewe\.test$/);
    // Each calendar names the other side: the owner's, the reader (as the feed does).
    expect(ownerInvite.event.summary).toBe(`Call with ${sent.name}: DFMEA`);
    expect(readerInvite.event.summary).toMatch(/^Call with .+: DFMEA$/);
    // The reader's mail: the time in both zones, the links, and nothing they typed.
    expect(mine?.parsed.text).toMatch(/\/book\/cancel\?token=[A-Za-z0-9_-]{43}/);
    expect(mine?.parsed.text).toMatch(/\/book\/reschedule\?token=[A-Za-z0-9_-]{43}/);
    expect(mine?.parsed.text).toContain("(Asia / Kolkata, GMT+5:30)");
    // How long the call is, in words, as the booking page says it.
    for (const mail of [mine, theirs]) expect(mail?.parsed.text).toContain("Length: 30 minutes");
    for (const typed of [sent.note.slice(0, 20), sent.name]) {
      expect(mine?.parsed.text).not.toContain(typed);
      expect(readerInvite.text).not.toContain(typed);
    }
    expect(theirs?.parsed.replyTo?.value).toEqual([{ name: sent.name, address: sent.email }]);
    expect(theirs?.parsed.text).toContain(`${siteUrl}/admin/bookings`);
    // Personal data: in no live event and no public page.
    const events = (await runSql(t, "select data from events")).map((row) => String(row.data));
    for (const typed of [sent.email, sent.name, sent.note]) {
      expect(events.filter((data) => data.includes(typed))).toEqual([]);
      expect((await browser().get("/book")).body).not.toContain(typed);
    }

    expect((await slots()).starts).not.toContain(start);
    // The same time again, from another reader: taken.
    const again = await browser().post("/api/bookings", booking(start ?? ""));
    expect(again.statusCode).toBe(409);
    const conflict = json(again, bookingConflictResponseSchema).error;
    expect(conflict.code).toBe("slot_taken");
    expect(conflict.message).toContain("That time was just taken");
    // The free times left come with it, in the reader's zone, so the page need not ask again.
    expect(conflict.slots).toMatchObject({ zone: "Asia/Kolkata", ownerZone, callMinutes: 30 });
    expect(conflict.slots?.starts).toEqual((await slots()).starts);
    expect(conflict.slots?.starts).not.toContain(start);
  });

  it("takes a reader's zone in any case and keeps it by its name on the list", async () => {
    const [, , start, later] = (await slots()).starts;
    for (const [typed, at] of [
      ["asia/kolkata", start],
      ["ASIA/CALCUTTA", later],
    ] as const) {
      const sent = booking(at ?? "", { zone: typed });
      const response = await browser().post("/api/bookings", sent);
      expect(response.statusCode, response.body).toBe(201);
      expect(json(response, bookedResponseSchema).zone).toBe("Asia/Kolkata");
      expect(
        await runSql(t, "select reader_zone from bookings where email = ?", [sent.email]),
      ).toEqual([{ reader_zone: "Asia/Kolkata" }]);
      await smtp.waitFor(() => smtp.to(sent.email).length > 0);
      expect(smtp.to(sent.email)[0]?.parsed.text).toContain("(Asia / Kolkata, GMT+5:30)");
    }
    // The free times, the page and its script's list name it so too: no option of its own.
    expect((await slots("asia/kolkata")).zone).toBe("Asia/Kolkata");
    const get = (url: string) =>
      t.app.inject({ method: "GET", url, remoteAddress: `10.8.1.${++ip % 250}` });
    for (const url of ["/book?zone=asia/kolkata", "/book/times?zone=ASIA/CALCUTTA"]) {
      const page = dom((await get(url)).body);
      const list = page.querySelector("fieldset.booking-times");
      expect(list?.getAttribute("data-zone"), url).toBe("Asia/Kolkata");
      expect(list?.querySelector("legend")?.textContent).toBe("Free times, in Asia / Kolkata");
      expect(list?.querySelector("a")?.getAttribute("href")).toBe(
        "/book?zone=Asia%2FKolkata&days=14#day-8",
      );
    }
    const select = dom((await get("/book?zone=asia/kolkata")).body).querySelector(
      "select[name=zone]",
    );
    expect(select?.querySelector("option[selected]")?.getAttribute("value")).toBe("Asia/Kolkata");
    expect(select?.querySelector('option[value="asia/kolkata"]')).toBeNull();
    // A zone unknown in any case is still refused, saying so.
    const unknown = await browser().post(
      "/api/bookings",
      booking(start ?? "", { zone: "mars/olympus" }),
    );
    expect(unknown.statusCode).toBe(400);
    expect(json(unknown, errorResponseSchema).error.message).toContain(
      "Choose a time zone from the list.",
    );
  });

  it("sends an invitation queued by the code before with the links its row holds", async () => {
    // Until the links' token was made from the site's secret as each mail goes, the
    // invitation's row carried it and the call its digest: such a row, still queued at
    // an upgrade (retrying) or from a restored backup, goes with the links that work.
    const [start] = (await slots()).starts;
    const sent = booking(start ?? "");
    expect((await browser().post("/api/bookings", sent)).statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(sent.email).length === 1);
    const olderToken = "q".repeat(43);
    await runSql(t, "update bookings set token_hash = ? where email = ?", [
      tokenDigest(olderToken),
      sent.email,
    ]);
    const now = clock.now().toISOString();
    await runSql(
      t,
      `insert into outbox (kind, email, token, payload, status, attempts, next_attempt_at, created_at)
       select kind, email, ?, payload, 'queued', 0, ?, ? from outbox
       where kind = 'booking_invitation' and email = ?`,
      [olderToken, now, now, sent.email],
    );
    await smtp.waitFor(() => smtp.to(sent.email).length === 2);
    expect(links(smtp.to(sent.email)[1])).toEqual({ move: olderToken, cancel: olderToken });
    const asked = await browser().get(`/book/cancel?token=${olderToken}`);
    expect(asked.statusCode).toBe(200);
    expect(dom(asked.body).querySelector("h1")?.textContent).toBe("Cancel your call?");
    // Once sent, the row keeps no token.
    await waitFor(
      async () =>
        (
          await runSql(
            t,
            "select token from outbox where kind = 'booking_invitation' and email = ? and token is not null",
            [sent.email],
          )
        ).length === 0,
      { what: "the invitation's row without its token" },
    );
  });

  it("answers a form post for a time just taken with the page again: the message, the free times now, what was typed", async () => {
    const [start] = (await slots()).starts;
    expect((await browser().post("/api/bookings", booking(start ?? ""))).statusCode).toBe(201);
    const typed = booking(start ?? "", { name: "Arjun Rao", zone: "America/New_York" });
    const response = await postForm(typed, "10.9.0.1");
    expect(response.statusCode).toBe(409);
    const page = dom(response.body);
    expect(page.querySelector("[role=alert]")?.textContent).toBe(
      "That time was just taken. Here are the free times now; choose another.",
    );
    expect(page.querySelector(".booking-times legend")?.textContent).toBe(
      "Free times, in America / New York",
    );
    const offered = [...page.querySelectorAll("input[name=start]")].map((input) =>
      input.getAttribute("value"),
    );
    expect(offered).toEqual(
      firstDays((await slots("America/New_York")).starts, "America/New_York", 7),
    );
    expect(offered).not.toContain(start);
    expect(page.querySelector("input[name=start]:checked")).toBeNull();
    expect(page.querySelector("#booking-name")?.getAttribute("value")).toBe("Arjun Rao");
    expect(page.querySelector("#booking-email")?.getAttribute("value")).toBe(typed.email);
    expect(await runSql(t, "select name from bookings where email = ?", [typed.email])).toEqual([]);
  });

  it("without JavaScript asks once about an address that looks mistyped before it books, and books the one kept", async () => {
    const [, start] = (await slots()).starts;
    const typed = booking(start ?? "", { email: "meera@yaho.co.in" });
    const asked = await postForm(typed, "10.9.0.2");
    expect(asked.statusCode).toBe(200);
    const page = dom(asked.body);
    expect(page.querySelector("[role=status]")?.textContent).toBe(
      "Did you mean meera@yahoo.co.in? Correct the address above, or send the form again to keep meera@yaho.co.in.",
    );
    expect(page.querySelector("#booking-email")?.getAttribute("value")).toBe("meera@yaho.co.in");
    expect(page.querySelector("input[name=start]:checked")?.getAttribute("value")).toBe(start);
    expect(await runSql(t, "select id from bookings where email = ?", [typed.email])).toEqual([]);
    const kept = page.querySelector("input[name=emailKept]")?.getAttribute("value") ?? "";
    // Taken meanwhile: the form comes back for another time, the address still kept.
    expect((await browser().post("/api/bookings", booking(start ?? ""))).statusCode).toBe(201);
    const taken = await postForm({ ...typed, emailKept: kept }, "10.9.0.2");
    expect(taken.statusCode).toBe(409);
    const again = dom(taken.body);
    expect(again.querySelector("[role=status]")).toBeNull();
    const stillKept = again.querySelector("input[name=emailKept]")?.getAttribute("value");
    expect(stillKept).toBe("meera@yaho.co.in");
    const other = again.querySelector("input[name=start]")?.getAttribute("value") ?? "";
    // Its form token spent by the refusal: another, as old as a reader's who chose again.
    const booked = await postForm(
      { ...typed, start: other, formToken: aged(), emailKept: stillKept ?? "" },
      "10.9.0.2",
    );
    expect(booked.statusCode).toBe(200);
    expect(await runSql(t, "select id from bookings where email = ?", [typed.email])).toHaveLength(
      1,
    );
  });

  it("without JavaScript takes the press after 'Did you mean …?' at once: the page carries the form's time, for one booking", async () => {
    const [, , start] = (await slots()).starts;
    const typed = booking(start ?? "", { email: "arjun@gmial.com" });
    const page = dom((await postForm(typed, "10.9.0.3")).body);
    expect(page.querySelector("[role=status]")?.textContent).toContain("Did you mean");
    const fields = Object.fromEntries(
      [...page.querySelectorAll("form.booking-form input[type=hidden]")].map((input) => [
        input.getAttribute("name") ?? "",
        input.getAttribute("value") ?? "",
      ]),
    );
    // Pressed again as soon as the sentence is read: booked, not "faster than a person".
    const again = await postForm({ ...typed, ...fields }, "10.9.0.3");
    expect(dom(again.body).querySelector("[role=alert]")?.textContent ?? "").toBe("");
    expect(again.statusCode).toBe(200);
    expect(await runSql(t, "select id from bookings where email = ?", [typed.email])).toHaveLength(
      1,
    );
    // The token still served one booking.
    const twice = await postForm({ ...typed, ...fields }, "10.9.0.3");
    expect(twice.statusCode).toBe(400);
    expect(dom(twice.body).querySelector("[role=alert]")?.textContent).toContain(
      "This form was sent already",
    );
    // A fresh form still waits its minimum; its page keeps the time it was handed out.
    const fresh = formTokens.issue();
    const quick = await postForm(booking(start ?? "", { formToken: fresh }), "10.9.0.3");
    expect(quick.statusCode).toBe(400);
    expect(dom(quick.body).querySelector("input[name=formToken]")?.getAttribute("value")).toBe(
      fresh,
    );
  });

  it("refuses every bad booking with a clear answer and stores nothing", async () => {
    const before = Number((await runSql(t, "select count(*) as n from bookings"))[0]?.n);
    const [start, later] = (await slots()).starts;
    const saturday = new Date(Date.parse(start ?? "") + 0);
    while (wallTime(saturday, ownerZone).weekday !== 6)
      saturday.setUTCDate(saturday.getUTCDate() + 1);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ zone: "Mars/Olympus" }, 400, "validation_failed"],
      // Zones Intl takes that the form's list does not offer.
      [{ zone: "+05:30" }, 400, "validation_failed"],
      [{ zone: "SystemV/AST4" }, 400, "validation_failed"],
      [{ service: "warp-drives" }, 400, "validation_failed"],
      [{ email: "not an address" }, 400, "validation_failed"],
      [{ name: "" }, 400, "validation_failed"],
      [{ note: "x".repeat(1001) }, 400, "validation_failed"],
      [{ start: "tomorrow" }, 400, "validation_failed"],
      [{ start: saturday.toISOString() }, 422, "not_offered"],
      [{ start: new Date(Date.parse(start ?? "") + 60_000).toISOString() }, 422, "not_offered"],
      [{ start: new Date(clock.now().getTime() + 2 * hourMs).toISOString() }, 422, "not_offered"],
      [{ formToken: formTokens.issue(Date.now() + 60_000) }, 400, "too_fast"],
      [{ formToken: "forged" }, 400, "form_token_invalid"],
      // What would reach a mail's headers or its calendar file, with a line break or a
      // control character in it, or too long.
      [{ name: "Ravi\r\nBcc: victim@example.org" }, 400, "validation_failed"],
      [{ name: "Ravi\u0007" }, 400, "validation_failed"],
      [{ name: "R".repeat(101) }, 400, "validation_failed"],
      [{ email: "ravi@example.org\r\nBcc: victim@example.org" }, 400, "validation_failed"],
      [{ service: "dfmea\r\nX-Injected: 1" }, 400, "validation_failed"],
      [{ zone: "Asia/Kolkata\r\nX-Injected: 1" }, 400, "validation_failed"],
      [{ note: "Fine\u0000then" }, 400, "validation_failed"],
      [{ note: "Fine\u202Ethen" }, 400, "validation_failed"],
    ];
    for (const [change, status, code] of cases) {
      const response = await browser().post("/api/bookings", booking(later ?? "", change));
      expect(response.statusCode, JSON.stringify(change)).toBe(status);
      expect(json(response, errorResponseSchema).error.code).toBe(code);
      if (change.zone) {
        expect(json(response, errorResponseSchema).error.message).toContain(
          "Choose a time zone from the list.",
        );
      }
    }
    // A time gone by (a page left open), or now too soon, is said to be so.
    const lastWeek = new Date(Date.parse(start ?? "") - 7 * 24 * hourMs).toISOString();
    const past = await browser().post("/api/bookings", booking(lastWeek));
    expect(past.statusCode).toBe(422);
    expect(json(past, errorResponseSchema).error.message).toBe(
      "That time has passed; choose one of the free times.",
    );
    const soon = new Date(clock.now().getTime() + 2 * hourMs).toISOString();
    expect(
      json(await browser().post("/api/bookings", booking(soon)), errorResponseSchema).error.message,
    ).toBe(
      "That time is too soon now: calls are booked at least 24 hours ahead. Choose one of the free times.",
    );
    // Without JavaScript: the form again, saying so, with the free times as they are now.
    const pastForm = await postForm(booking(lastWeek), "10.9.1.99");
    expect(pastForm.statusCode).toBe(422);
    expect(dom(pastForm.body).querySelector("[role=alert]")?.textContent).toBe(
      "That time has passed; choose one of the free times.",
    );
    expect(dom(pastForm.body).querySelectorAll("input[name=start]").length).toBeGreaterThan(10);
    // The same zones from the form without JavaScript: the form again, saying so.
    for (const zone of ["+05:30", "SystemV/AST4"]) {
      const posted = await postForm(booking(later ?? "", { zone }), `10.9.1.${zone.length}`);
      expect(posted.statusCode, zone).toBe(400);
      expect(dom(posted.body).querySelector("[role=alert]")?.textContent).toBe(
        "Choose a time zone from the list.",
      );
    }
    // A note the enquiry form would refuse is refused here too.
    const junk = await browser().post(
      "/api/bookings",
      booking(later ?? "", { note: "Best casino bonus tonight, see bit.ly/x1" }),
    );
    expect(junk.statusCode).toBe(422);
    expect(json(junk, errorResponseSchema).error.code).toBe("blocked_content");
    // A form's token is spent by its first answer, a refusal included: sent again, it is refused.
    const once = aged();
    const notOffered = booking(saturday.toISOString(), { formToken: once });
    expect((await browser().post("/api/bookings", notOffered)).statusCode).toBe(422);
    const resent = await browser().post("/api/bookings", booking(later ?? "", { formToken: once }));
    expect(resent.statusCode).toBe(400);
    expect(json(resent, errorResponseSchema).error).toMatchObject({
      code: "form_token_invalid",
      message: expect.stringMatching(/sent already/),
    });
    // The form without JavaScript, posted from another site: refused.
    const elsewhere = await t.app.inject({
      method: "POST",
      url: "/book",
      remoteAddress: "10.9.0.3",
      headers: {
        origin: "https://elsewhere.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      payload: new URLSearchParams(
        Object.entries(booking(later ?? "")).map(([name, value]) => [name, String(value)]),
      ).toString(),
    });
    expect(elsewhere.statusCode).toBe(403);
    expect(dom(elsewhere.body).querySelector("[role=alert]")?.textContent).toContain(
      "this site's own page",
    );
    // A program that fills the hidden field is told it worked, and nothing is kept.
    const honeypot = await browser().post("/api/bookings", booking(later ?? "", { website: "x" }));
    expect(honeypot.statusCode).toBe(201);
    expect(Number((await runSql(t, "select count(*) as n from bookings"))[0]?.n)).toBe(before);
    expect((await slots()).starts).toContain(later);
  });

  it("refuses a banned browser, politely, and stores nothing", async () => {
    const troll = browser();
    const commented = await troll.comment(freshItem("science"), "Something rude");
    expect(commented.statusCode).toBe(201);
    const { comment } = JSON.parse(commented.body) as { comment: { id: number } };
    const ban = await admin(adminEnv(t), "visitor", "ban", "--comment", String(comment.id));
    expect(ban.code, ban.stderr).toBe(0);
    // Far ahead, where no other test's clock brings a reminder due.
    const start = (await slots()).starts.at(-4) ?? "";
    const sent = booking(start);
    const refused = await troll.post("/api/bookings", sent);
    expect(refused.statusCode).toBe(403);
    expect(json(refused, errorResponseSchema).error).toMatchObject({
      code: "banned",
      message: expect.stringMatching(/not accepted at the moment/),
    });
    expect(await runSql(t, "select id from bookings where email = ?", [sent.email])).toEqual([]);
    expect((await slots()).starts).toContain(start);
    // Another browser at the same address is not touched.
    expect((await browser().post("/api/bookings", booking(start))).statusCode).toBe(201);
  });

  it("books one call an hour per mailbox and a few ahead at most, refusing in the same words whatever the address holds and telling its mailbox why", async () => {
    const free = (await slots()).starts;
    const ask = (start: string, email: string) =>
      browser().post("/api/bookings", booking(start, { email }));
    const book = async (start: string, email: string) => {
      const response = await ask(start, email);
      expect(response.statusCode, response.body).toBe(201);
      return json(response, bookedResponseSchema);
    };
    /** A refusal of a free time for the address: all it says, but the free times' list. */
    const refused = async (start: string, email: string) => {
      const response = await ask(start, email);
      expect(response.statusCode, response.body).toBe(409);
      const { error } = json(response, bookingConflictResponseSchema);
      expect(error.slots?.starts).toContain(start);
      return {
        headers: { "retry-after": response.headers["retry-after"] },
        body: { ...error, slots: { ...error.slots, starts: "the free times" } },
      };
    };
    const notBooked = {
      headers: { "retry-after": undefined },
      body: {
        code: "not_booked",
        message: "This time was not booked for this address. We have sent the reason to it.",
        slots: {
          zone: "Asia/Kolkata",
          ownerZone,
          callMinutes: 30,
          firstCallFree: true,
          starts: "the free times",
        },
      },
    };
    const stored = async (email: string) =>
      (await runSql(t, "select starts_at from bookings where email = ?", [email])).length;
    const news = (address: string) =>
      smtp.to(address).filter((mail) => mail.parsed.text?.includes("was not booked"));

    await book(free[3] ?? "", "Asha.Rao+calls@gmail.com");
    // The same mailbox within the hour: refused, nothing booked, the time still free,
    // and the reason in the mailbox, once an hour however often it is asked.
    expect(await refused(free[4] ?? "", "asharao@googlemail.com")).toEqual(notBooked);
    expect(await refused(free[4] ?? "", "asharao@googlemail.com")).toEqual(notBooked);
    expect(await stored("asharao@googlemail.com")).toBe(0);
    expect((await slots()).starts).toContain(free[4]);
    await smtp.waitFor(() => news("asharao@googlemail.com").length === 1);
    const told = "select id from outbox where kind = 'booking_not_made' and email = ?";
    expect(await runSql(t, told, ["asharao@googlemail.com"])).toHaveLength(1);
    // Found by the mailbox's digest the outbox keeps, not by how its payload is written: one
    // written in another key order (another version, a database's JSON) counts as well.
    const sent =
      "select id, payload from outbox where kind = 'booking_not_made' and status = 'sent'";
    await waitFor(async () => (await runSql(t, sent)).length === 1);
    const [row] = await runSql(t, sent);
    const reordered = Object.fromEntries(
      Object.entries(JSON.parse(String(row?.payload))).reverse(),
    );
    await runSql(t, "update outbox set payload = ? where id = ?", [
      JSON.stringify(reordered),
      String(row?.id),
    ]);
    expect(await refused(free[4] ?? "", "asha.rao@gmail.com")).toEqual(notBooked);
    expect(await runSql(t, "select id from outbox where kind = 'booking_not_made'")).toHaveLength(
      1,
    );
    const thisHour = news("asharao@googlemail.com")[0];
    expect(thisHour?.parsed.subject).toBe("Your call with Arjun Rao was not booked");
    expect(thisHour?.parsed.text).toContain(
      "A call was booked for this address less than an hour ago; its invitation is in this inbox.",
    );
    // Nothing the form's sender typed reaches the mailbox.
    expect(thisHour?.parsed.text).not.toContain("Meera");
    expect(thisHour?.parsed.text).not.toContain("second opinion");
    expect(calendarOfMail(thisHour)).toBeNull();
    // The news is kept only while it caps its hour: the retention takes it after a day.
    const store = await openStore(
      t.databaseUrl
        ? { kind: "postgres", connectionString: t.databaseUrl }
        : { kind: "sqlite", file: path.join(t.dataDir, "engage.sqlite") },
    );
    try {
      const dayOn = () => new Date(clock.now().getTime() + 25 * hourMs);
      await createBookingsRepository(store, dayOn).prune(180);
    } finally {
      await store.close();
    }
    expect(await runSql(t, told, ["asharao@googlemail.com"])).toEqual([]);

    // An hour on, the same address may book again, up to three calls ahead.
    clock.advance(hourMs + 60_000);
    await book(free[5] ?? "", "asharao@gmail.com");
    clock.advance(hourMs + 60_000);
    await book(free[6] ?? "", "asharao@gmail.com");
    expect(await stored("asharao@gmail.com")).toBe(2);
    clock.advance(hourMs + 60_000);
    // Its most calls ahead: the very answer of a booking within the hour.
    expect(await refused(free[7] ?? "", "asharao@gmail.com")).toEqual(notBooked);
    expect(await stored("asharao@gmail.com")).toBe(2);
    expect((await slots()).starts).toContain(free[7]);
    await smtp.waitFor(() => news("asharao@gmail.com").length === 1);
    expect(news("asharao@gmail.com")[0]?.parsed.text).toContain(
      "This address has as many calls ahead as one address may hold.",
    );
    // Without JavaScript: the form again, with that message, what was typed and the time kept.
    const form = await postForm(booking(free[7] ?? "", { email: "asharao@gmail.com" }), "10.9.2.1");
    expect(form.statusCode).toBe(409);
    const page = dom(form.body);
    expect(page.querySelector("[role=alert]")?.textContent).toBe(notBooked.body.message);
    expect(page.querySelector("input[name=start]:checked")?.getAttribute("value")).toBe(free[7]);
    expect(page.querySelector("#booking-email")?.getAttribute("value")).toBe("asharao@gmail.com");
    expect(await stored("asharao@gmail.com")).toBe(2);
    expect(await runSql(t, told, ["asharao@gmail.com"])).toHaveLength(1);
    // Whoever sends the address with a time that is not free (taken, or none at all) is told
    // about the time: what it says of the address's calls, it says only when it would book one.
    const probes = [free[3] ?? "", new Date(Date.parse(free[8] ?? "") + 60_000).toISOString()];
    const answers = [];
    for (const start of probes) {
      const probe = await ask(start, "asharao@gmail.com");
      answers.push([probe.statusCode, json(probe, errorResponseSchema).error.code]);
    }
    expect(answers).toEqual([
      [409, "slot_taken"],
      [422, "not_offered"],
    ]);
  });

  it("lists a browser's bookings in Your data, and deleting them there cancels the call first", async () => {
    const start = (await slots()).starts[14] ?? "";
    const sent = booking(start);
    const reader = browser();
    expect((await reader.post("/api/bookings", sent)).statusCode).toBe(201);
    // Another browser owns none of it.
    expect(json(await browser().get("/api/your-data"), yourDataResponseSchema).bookings).toEqual(
      [],
    );
    const mine = json(await reader.get("/api/your-data"), yourDataResponseSchema);
    expect(mine.visitorCookie).toBe(true);
    expect(mine.bookings).toEqual([
      expect.objectContaining({
        start,
        name: sent.name,
        email: sent.email,
        service: "dfmea",
        note: sent.note,
        zone: "Asia/Kolkata",
        status: "booked",
      }),
    ]);

    // Both invitations in first: a call erased before they went is mailed to neither side.
    await smtp.waitFor(
      () =>
        smtp.to(sent.email).length === 1 &&
        smtp.to(owner).some((m) => calendarOfMail(m)?.event.start.toISOString() === start),
    );
    const deletion = await reader.post("/api/your-data/delete", { confirm: true });
    expect(json(deletion, deleteYourDataResponseSchema).deleted).toMatchObject({ bookings: 1 });
    expect(json(await reader.get("/api/your-data"), yourDataResponseSchema).bookings).toEqual([]);
    expect((await slots()).starts).toContain(start);
    // Both calendars hear of it, from the cancellation that outlives the booking.
    await smtp.waitFor(
      () =>
        smtp.to(sent.email).some(isCancellation) &&
        smtp
          .to(owner)
          .some(
            (mail) => isCancellation(mail) && invitation(mail).event.start.toISOString() === start,
          ),
    );
    const cancellation = smtp.to(sent.email).find(isCancellation);
    expect(invitation(cancellation).event.start.toISOString()).toBe(start);
    const rows = await runSql(
      t,
      `select count(*) as n from bookings where email = '${sent.email}'`,
    );
    expect(Number(rows[0]?.n)).toBe(0);
    // Once the cancellation is sent, the outbox keeps no record of any mail to the reader.
    await expect
      .poll(() => runSql(t, "select kind, status from outbox where email = ?", [sent.email]), {
        timeout: 20_000,
      })
      .toEqual([]);
  });

  it("cancels from the reader's link only on a POST from the page, once, and tells both calendars", async () => {
    const free = (await slots()).starts;
    const start = free[10] ?? "";
    const sent = booking(start);
    expect((await browser().post("/api/bookings", sent)).statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(sent.email).length > 0);
    const link = /\/book\/cancel\?token=([A-Za-z0-9_-]{43})/.exec(
      smtp.to(sent.email)[0]?.parsed.text ?? "",
    );
    const token = link?.[1] ?? "";
    // The owner's invitation in too, before the cancellation, which drops a mail not yet sent.
    const { uid } = invitation(smtp.to(sent.email)[0]).event;
    const ofCall = (m: ReceivedMail) =>
      m.parsed.attachments.some((a) => a.content.toString().includes(uid));
    await smtp.waitFor(() => smtp.to(owner).some(ofCall));

    // Opening the link changes nothing.
    const opened = await browser().get(`/book/cancel?token=${token}`);
    expect(opened.statusCode).toBe(200);
    expect(opened.headers["x-robots-tag"]).toBe("noindex");
    const page = dom(opened.body);
    expect(page.querySelector("h1")?.textContent).toBe("Cancel your call?");
    expect(page.querySelector("button")?.textContent).toBe("Cancel the call");
    expect((await slots()).starts).not.toContain(start);
    // A post from elsewhere is refused.
    const forged = await t.app.inject({
      method: "POST",
      url: "/book/cancel",
      headers: {
        origin: "https://elsewhere.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      payload: `token=${token}`,
    });
    expect(forged.statusCode).toBe(403);

    const post = () =>
      t.app.inject({
        method: "POST",
        url: "/book/cancel",
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: `token=${token}`,
      });
    const cancelled = await post();
    expect(cancelled.statusCode).toBe(200);
    expect(dom(cancelled.body).querySelector("h1")?.textContent).toBe("Your call is cancelled");
    expect((await slots()).starts).toContain(start);
    expect((await post()).statusCode).toBe(404);
    expect((await browser().get(`/book/cancel?token=${token}`)).statusCode).toBe(404);

    await smtp.waitFor(() => smtp.to(sent.email).length === 2);
    await smtp.waitFor(() =>
      smtp
        .to(owner)
        .some((m) => isCancellation(m) && invitation(m).event.start.toISOString() === start),
    );
    const toReader = invitation(smtp.to(sent.email)[1]);
    // The way back to /book, marked as followed from this mail (docs/product.md, "Readers").
    expect(smtp.to(sent.email)[1]?.parsed.text).toContain(
      `Book another time: ${siteUrl}/book?utm_source=mail&utm_medium=email&utm_campaign=booking-cancellation`,
    );
    const toOwner = invitation(
      smtp
        .to(owner)
        .find((m) => isCancellation(m) && invitation(m).event.start.toISOString() === start),
    );
    const first = invitation(smtp.to(sent.email)[0]);
    for (const cancel of [toReader, toOwner]) {
      expect(cancel.method).toBe("CANCEL");
      expect(cancel.event.uid).toBe(first.event.uid);
      expect(cancel.event.sequence).toBe(1);
      expect(cancel.event.status).toBe("CANCELLED");
      // The same people as the invitation: the owner organises, the reader attends.
      expect(cancel.text).toMatch(/^ORGANIZER;CN="Arjun Rao":mailto:owner@example\.com\r?$/m);
    }
    expect(toReader.event.attendees.map((person) => person.address)).toEqual([sent.email]);
    expect(toOwner.event.attendees).toEqual([]);
    // Each side's cancellation follows its invitation in one thread of its mail program.
    const ownerMails = smtp.to(owner).filter(ofCall);
    for (const [invited, cancelled] of [smtp.to(sent.email), ownerMails]) {
      expect(invited?.parsed.messageId).toMatch(/^<[\w.-]+@ewe\.test>$/);
      expect(cancelled?.parsed.inReplyTo).toBe(invited?.parsed.messageId);
      expect(cancelled?.parsed.references).toEqual(invited?.parsed.messageId);
      expect(cancelled?.parsed.messageId).not.toBe(invited?.parsed.messageId);
      // Reply answers the other side, as the invitation's does.
      expect(cancelled?.parsed.replyTo?.text).toBe(invited?.parsed.replyTo?.text);
    }
  });

  it("moves a call from the reschedule link: the same UID, a higher SEQUENCE, new links, the old spent", async () => {
    const free = (await slots()).starts;
    const sent = booking(free[12] ?? "");
    expect((await browser().post("/api/bookings", sent)).statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(sent.email).length > 0);
    const token =
      /\/book\/reschedule\?token=([A-Za-z0-9_-]{43})/.exec(
        smtp.to(sent.email)[0]?.parsed.text ?? "",
      )?.[1] ?? "";
    const page = await browser().get(`/book/reschedule?token=${token}&zone=America/New_York`);
    expect(page.statusCode).toBe(200);
    const radios = [...dom(page.body).querySelectorAll('input[type="radio"]')];
    expect(radios.length).toBeGreaterThan(10);
    const target = free[13] ?? "";
    const move = (start: string) =>
      t.app.inject({
        method: "POST",
        url: "/book/reschedule",
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ token, start, zone: "America/New_York" }).toString(),
      });
    const moved = await move(target);
    expect(moved.statusCode, moved.body).toBe(200);
    expect(dom(moved.body).querySelector("h1")?.textContent).toBe("Your call is moved");
    expect((await move(free[14] ?? "")).statusCode).toBe(404);
    const now = (await slots()).starts;
    expect(now).toContain(free[12]);
    expect(now).not.toContain(target);

    await smtp.waitFor(() => smtp.to(sent.email).length === 2);
    const before = invitation(smtp.to(sent.email)[0]);
    const after = invitation(smtp.to(sent.email)[1]);
    expect(after.method).toBe("REQUEST");
    expect(after.event.uid).toBe(before.event.uid);
    expect(after.event.sequence).toBe(1);
    expect(after.event.start.toISOString()).toBe(target);
    const newToken = /\/book\/cancel\?token=([A-Za-z0-9_-]{43})/.exec(
      smtp.to(sent.email)[1]?.parsed.text ?? "",
    )?.[1];
    expect(newToken).toBeDefined();
    expect(newToken).not.toBe(token);
  });

  it("moves a call only to a free time, only from the site's own page, and a look changes nothing", async () => {
    // Far ahead, where no other test's clock brings a reminder due.
    const [mine, other, target] = (await slots()).starts.slice(-3);
    const sent = booking(mine ?? "");
    expect((await browser().post("/api/bookings", sent)).statusCode).toBe(201);
    expect((await browser().post("/api/bookings", booking(other ?? ""))).statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(sent.email).length > 0);
    const token =
      /\/book\/reschedule\?token=([A-Za-z0-9_-]{43})/.exec(
        smtp.to(sent.email)[0]?.parsed.text ?? "",
      )?.[1] ?? "";
    const where = async () =>
      (
        await runSql(t, "select starts_at, sequence from bookings where email = ?", [sent.email])
      ).map((row) => [new Date(String(row.starts_at)).toISOString(), Number(row.sequence)]);
    const unmoved = [[mine, 0]];
    expect(await where()).toEqual(unmoved);

    const opened = await browser().get(`/book/reschedule?token=${token}`);
    expect(opened.statusCode).toBe(200);
    expect(opened.headers["x-robots-tag"]).toBe("noindex");
    expect(dom(opened.body).querySelector("h1")?.textContent).toBe("Move your call");
    const move = (start: string, origin = siteUrl) =>
      t.app.inject({
        method: "POST",
        url: "/book/reschedule",
        headers: { origin, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ token, start, zone: "Asia/Kolkata" }).toString(),
      });
    const forged = await move(target ?? "", "https://elsewhere.example");
    expect(forged.statusCode).toBe(403);
    expect(dom(forged.body).querySelector("h1")?.textContent).toBe("Nothing was changed");
    /** A refused move leads to the page at an address of its own (where Back and a reload land), saying why. */
    const shown = async (start: string) => {
      const refused = await move(start);
      expect(refused.statusCode, start).toBe(303);
      const to = new URL(String(refused.headers.location), siteUrl);
      expect(to.pathname).toBe("/book/reschedule");
      expect(to.searchParams.get("token")).toBe(token);
      expect(to.searchParams.get("zone")).toBe("Asia/Kolkata");
      return browser().get(`${to.pathname}${to.search}`);
    };
    const taken = await shown(other ?? "");
    expect(taken.statusCode).toBe(409);
    expect(dom(taken.body).querySelector("[role=alert]")?.textContent).toContain(
      "That time was just taken",
    );
    // An address naming no refusal (or one of an object's own names) is the page as opened.
    for (const refused of ["constructor", "toString", "nonsense"]) {
      const plain = await browser().get(`/book/reschedule?token=${token}&refused=${refused}`);
      expect(plain.statusCode, refused).toBe(200);
      expect(dom(plain.body).querySelector("[role=alert]"), refused).toBeNull();
    }
    // Its own time is not offered, and changes nothing: no mail, no new links.
    expect(dom(opened.body).querySelector(`input[value="${mine}"]`)).toBeNull();
    const queued = () => runSql(t, "select id from outbox where email = ?", [sent.email]);
    const mails = await queued();
    const same = await shown(mine ?? "");
    expect(same.statusCode).toBe(409);
    expect(dom(same.body).querySelector("[role=alert]")?.textContent).toBe(
      "Your call is already at that time. Choose another to move it.",
    );
    expect(await queued()).toEqual(mails);
    const offGrid = new Date(Date.parse(target ?? "") + 60_000).toISOString();
    for (const start of [offGrid, "tomorrow", ""]) {
      const refused = await shown(start);
      expect(refused.statusCode, start).toBe(400);
      expect(dom(refused.body).querySelector("[role=alert]")?.textContent).toBe(
        "Choose one of the free times.",
      );
    }
    expect(await where()).toEqual(unmoved);
    expect((await slots()).starts).toContain(target);
  });

  it("moves a call from its links three times, then offers only to cancel it: each move mails both sides", async () => {
    // Far ahead, beside the times the test above takes.
    const [mine, ...targets] = (await slots()).starts.slice(-8, -3);
    const sent = booking(mine ?? "", { name: "Moved Thrice" });
    expect((await browser().post("/api/bookings", sent)).statusCode).toBe(201);
    const tokenOf = (mail: number) =>
      /\/book\/reschedule\?token=([A-Za-z0-9_-]{43})/.exec(
        smtp.to(sent.email)[mail]?.parsed.text ?? "",
      )?.[1] ?? "";
    const move = (token: string, start: string) =>
      t.app.inject({
        method: "POST",
        url: "/book/reschedule",
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ token, start, zone: "Asia/Kolkata" }).toString(),
      });
    const toldOwner = () =>
      smtp.to(owner).filter((m) => says("A reader moved their call")(m) && says("Moved Thrice")(m))
        .length;
    // Each move waits for both sides' mails of the one before: an invitation still queued
    // when the call moves again is dropped as out of date, the owner's as the reader's.
    for (const [mail, target] of targets.slice(0, 3).entries()) {
      await smtp.waitFor(() => smtp.to(sent.email).length === mail + 1 && toldOwner() === mail);
      const moved = await move(tokenOf(mail), target ?? "");
      expect(moved.statusCode, moved.body).toBe(200);
    }
    await smtp.waitFor(() => smtp.to(sent.email).length === 4 && toldOwner() === 3);

    const token = tokenOf(3);
    const heading = (html: string) => dom(html).querySelector("h1")?.textContent;
    const page = await browser().get(`/book/reschedule?token=${token}`);
    expect(page.statusCode).toBe(409);
    expect(heading(page.body)).toBe("This call cannot be moved again");
    expect(dom(page.body).querySelector("form")).toBeNull();
    // Past the site's name above the title, which links home.
    const links = [...dom(page.body).querySelectorAll("main a")];
    expect(links.map((link) => link.textContent)).toEqual([
      "Engage with Engineer",
      "Cancel the call",
    ]);
    const cancelLink = links[1];
    expect(cancelLink?.getAttribute("href")).toBe(`/book/cancel?token=${token}`);
    const refused = await move(token, targets[3] ?? "");
    expect(refused.statusCode).toBe(409);
    expect(heading(refused.body)).toBe("This call cannot be moved again");
    const where = await runSql(t, "select starts_at, sequence from bookings where email = ?", [
      sent.email,
    ]);
    expect(
      where.map((row) => [new Date(String(row.starts_at)).toISOString(), Number(row.sequence)]),
    ).toEqual([[targets[2], 3]]);
    expect((await slots()).starts).toContain(targets[3]);

    // The way left works.
    const cancelled = await t.app.inject({
      method: "POST",
      url: "/book/cancel",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: `token=${token}`,
    });
    expect(cancelled.statusCode).toBe(200);
    expect(heading(cancelled.body)).toBe("Your call is cancelled");
  });

  it("sends each reminder once, 24 hours and 1 hour before, and none after a cancellation", async () => {
    const free = (await slots()).starts;
    const kept = booking(free[20] ?? "");
    const dropped = booking(free[21] ?? "");
    expect((await browser().post("/api/bookings", kept)).statusCode).toBe(201);
    expect((await browser().post("/api/bookings", dropped)).statusCode).toBe(201);
    await smtp.waitFor(
      () => smtp.to(kept.email).length === 1 && smtp.to(dropped.email).length === 1,
    );
    const droppedToken =
      /\/book\/cancel\?token=([A-Za-z0-9_-]{43})/.exec(
        smtp.to(dropped.email)[0]?.parsed.text ?? "",
      )?.[1] ?? "";
    const cancel = await t.app.inject({
      method: "POST",
      url: "/book/cancel",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: `token=${droppedToken}`,
    });
    expect(cancel.statusCode).toBe(200);

    const until = Date.parse(free[20] ?? "") - clock.now().getTime();
    const ownerReminders = () =>
      smtp.to(owner).filter((m) => isReminder(m) && m.parsed.text?.includes(kept.email));
    clock.advance(until - 24 * hourMs + 60_000);
    await smtp.waitFor(() => smtp.to(kept.email).some(says("Reminder: the call is tomorrow.")));
    // The owner's too, before the hour-before falls due: a day-before one not sent by then is dropped.
    await smtp.waitFor(() => ownerReminders().length >= 1);
    clock.advance(23 * hourMs);
    await smtp.waitFor(() => smtp.to(kept.email).some(says("Reminder: the call is in an hour.")));
    await smtp.waitFor(() => ownerReminders().length >= 2);
    // Nothing due is left queued. On PostgreSQL a reminder being sent stays
    // `queued` (under its row lock) until the commit that records it sent, a
    // moment after the SMTP server has it: what is left must come to nothing.
    await expect
      .poll(() =>
        runSql(
          t,
          "select kind, status from outbox where kind = 'booking_reminder' and status = 'queued' and next_attempt_at <= ?",
          [clock.now().toISOString()],
        ),
      )
      .toEqual([]);
    const reminders = (address: string) => smtp.to(address).filter(isReminder).length;
    expect(reminders(kept.email)).toBe(2);
    expect(reminders(dropped.email)).toBe(0);
    // Reply to the owner's reminder answers the reader, as the owner's invitation does.
    expect(ownerReminders().map((m) => m.parsed.replyTo?.text)).toEqual([
      `"Meera Iyer" <${kept.email}>`,
      `"Meera Iyer" <${kept.email}>`,
    ]);
    // The cancelled call's reader had its invitation and its cancellation, and no reminder.
    const mails = smtp.to(dropped.email);
    expect(mails).toHaveLength(2);
    expect(mails.map(isCancellation)).toEqual([false, true]);
    clock.advance(2 * hourMs);
  });

  it("puts working links to move and cancel the call in the reader's reminders, the call's as it is now", async () => {
    const free = (await slots()).starts;
    const sent = booking(free[2] ?? "");
    expect((await browser().post("/api/bookings", sent)).statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(sent.email).length === 1);
    const post = (url: string, fields: Record<string, string>) =>
      t.app.inject({
        method: "POST",
        url,
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams(fields).toString(),
      });
    const reminders = (address: string) => smtp.to(address).filter(isReminder);
    const inOwnerZone = (start: string) => momentLabel(Date.parse(start), ownerZone);

    // Moved from the invitation's link: the reminder that comes is the new time's, with links.
    const second = free[6] ?? "";
    const invited =
      /\/book\/reschedule\?token=([A-Za-z0-9_-]{43})/.exec(
        smtp.to(sent.email)[0]?.parsed.text ?? "",
      )?.[1] ?? "";
    const first = await post("/book/reschedule", { token: invited, start: second });
    expect(first.statusCode, first.body).toBe(200);
    clock.advance(Date.parse(second) - clock.now().getTime() - 24 * hourMs + 60_000);
    await smtp.waitFor(() => reminders(sent.email).length > 0);
    await smtp.waitFor(() =>
      reminders(owner).some((m) => m.parsed.text?.includes(inOwnerZone(second))),
    );
    const [reminder] = reminders(sent.email);
    expect(reminders(sent.email)).toHaveLength(1);
    expect(reminder?.parsed.text).toContain("Reminder: the call is tomorrow.");
    expect(reminder?.parsed.text).toContain(momentLabel(Date.parse(second), sent.zone));
    const reminded = links(reminder);
    expect(reminded.move).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(reminded.cancel).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(reminder?.parsed.text).toContain(
      `Move the call: ${siteUrl}/book/reschedule?token=${reminded.move}`,
    );
    expect(reminder?.parsed.text).toContain(
      `Cancel the call: ${siteUrl}/book/cancel?token=${reminded.cancel}`,
    );
    // The owner's reminder links to the console's bookings, as the owner's invitation does,
    // and carries none of the reader's links.
    const ownerReminder = reminders(owner).find((m) =>
      m.parsed.text?.includes(inOwnerZone(second)),
    );
    expect(ownerReminder?.parsed.text).toContain("Cancel it from the console");
    expect(ownerReminder?.parsed.text).toContain(`Open in the console: ${siteUrl}/admin/bookings`);
    const toConsole = [...dom(String(ownerReminder?.parsed.html)).querySelectorAll("a")].find(
      (a) => a.textContent?.trim() === "Open in the console",
    );
    expect(toConsole?.getAttribute("href")).toBe(`${siteUrl}/admin/bookings`);
    expect(ownerReminder?.parsed.text).not.toContain("token=");

    // The reminder's link moves the call, and the owner is told as from the invitation's.
    const move = `/book/reschedule?token=${reminded.move}`;
    const page = await browser().get(move);
    expect(page.statusCode).toBe(200);
    expect(dom(page.body).querySelector("h1")?.textContent).toBe("Move your call");
    // Three times of one day, so that the last one's day-before reminder is due
    // by the hour before the second (a weekend between them would put it days later).
    const ahead = (await slots()).starts.slice(1);
    const oneDay = ahead.findIndex((start, i) => ahead[i + 2]?.slice(0, 10) === start.slice(0, 10));
    const [third, other, last] = ahead.slice(oneDay, oneDay + 3);
    const moved = await post("/book/reschedule", {
      token: reminded.move ?? "",
      start: third ?? "",
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(dom(moved.body).querySelector("h1")?.textContent).toBe("Your call is moved");
    await smtp.waitFor(() =>
      smtp
        .to(owner)
        .some(
          (m) =>
            says("A reader moved their call")(m) &&
            says(sent.name)(m) &&
            says(inOwnerZone(third ?? ""))(m),
        ),
    );
    // Spent: the old time's reminder can move the call no more.
    for (const answer of [
      await browser().get(move),
      await post("/book/reschedule", { token: reminded.move ?? "", start: other ?? "" }),
    ]) {
      expect(answer.statusCode).toBe(404);
      expect(dom(answer.body).querySelector("h1")?.textContent).toBe("This link has been used");
    }

    // The new time's reminder carries links that cancel it; the owner is told.
    const later = booking(other ?? "");
    expect((await browser().post("/api/bookings", later)).statusCode).toBe(201);
    // A call booked before the links' token was made from the site's secret holds another.
    const older = booking(last ?? "");
    expect((await browser().post("/api/bookings", older)).statusCode).toBe(201);
    const olderToken = "o".repeat(43);
    await runSql(t, "update bookings set token_hash = ? where email = ?", [
      tokenDigest(olderToken),
      older.email,
    ]);
    clock.advance(Date.parse(third ?? "") - clock.now().getTime() - 24 * hourMs + 60_000);
    await smtp.waitFor(() => reminders(sent.email).length === 2);
    const again = reminders(sent.email)[1];
    expect(again?.parsed.text).toContain(momentLabel(Date.parse(third ?? ""), sent.zone));
    const cancel = `/book/cancel?token=${links(again).cancel}`;
    const asked = await browser().get(cancel);
    expect(asked.statusCode).toBe(200);
    expect(dom(asked.body).querySelector("h1")?.textContent).toBe("Cancel your call?");
    const cancelled = await post("/book/cancel", { token: links(again).cancel ?? "" });
    expect(cancelled.statusCode).toBe(200);
    expect(dom(cancelled.body).querySelector("h1")?.textContent).toBe("Your call is cancelled");
    // The owner is told who cancelled, by the name and address the booking keeps.
    const ownersCancellation = () =>
      smtp
        .to(owner)
        .filter(
          (m) =>
            isCancellation(m) &&
            m.parsed.subject === `Call with ${sent.name}: DFMEA` &&
            says(`When: ${inOwnerZone(third ?? "")}`)(m),
        );
    await smtp.waitFor(() => ownersCancellation().length > 0);
    expect(ownersCancellation()[0]?.parsed.text).toContain(`With: ${sent.name} <${sent.email}>`);
    // Cancelled: each link of the reminder answers a clear page, and no reminder follows.
    for (const answer of [
      await browser().get(cancel),
      await browser().get(`/book/reschedule?token=${links(again).move}`),
      await post("/book/cancel", { token: links(again).cancel ?? "" }),
    ]) {
      expect(answer.statusCode).toBe(404);
      expect(dom(answer.body).querySelector("h1")?.textContent).toBe("This link has been used");
    }

    // Once the call has begun, its reminder's links say so.
    clock.advance(Date.parse(other ?? "") - clock.now().getTime() - hourMs + 60_000);
    await smtp.waitFor(() =>
      reminders(later.email).some(says("Reminder: the call is in an hour.")),
    );
    // The older call's reminder has no links (they would not work), and says where they are.
    await smtp.waitFor(() => reminders(older.email).length > 0);
    const olderReminder = reminders(older.email)[0];
    expect(links(olderReminder)).toEqual({ move: null, cancel: null });
    expect(olderReminder?.parsed.text).not.toContain("token=");
    expect(olderReminder?.parsed.text).toContain(
      "To cancel or move the call, use the links in the mail that confirmed it.",
    );
    expect((await browser().get(`/book/cancel?token=${olderToken}`)).statusCode).toBe(200);
    const lastHour = links(reminders(later.email).find(says("Reminder: the call is in an hour.")));
    clock.advance(hourMs);
    const begun = await browser().get(`/book/cancel?token=${lastHour.cancel}`);
    expect(begun.statusCode).toBe(409);
    expect(dom(begun.body).querySelector("h1")?.textContent).toBe("This call has begun");
    expect(reminders(sent.email)).toHaveLength(2);
    await expect
      .poll(() =>
        runSql(
          t,
          "select status from outbox where email = ? and kind = 'booking_reminder' and status = 'queued'",
          [sent.email],
        ),
      )
      .toEqual([]);
  });

  it.each([
    ["the booking pages' loads", "/book/times?zone=UTC", "5:5"],
    ["the API's lists of free times", "/api/bookings/slots?zone=UTC", "6:6"],
  ])(
    "counts %s per minute by an IPv6 address's /64, then answers 429 with Retry-After",
    async (_, url, net) => {
      const load = (n: number) =>
        t.app.inject({ method: "GET", url, remoteAddress: `2001:db8:${net}::${n}` });
      for (let n = 1; n <= 60; n += 1) expect((await load(n)).statusCode).toBe(200);
      const refused = await load(61);
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      // Another address is not held back.
      const other = await t.app.inject({ method: "GET", url, remoteAddress: "10.9.9.9" });
      expect(other.statusCode).toBe(200);
    },
  );

  it("counts the reader's links' pages with the booking pages: past 60 a minute, 429 and nothing changed", async () => {
    const sent = booking((await slots()).starts[2] ?? "");
    expect((await browser().post("/api/bookings", sent)).statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(sent.email).length > 0);
    const { move, cancel } = links(smtp.to(sent.email)[0]);
    // Each move page lists the free times, as /book does: one allowance for them all.
    const reader = t.visitor({ ip: "10.8.0.5" });
    for (let load = 0; load < 60; load += 1) {
      const url = load % 2 ? `/book/reschedule?token=${move}` : "/book/times";
      expect((await reader.get(url)).statusCode, url).toBe(200);
    }
    const pressed = t.app.inject({
      method: "POST",
      url: "/book/cancel",
      remoteAddress: "10.8.0.5",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: `token=${cancel}`,
    });
    for (const refused of [await reader.get(`/book/reschedule?token=${move}`), await pressed]) {
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(dom(refused.body).querySelector("h1")?.textContent).toBe("Too many requests");
      expect(refused.body).toContain(
        "Too many requests from your address; wait a minute and try again.",
      );
    }
    // The refused press cancelled nothing: the link still opens the call's page elsewhere.
    const elsewhere = t.visitor({ ip: "10.8.0.6" });
    expect((await elsewhere.get(`/book/cancel?token=${cancel}`)).statusCode).toBe(200);
  });

  it("keeps a call that has begun as it is: the reader's links can no longer cancel or move it, and Your data deletes it without a change for either calendar", async () => {
    const free = (await slots()).starts;
    const start = free[0] ?? "";
    const sent = booking(start);
    const reader = browser();
    expect((await reader.post("/api/bookings", sent)).statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(sent.email).length > 0);
    const text = smtp.to(sent.email)[0]?.parsed.text ?? "";
    const cancelToken = /\/book\/cancel\?token=([A-Za-z0-9_-]{43})/.exec(text)?.[1] ?? "";
    const moveToken = /\/book\/reschedule\?token=([A-Za-z0-9_-]{43})/.exec(text)?.[1] ?? "";
    const elsewhere = free.at(-1) ?? "";
    clock.advance(Date.parse(start) - clock.now().getTime() + 60_000);

    const post = (url: string, payload: string) =>
      t.app.inject({
        method: "POST",
        url,
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload,
      });
    const answers = [
      await browser().get(`/book/cancel?token=${cancelToken}`),
      await browser().get(`/book/reschedule?token=${moveToken}`),
      await post("/book/cancel", `token=${cancelToken}`),
      await post("/book/reschedule", `token=${moveToken}&start=${encodeURIComponent(elsewhere)}`),
    ];
    for (const answer of answers) {
      expect(answer.statusCode).toBe(409);
      const page = dom(answer.body);
      expect(page.querySelector("h1")?.textContent).toBe("This call has begun");
      expect(page.querySelector("form")).toBeNull();
    }
    // Still booked, at its time, and the reader was sent no change for their calendar.
    const [row] = await runSql(t, "select status, sequence from bookings where email = ?", [
      sent.email,
    ]);
    expect({ status: row?.status, sequence: Number(row?.sequence) }).toEqual({
      status: "booked",
      sequence: 0,
    });
    const kinds = (await runSql(t, "select kind from outbox where email = ?", [sent.email])).map(
      (mail) => mail.kind,
    );
    expect(kinds.filter((kind) => kind !== "booking_reminder")).toEqual(["booking_invitation"]);
    expect((await slots()).starts).toContain(elsewhere);

    // Deleted from Your data while it runs: gone, and neither side is told it was cancelled.
    const [{ id } = {}] = await runSql(t, "select id from bookings where email = ?", [sent.email]);
    const deletion = await reader.post("/api/your-data/delete", { confirm: true });
    expect(json(deletion, deleteYourDataResponseSchema).deleted).toMatchObject({ bookings: 1 });
    expect(await runSql(t, "select id from bookings where email = ?", [sent.email])).toEqual([]);
    const cancellations = await runSql(
      t,
      "select email from outbox where kind = 'booking_cancellation' and payload like ?",
      [`{"bookingId":${id},%`],
    );
    expect(cancellations).toEqual([]);
    expect(smtp.to(sent.email).filter(isCancellation)).toEqual([]);
    clock.advance(hourMs);
  });

  it("serves the owner's calendar feed at a secret address until it is revoked", async () => {
    const ownerBrowser = new Owner(t);
    expect((await ownerBrowser.signIn()).statusCode).toBe(200);
    const made = await ownerBrowser.post("/api/admin/bookings/feed");
    expect(made.statusCode).toBe(200);
    const { url } = json(made, feedResponseSchema);
    expect(url).toMatch(/^http:\/\/ewe\.test\/book\/feed\/[A-Za-z0-9_-]{43}\.ics$/);
    const path = url.slice(siteUrl.length);
    const feed = await browser().get(path);
    expect(feed.statusCode).toBe(200);
    expect(feed.headers["content-type"]).toContain("text/calendar");
    const { events } = readCalendar(feed.body);
    expect(events.length).toBeGreaterThan(0);
    expect(lineProblems(feed.body)).toEqual([]);
    const listed = await ownerBrowser.get("/api/admin/bookings");
    expect(listed.statusCode, listed.body).toBe(200);
    const list = json(listed, bookingsResponseSchema);
    expect(list.feed).toBe(true);
    const past = json(
      await ownerBrowser.get("/api/admin/bookings?when=past"),
      bookingsResponseSchema,
    );
    expect(list.bookings.length + past.bookings.length).toBeGreaterThan(0);

    expect((await ownerBrowser.delete("/api/admin/bookings/feed")).statusCode).toBe(204);
    expect((await browser().get(path)).statusCode).toBe(404);
    expect((await browser().get("/book/feed/nothing.ics")).statusCode).toBe(404);
  });
});

describe("booking a call from one connection", () => {
  let t: TestApp;
  const clock = movableClock();
  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      mail: { clock: clock.now },
      env: { COOKIE_SECRET: cookieSecret, BOOKING_TIMEZONE: ownerZone, BOOKINGS_PER_HOUR: "1" },
      clientFiles: {
        "book/index.html":
          '<!doctype html><title>Book a call</title><main><h1>Book a call</h1><ewe-fragment data-part="booking"></ewe-fragment></main>',
      },
    });
  });
  afterAll(() => t?.close());

  it("writes the form into the built page at each of its addresses, the file's own too", async () => {
    const reader = t.visitor({ ip: "10.8.0.9" });
    for (const url of ["/book", "/book/", "/book/index.html"]) {
      const page = await reader.get(url);
      expect(page.statusCode, url).toBe(200);
      expect(page.body, url).not.toContain("<ewe-fragment");
      const form = dom(page.body).querySelector("form.booking-form");
      expect(form?.getAttribute("action"), url).toBe("/book");
      expect(form?.querySelectorAll("input[name=start]").length, url).toBeGreaterThan(5);
    }
  });

  it("takes BOOKINGS_PER_HOUR an hour, then asks it to wait with 429 and Retry-After", async () => {
    const reader = t.visitor({ ip: "10.8.0.1" });
    const { starts } = json(await reader.get("/api/bookings/slots"), slotsResponseSchema);
    expect((await reader.post("/api/bookings", booking(starts[0] ?? ""))).statusCode).toBe(201);
    const second = booking(starts[1] ?? "");
    const refused = await reader.post("/api/bookings", second);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["retry-after"]).toBe("3600");
    expect(json(refused, errorResponseSchema).error.code).toBe("rate_limited");
    expect(await runSql(t, "select id from bookings where email = ?", [second.email])).toEqual([]);
    // Another connection is not held back.
    const elsewhere = t.visitor({ ip: "10.8.0.2" });
    expect((await elsewhere.post("/api/bookings", booking(starts[1] ?? ""))).statusCode).toBe(201);
  });

  it("holds as many calls ahead from one connection as it may book an hour, so one address cannot fill the calendar hour by hour", async () => {
    const reader = t.visitor({ ip: "10.8.0.5" });
    const { starts } = json(await reader.get("/api/bookings/slots"), slotsResponseSchema);
    const first = await reader.post("/api/bookings", booking(starts.at(-1) ?? ""));
    expect(first.statusCode).toBe(201);
    // An hour on, the hour's limit is over, but the call it booked is still ahead.
    clock.advance(hourMs + 60_000);
    const next = booking(starts.at(-2) ?? "");
    const refused = await reader.post("/api/bookings", next);
    expect(refused.statusCode).toBe(409);
    expect(json(refused, errorResponseSchema).error).toMatchObject({
      code: "too_many_pending",
      message:
        "Your connection has its most calls booked ahead already. Cancel one from its mail, or write to the contact address.",
    });
    expect(await runSql(t, "select id from bookings where email = ?", [next.email])).toEqual([]);
    // Once the call is over, the connection books again.
    clock.advance(31 * 24 * hourMs);
    const later = json(await reader.get("/api/bookings/slots"), slotsResponseSchema).starts;
    expect((await reader.post("/api/bookings", booking(later[0] ?? ""))).statusCode).toBe(201);
  });

  it("leaves a booking deleted from Your data in no file of the database soon after, the write-ahead log's included", async () => {
    const reader = t.visitor({ ip: "10.8.0.6" });
    const { starts } = json(await reader.get("/api/bookings/slots"), slotsResponseSchema);
    const marker = "Zephyrinwoldsby";
    const sent = booking(starts.at(-3) ?? "", { note: `Ask for ${marker} at the gate, please.` });
    expect((await reader.post("/api/bookings", sent)).statusCode).toBe(201);
    const files = () =>
      readdirSync(t.dataDir)
        .filter((name) => name.startsWith("engage.sqlite"))
        .filter((name) => readFileSync(path.join(t.dataDir, name)).includes(marker));
    expect(files().length).toBeGreaterThan(0);
    const deletion = await reader.post("/api/your-data/delete", { confirm: true });
    expect(json(deletion, deleteYourDataResponseSchema).deleted).toMatchObject({ bookings: 1 });
    await waitFor(async () => files().length === 0, {
      timeoutMs: 15_000,
      what: "the booking gone from every file of the database",
    });
  });

  it("answers the 61st page load of a minute from one address with 429, Retry-After and a page that says so", async () => {
    const reader = t.visitor({ ip: "10.8.0.3" });
    for (let load = 0; load < 60; load += 1) {
      expect((await reader.get("/book/times")).statusCode).toBe(200);
    }
    const post = t.app.inject({
      method: "POST",
      url: "/book",
      remoteAddress: "10.8.0.3",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: "name=Ada",
    });
    for (const refused of [await reader.get("/book"), await post]) {
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(refused.body).toContain(
        "Too many requests from your address; wait a minute and try again.",
      );
    }
    expect((await t.visitor({ ip: "10.8.0.4" }).get("/book/times")).statusCode).toBe(200);
  });
});

describe.each(backends)("a call moved with its site by export and import, on %s", (backend) => {
  const env = {
    COOKIE_SECRET: cookieSecret,
    OWNER_EMAIL: owner,
    BOOKING_TIMEZONE: ownerZone,
  };
  let smtp: SmtpSink;
  /** Site A, until it has been exported; then site B. */
  let old: TestApp | undefined;
  let site: TestApp | undefined;
  /** Site B, new for each test with its own mail server and clock: a data folder, and on PostgreSQL a database, that outlive a restart. */
  let moved: { dataDir: string };
  let databaseUrl: string | undefined;
  let clock: ReturnType<typeof movableClock>;
  /** The button of a reader's cancel link, pressed. */
  const cancelOn = (t: TestApp, token: string | null) =>
    t.app.inject({
      method: "POST",
      url: "/book/cancel",
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: `token=${token}`,
    });
  const start = () =>
    startTestApp(backend, {
      ...moved,
      ...(databaseUrl ? { databaseUrl } : {}),
      env: { ...env, SMTP_URL: smtp.url },
      mail: { clock: clock.now },
    });

  /** Site A takes `count` bookings and sends their invitations. */
  async function book(count: number) {
    old = await startTestApp(backend, { env: { ...env, SMTP_URL: smtp.url } });
    const { starts } = json(await old.visitor().get("/api/bookings/slots"), slotsResponseSchema);
    const calls = starts.slice(3, 3 + count).map((start) => booking(start));
    for (const one of calls) {
      expect((await old.visitor().post("/api/bookings", one)).statusCode).toBe(201);
    }
    await smtp.waitFor(() => calls.every((one) => smtp.to(one.email).length === 1));
    return calls;
  }

  /**
   * Site A exported and stopped; its file (as `edit` leaves it) imported into
   * site B: a new data folder (a new database), the same secret and settings.
   */
  async function move(edit: (document: ExportFile) => void = () => {}) {
    const file = path.join(moved.dataDir, "..", "site.json");
    const exported = await admin({ ...adminEnv(old as TestApp), ...env }, "export", "--out", file);
    expect(exported.code).toBe(0);
    await old?.close();
    old = undefined;
    const document = JSON.parse(readFileSync(file, "utf8"));
    edit(document);
    // Signed again, as the site's own export: only its calls are reminded.
    writeFileSync(file, JSON.stringify(signedExport(document, cookieSecret)));
    const target = { ...moved, databaseUrl };
    const imported = await admin(
      { ...adminEnv(target), ...env },
      "import",
      "--from",
      "export",
      file,
    );
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    return imported.stdout;
  }

  beforeEach(async () => {
    smtp = await startSmtpSink();
    clock = movableClock();
    moved = { dataDir: path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-moved-")), "data") };
    if (backend === "postgres") databaseUrl = await createDatabase(inject("postgresUrl"));
  });
  afterEach(async () => {
    await old?.close();
    await site?.close();
    [old, site] = [undefined, undefined];
    await smtp?.close();
    if (databaseUrl) await dropDatabase(databaseUrl);
  });

  it("reminds the reader and the owner once each from the new site, with links that work there, after a restart too", async () => {
    const [call, gone] = (await book(2)) as [Booking, Booking];
    // A call cancelled before the move has no reminders anywhere.
    expect((await cancelOn(old as TestApp, links(smtp.to(gone.email)[0]).cancel)).statusCode).toBe(
      200,
    );
    expect(await move()).toMatch(/bookings: 2 added/);
    site = await start();

    const reminders = (address: string) => smtp.to(address).filter(isReminder);
    const untilCall = () => Date.parse(call.start) - clock.now().getTime();
    clock.advance(untilCall() - 24 * hourMs + 60_000);
    await smtp.waitFor(() => reminders(call.email).length > 0 && reminders(owner).length > 0);
    expect(reminders(call.email)[0]?.parsed.text).toContain("Reminder: the call is tomorrow.");
    expect(reminders(owner)[0]?.parsed.text).toContain(call.name);

    // A restart of B queues nothing more: the four reminders, two of them sent.
    await site.close();
    site = await start();
    const queued = async () =>
      (
        await runSql(site as TestApp, "select status from outbox where kind = 'booking_reminder'")
      ).map((row) => row.status);
    expect(await queued()).toHaveLength(4);
    clock.advance(23 * hourMs);
    await smtp.waitFor(() => reminders(call.email).length === 2 && reminders(owner).length === 2);
    await expect.poll(queued, { timeout: 15_000 }).toEqual(["sent", "sent", "sent", "sent"]);
    expect(reminders(call.email)).toHaveLength(2);
    expect(reminders(owner)).toHaveLength(2);
    expect(reminders(call.email)[1]?.parsed.text).toContain("Reminder: the call is in an hour.");

    // The reader's links, made on B from the secret that moved with the site, cancel the call.
    const { cancel } = links(reminders(call.email)[1]);
    expect(cancel).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const page = await site.visitor().get(`/book/cancel?token=${cancel}`);
    expect(page.statusCode).toBe(200);
    expect((await cancelOn(site, cancel)).statusCode).toBe(200);
    expect(await runSql(site, "select status from bookings where email = ?", [call.email])).toEqual(
      [{ status: "cancelled" }],
    );
    await smtp.waitFor(() => smtp.to(call.email).some(isCancellation));
  });

  it("keeps a call's zone typed in another case by the list's name, and refuses a zone off the list", async () => {
    const [call] = (await book(1)) as [Booking];
    const zoned = (zone: string) => (document: ExportFile) => {
      for (const row of document.tables.bookings) Object.assign(row, { reader_zone: zone });
    };
    expect(await move(zoned("asia/kolkata"))).toMatch(/bookings: 1 added/);
    site = await start();
    expect(
      await runSql(site, "select reader_zone from bookings where email = ?", [call.email]),
    ).toEqual([{ reader_zone: "Asia/Kolkata" }]);
    // The same file with a zone no list holds is refused, by its row, and nothing is written.
    const file = path.join(moved.dataDir, "..", "site.json");
    const document = JSON.parse(readFileSync(file, "utf8"));
    zoned("Mars/Olympus")(document);
    writeFileSync(file, JSON.stringify(document));
    const refused = await admin(
      { ...adminEnv({ ...moved, databaseUrl }), ...env },
      "import",
      "--from",
      "export",
      "--dry-run",
      file,
    );
    expect(refused.code).not.toBe(0);
    expect(`${refused.stdout}${refused.stderr}`).toContain(
      "tables.bookings[0].reader_zone: is not on the time zone list",
    );
  });

  it("sends the latest reminder that fell due during the move at once, none the old site sent, none for a call begun", async () => {
    const calls = await book(4);
    // The move took two hours, and the calls are close now: the file as if
    // written two hours ago, its calls' times as they would be then.
    const now = Date.now();
    const startsIn = [0.5, 10, 23, -0.2].map((hours) => hours * hourMs);
    await move((document) => {
      document.exportedAt = new Date(now - 2 * hourMs).toISOString();
      for (const row of document.tables.bookings) {
        const length = Date.parse(row.ends_at) - Date.parse(row.starts_at);
        const start = now + (startsIn[calls.findIndex((one) => one.email === row.email)] as number);
        row.starts_at = new Date(start).toISOString();
        row.ends_at = new Date(start + length).toISOString();
      }
    });
    site = await start();

    // In half an hour: its hour-before reminder fell due during the move, and
    // goes now (not the day-before one, long past). In 23 hours: its day-before
    // reminder fell due during the move. In 10 hours: its day-before one was
    // the old site's to send, before the export. Begun: none.
    const [soon, later, tomorrow, begun] = calls as [Booking, Booking, Booking, Booking];
    const reminders = (address: string) => smtp.to(address).filter(isReminder);
    await smtp.waitFor(
      () =>
        reminders(soon.email).length === 1 &&
        reminders(tomorrow.email).length === 1 &&
        reminders(owner).length === 2,
    );
    expect(reminders(soon.email)[0]?.parsed.text).toContain("Reminder: the call is in an hour.");
    expect(reminders(tomorrow.email)[0]?.parsed.text).toContain("Reminder: the call is tomorrow.");
    type Row = { email: string; status: string };
    const sorted = (list: Row[]) =>
      list.map((row) => `${row.email} ${row.status}`).toSorted((a, b) => a.localeCompare(b));
    const rows = async () =>
      sorted(
        (await runSql(
          site as TestApp,
          "select email, status from outbox where kind = 'booking_reminder'",
        )) as Row[],
      );
    const left = (one: Booking) => [one.email, owner].map((email) => ({ email, status: "queued" }));
    const sent = (one: Booking) => [one.email, owner].map((email) => ({ email, status: "sent" }));
    // Then only the hour-before reminders of the two later calls wait, each for its time.
    await expect
      .poll(rows, { timeout: 15_000 })
      .toEqual(sorted([...sent(soon), ...sent(tomorrow), ...left(later), ...left(tomorrow)]));
    for (const one of [later, begun]) expect(reminders(one.email)).toEqual([]);
    expect(reminders(owner)).toHaveLength(2);
  });
});
