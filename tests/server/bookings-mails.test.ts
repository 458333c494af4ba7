import { describe, expect, it } from "vitest";
import { slotsResponseSchema } from "../../contract/bookings.ts";
import { momentLabel } from "../../contract/time-zones.ts";
import { calendarOfMail, lineProblems } from "../support/calendar.ts";
import { aged, bookingsApp, owner, ownerZone } from "./support/bookings.ts";
import { movableClock } from "./support/clock.ts";
import type { ReceivedMail, SmtpSink } from "./support/smtp.ts";
import { backends, json, siteUrl, type TestApp } from "./support/test-app.ts";

/*
 * A booked call's mails as calendars and mail programs read them: every calendar file the
 * site sends, read by Mozilla's iCalendar parser (ical.js, the one Thunderbird uses), and
 * every mail of one call to one side in one conversation, as Gmail and Outlook group them
 * (by the subject, Re: aside, and the first mail's Message-ID).
 */

const hourMs = 3_600_000;

/** A name and a note with every character iCalendar escapes or quotes. */
const name = 'Ravi "RK" Kumar, Jr.; Pune';
const note = "Two things, briefly:\nthe pump; and the seal\\gasket, both.";

/** A subject as Gmail and Outlook group conversations by: without Re: or Fwd:. */
const topic = (subject: string | undefined) => (subject ?? "").replace(/^((re|fwd?):\s*)+/i, "");

describe.each(backends)("a booked call's mails on %s", (backend) => {
  let smtp: SmtpSink;
  let t: TestApp;
  const clock = movableClock();
  let ip = 0;
  const browser = () => t.visitor({ ip: `10.9.${Math.floor(++ip / 250)}.${ip % 250}` });
  const form = (url: string, fields: Record<string, string>) =>
    t.app.inject({
      method: "POST",
      url,
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams(fields).toString(),
    });
  /** The reader's link token of the latest mail to `address`. */
  const tokenIn = (address: string) =>
    /\/book\/cancel\?token=([A-Za-z0-9_-]{43})/.exec(
      smtp.to(address).at(-1)?.parsed.text ?? "",
    )?.[1] ?? "";

  bookingsApp(
    backend,
    clock,
    {
      // On the owner's domain: the reader's mails come from the owner, the organiser.
      MAIL_FROM: "news@example.com",
      BOOKING_MEETING_URL: "https://meet.example.org/engineer",
    },
    (app) => ({ t, smtp } = app),
  );

  it("sends invitation, reminder, move and cancellation to each side in one conversation, each calendar file one that calendars read", async () => {
    const { starts } = json(await browser().get("/api/bookings/slots"), slotsResponseSchema);
    const [first, other, later] = [starts[3] ?? "", starts[5] ?? "", starts[9] ?? ""];
    const reader = `ravi.${backend}@example.org`;
    const stranger = `meera.${backend}@example.org`;
    const book = (start: string, email: string, as: string) =>
      browser().post("/api/bookings", {
        start,
        name: as,
        email,
        service: "dfmea",
        note,
        zone: "Asia/Kolkata",
        formToken: aged(),
      });
    // Another reader's call, booked first: nothing of it may reach Ravi's mails.
    expect((await book(other, stranger, "Meera Iyer")).statusCode).toBe(201);
    expect((await book(first, reader, name)).statusCode).toBe(201);
    await smtp.waitFor(() => smtp.to(reader).length === 1);
    const uid = calendarOfMail(smtp.to(reader)[0])?.event.uid ?? "";
    const ours = (mail: ReceivedMail) => mail.parsed.messageId?.includes(uid) === true;
    // The owner's copy too, before the clock moves: the first of the owner's mails of the call.
    await smtp.waitFor(() => smtp.to(owner).filter(ours).length === 1);

    // The reminder a day before, then a move to a later time, then the reader cancels.
    clock.advance(Date.parse(first) - clock.now().getTime() - 24 * hourMs + 60_000);
    // Each side's reminder in before the move, which drops a reminder not yet sent.
    await smtp.waitFor(
      () => smtp.to(reader).length === 2 && smtp.to(owner).filter(ours).length === 2,
    );
    expect(
      (await form("/book/reschedule", { token: tokenIn(reader), start: later })).statusCode,
    ).toBe(200);
    // Each side's moved invitation in before the cancellation, which drops a mail not yet sent.
    await smtp.waitFor(
      () => smtp.to(reader).length === 3 && smtp.to(owner).filter(ours).length === 3,
    );
    // The owner's says from when to when, in the owner's zone; the reader's the new time.
    const inOwnersZone = (start: string) => momentLabel(Date.parse(start), ownerZone);
    expect(smtp.to(owner).filter(ours)[2]?.parsed.text).toContain(
      `A reader moved their call from ${inOwnersZone(first)} to ${inOwnersZone(later)}.`,
    );
    expect(smtp.to(reader)[2]?.parsed.text).toContain("Your call has moved. The new time:");
    expect((await form("/book/cancel", { token: tokenIn(reader) })).statusCode).toBe(200);
    await smtp.waitFor(() => smtp.to(reader).length === 4);
    await smtp.waitFor(() => smtp.to(owner).filter(ours).length === 4);

    for (const [side, mails] of [
      ["reader", smtp.to(reader)],
      ["owner", smtp.to(owner).filter(ours)],
    ] as const) {
      // One conversation: one subject, and every later mail answers the first.
      const [opening, ...rest] = mails;
      // From the organiser, so that Outlook does not say "on behalf of"; the owner's from MAIL_FROM.
      expect(
        new Set(
          mails.map((mail) =>
            mail.parsed.from?.value.map((who) => `${who.name} <${who.address}>`).join(),
          ),
        ),
        side,
      ).toEqual(
        new Set([
          side === "reader"
            ? `Arjun Rao <${owner}>`
            : "Arjun Rao from Engage with Engineer <news@example.com>",
        ]),
      );
      expect(
        mails.map((mail) => mail.parsed.headers.has("sender")),
        side,
      ).not.toContain(true);
      expect(new Set(mails.map((mail) => topic(mail.parsed.subject))).size, side).toBe(1);
      for (const mail of rest) {
        expect(mail.parsed.inReplyTo, side).toBe(opening?.parsed.messageId);
        expect([mail.parsed.references].flat(), side).toContain(opening?.parsed.messageId);
      }

      // The reader is invited; the owner organises the call, and an invitation from oneself
      // is one calendars do not act on: the owner's copy is published to them (RFC 5546 3.2.1).
      const calendars = mails.map(calendarOfMail).filter((part) => part !== null);
      expect(
        calendars.map((part) => part.method),
        side,
      ).toEqual(
        side === "reader" ? ["REQUEST", "REQUEST", "CANCEL"] : ["PUBLISH", "PUBLISH", "CANCEL"],
      );
      const events = calendars.map((part) => part.event);
      expect(
        events.map((event) => event.sequence),
        side,
      ).toEqual([0, 1, 2]);
      expect(
        events.map((event) => event.status),
        side,
      ).toEqual(["CONFIRMED", "CONFIRMED", "CANCELLED"]);
      const times = [first, later, later];
      // The cancelled call's file promises no link to it.
      // The owner's names the reader first, as its attendees would have.
      const said = side === "owner" ? `With ${name} <${reader}>\n` : "";
      expect(
        events.map((event) => event.description),
        side,
      ).toEqual(
        [
          "Join the call: https://meet.example.org/engineer",
          "Join the call: https://meet.example.org/engineer",
          "This call is cancelled.",
        ].map((text) => said + text),
      );
      events.forEach((event, index) => {
        const part = calendars[index] as NonNullable<ReturnType<typeof calendarOfMail>>;
        expect(lineProblems(part.text), side).toEqual([]);
        // Outlook reads the method from the MIME part: it must be the file's.
        expect(part.partMethod, side).toBe(part.method);
        expect(event.uid, side).toBe(uid);
        expect(event.stamped, side).toBe(true);
        // In UTC, which every calendar reads without a VTIMEZONE.
        expect(event.startZone, side).toBe("UTC");
        expect(event.start.toISOString(), side).toBe(times[index]);
        expect(event.end.getTime() - event.start.getTime(), side).toBe(30 * 60_000);
        expect(event.organizer.address, side).toBe(owner);
        // The reader attends; a published event has no attendees: its description names them.
        expect(
          event.attendees.map((person) => person.address),
          side,
        ).toEqual(side === "reader" ? [reader] : []);
        // No one else's address, nor the other reader's name.
        const addresses = part.text.replace(/\r\n[ \t]/g, "").match(/[\w.+-]+@[\w.-]+\.\w+/g) ?? [];
        expect(
          new Set(addresses.filter((address) => !address.startsWith("booking."))),
          side,
        ).toEqual(new Set([owner, reader]));
        expect(part.text, side).not.toContain("Meera");
      });
      if (side === "owner") {
        // Escaped, the name reads back as typed; as a parameter, its double quotes go as
        // single ones, not as RFC 6868's ^', which Outlook and Google Calendar show as written.
        for (const event of events) expect(event.summary).toBe(`Call with ${name}: DFMEA`);
      } else {
        // The reader's mails carry nothing they typed.
        for (const part of calendars) expect(part.text).not.toContain("Ravi");
      }
    }
  });
});
