import { describe, expect, it } from "vitest";
import { momentLabel } from "../../contract/time-zones.ts";
import { calendarOfMail } from "../support/calendar.ts";
import { owner, ownerZone, readerSideApp } from "./support/bookings.ts";
import { movableClock } from "./support/clock.ts";
import type { Owner } from "./support/owner.ts";
import { type Answer, header, type ReceivedMail, type SmtpSink } from "./support/smtp.ts";
import { runSql } from "./support/sql.ts";
import { backends, siteUrl, type TestApp } from "./support/test-app.ts";

/*
 * A call changed while one side's mail of it has not gone yet
 * (docs/decisions/095-what-a-side-is-told-is-what-its-calendar-holds.md): each side is
 * told what makes its calendar right, from what it was last sent. A call released
 * before the owner was sent its invitation is news of a booking that fell through, not a
 * cancellation; two moves before the first one's mail went are one mail, from the time
 * the calendar holds; a cancellation or a move before the reader's first invitation went
 * is the first mail of their thread, a cancellation without a calendar file.
 */

describe.each(backends)("a call's mails that would cross on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  const clock = movableClock();
  let signedIn: Owner;
  const { free, book } = readerSideApp(backend, clock, "10.7.3", (side) => {
    ({ t, smtp, owner: signedIn } = side);
  });
  /** The owner's mails about the call of `email`: each names the reader's address. */
  const ownerMails = (email: string) =>
    smtp.to(owner).filter((mail) => mail.parsed.text?.includes(email));
  /** `address`'s server says "later" to every mail while `refusing()` holds, and `others` answers the rest. */
  const later =
    (
      address: string,
      refusing: () => boolean,
      others: (to: string[]) => Answer = () => undefined,
    ) =>
    (to: string[]): Answer =>
      to.includes(address) && refusing()
        ? { code: 451, message: "4.2.0 Try again later" }
        : others(to);
  /**
   * Once the invitation of call `id` to `email` was refused "for now", its next try an hour
   * away, as a server that asks to wait does: not in hand when the call changes. On
   * PostgreSQL the statement waits for a try in hand; on SQLite that one is `sending`.
   */
  const heldUp = (id: number, email: string) =>
    expect
      .poll(
        async () =>
          (
            await runSql(
              t,
              "update outbox set next_attempt_at = ? where kind = 'booking_invitation' and email = ? and status = 'queued' and attempts >= 1 and payload like ? returning id",
              [
                new Date(clock.now().getTime() + 3_600_000).toISOString(),
                email,
                `{"bookingId":${id},%`,
              ],
            )
          ).length,
        { timeout: 20_000 },
      )
      .toBe(1);
  /** Once nothing of call `id` but its reminders is left to send, to either side. */
  const settled = (id: number) =>
    expect
      .poll(
        () =>
          runSql(
            t,
            "select kind from outbox where payload like ? and kind <> 'booking_reminder' and status in ('queued', 'sending')",
            [`{"bookingId":${id},%`],
          ),
        { timeout: 20_000 },
      )
      .toEqual([]);
  /** The reader presses a link of `mail` ("reschedule" to `start`, or "cancel"). */
  const readerPost = (mail: ReceivedMail | undefined, path: "reschedule" | "cancel", start = "") =>
    t.app.inject({
      method: "POST",
      url: `/book/${path}`,
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({
        token: /\/book\/cancel\?token=([A-Za-z0-9_-]{43})/.exec(mail?.parsed.text ?? "")?.[1] ?? "",
        start,
      }).toString(),
    });
  const readerMove = (mail: ReceivedMail | undefined, start: string) =>
    readerPost(mail, "reschedule", start);
  const ownerMove = async (id: number, start: string, reason: string) => {
    const response = await signedIn.post(`/api/admin/bookings/${id}/move`, { start, reason });
    expect(response.statusCode, response.body).toBe(200);
  };
  const at = (iso: string) => momentLabel(Date.parse(iso), ownerZone);

  /**
   * A call booked for `reader` at the `index`th free time, both invitations in; then the
   * server of `address` says "later" until `done()`.
   */
  async function bookedThenHeld(reader: string, index: number, address: string) {
    const call = await book(reader, index);
    await smtp.waitFor(() => ownerMails(reader).length === 1 && smtp.to(reader).length === 1);
    let holding = true;
    smtp.answer = later(address, () => holding);
    return {
      call,
      done: () => {
        holding = false;
      },
    };
  }
  /** …and the reader moves it to the `to`th free time: the reader's mail of it in, the owner's held up. */
  async function movedWhileOwnerHeld(reader: string, index: number, to: number) {
    const held = await bookedThenHeld(reader, index, owner);
    expect((await readerMove(smtp.to(reader)[0], (await free())[to] ?? "")).statusCode).toBe(200);
    await smtp.waitFor(() => smtp.to(reader).length === 2);
    await heldUp(held.call.id, owner);
    return held;
  }

  it("tells the owner of a booking whose invitation bounced before theirs went, with no cancellation", async () => {
    expect((await signedIn.signIn()).statusCode).toBe(200);
    const nobody = `nobody-${backend}@example.org`;
    let released = false;
    let refuse = () => {};
    const refused = new Promise<Answer>((resolve) => {
      refuse = () =>
        resolve({ code: 550, message: "5.1.1 <nobody>: Recipient address rejected: User unknown" });
    });
    // The owner's server says "later" until the call is released; the reader's refuses the
    // invitation for good once the owner's is held up.
    smtp.answer = (to) => (to.includes(nobody) ? refused : later(owner, () => !released)(to));
    const call = await book(nobody, 2);
    await heldUp(call.id, owner);
    refuse();
    await expect
      .poll(
        async () => (await runSql(t, "select status from bookings where id = ?", [call.id]))[0],
        {
          timeout: 20_000,
        },
      )
      .toEqual({ status: "cancelled" });
    released = true;
    await settled(call.id);

    const [news, ...more] = ownerMails(nobody);
    expect(more).toEqual([]);
    expect(news?.parsed.text).toContain(
      "A reader booked a call, but their address does not receive mail: the invitation to it bounced, so the call was not kept and the time is free again.",
    );
    expect(news?.parsed.text).toContain(`With: ${call.name} <${nobody}>`);
    expect(news?.parsed.text).toContain(`When: ${at(call.start)}`);
    // Nothing to take out of a calendar that was sent nothing, and nothing the reader typed
    // in its headers: the time in its subject, no Reply-To to the address that bounced.
    expect(calendarOfMail(news)).toBeNull();
    expect(news?.parsed.subject).toBe(`Not booked: call on ${at(call.start)}`);
    expect(header(news as ReceivedMail, "reply-to")).toBe("");
    expect(news?.parsed.inReplyTo).toBeUndefined();
    expect(smtp.to(nobody)).toEqual([]);
    expect(await free()).toContain(call.start);
    smtp.answer = () => undefined;
  });

  it("sends the owner one move for the reader's two, from the time their calendar holds", async () => {
    const reader = `twice-${backend}@example.org`;
    const { call, done } = await movedWhileOwnerHeld(reader, 5, 8);
    const third = (await free())[11] ?? "";
    expect((await readerMove(smtp.to(reader)[1], third)).statusCode).toBe(200);
    await smtp.waitFor(() => smtp.to(reader).length === 3);
    done();
    await settled(call.id);

    const [booked, moved, ...more] = ownerMails(reader);
    expect(more).toEqual([]);
    expect(moved?.parsed.text).toContain(
      `A reader moved their call from ${at(call.start)} to ${at(third)}.`,
    );
    expect(moved?.parsed.inReplyTo).toBe(booked?.parsed.messageId);
    expect(calendarOfMail(moved)?.event).toMatchObject({ uid: call.uid, sequence: 2 });
    expect(calendarOfMail(moved)?.event.start.toISOString()).toBe(third);
    // The reader had each move's mail (the second move came from the first one's links).
    const readers = smtp.to(reader);
    expect(readers.map((mail) => calendarOfMail(mail)?.event.sequence)).toEqual([0, 1, 2]);
    expect(readers[2]?.parsed.text).toContain("Your call has moved. The new time:");
    expect(readers[2]?.parsed.inReplyTo).toBe(readers[0]?.parsed.messageId);
    smtp.answer = () => undefined;
  });

  it.runIf(backend === "sqlite")(
    "says the move from the time the owner holds when the first one's mail was in hand and then put off",
    async () => {
      const reader = `inhand-${backend}@example.org`;
      const call = await book(reader, 36);
      await smtp.waitFor(() => ownerMails(reader).length === 1 && smtp.to(reader).length === 1);
      // The owner's server holds its answer to the first move's mail: on SQLite the second
      // move does not wait for it, and meets it being sent.
      let answer: ((value: Answer) => void) | undefined;
      smtp.answer = (to) =>
        to.includes(owner) && !answer
          ? new Promise<Answer>((resolve) => {
              answer = resolve;
            })
          : undefined;
      expect((await readerMove(smtp.to(reader)[0], (await free())[38] ?? "")).statusCode).toBe(200);
      await smtp.waitFor(() => smtp.to(reader).length === 2);
      await expect.poll(() => answer !== undefined, { timeout: 20_000 }).toBe(true);
      const third = (await free())[40] ?? "";
      expect((await readerMove(smtp.to(reader)[1], third)).statusCode).toBe(200);
      answer?.({ code: 451, message: "4.2.0 Try again later" });
      await settled(call.id);

      const [, moved, ...more] = ownerMails(reader);
      expect(more).toEqual([]);
      expect(moved?.parsed.text).toContain(
        `A reader moved their call from ${at(call.start)} to ${at(third)}.`,
      );
      smtp.answer = () => undefined;
    },
  );

  it("sends the owner nothing for a move away and back before the first one's mail went", async () => {
    const reader = `back-${backend}@example.org`;
    const { call, done } = await movedWhileOwnerHeld(reader, 28, 30);
    expect((await readerMove(smtp.to(reader)[1], call.start)).statusCode).toBe(200);
    await smtp.waitFor(() => smtp.to(reader).length === 3);
    done();
    await settled(call.id);
    // Their calendar holds that time already; the reader, whose links changed, has each.
    expect(ownerMails(reader)).toHaveLength(1);
    expect(calendarOfMail(smtp.to(reader)[2])?.event.start.toISOString()).toBe(call.start);
    smtp.answer = () => undefined;
  });

  it("cancels in the owner's calendar the time it holds, when the reader's move had not reached it", async () => {
    const reader = `gone-${backend}@example.org`;
    const { call, done } = await movedWhileOwnerHeld(reader, 32, 34);
    expect((await readerPost(smtp.to(reader)[1], "cancel")).statusCode).toBe(200);
    done();
    await settled(call.id);

    const [booked, cancellation, ...more] = ownerMails(reader);
    expect(more).toEqual([]);
    expect(cancellation?.parsed.text).toContain("The reader cancelled this call.");
    expect(cancellation?.parsed.text).toContain(`When: ${at(call.start)}`);
    expect(cancellation?.parsed.inReplyTo).toBe(booked?.parsed.messageId);
    expect(calendarOfMail(cancellation)).toMatchObject({ method: "CANCEL" });
    expect(calendarOfMail(cancellation)?.event).toMatchObject({ uid: call.uid, sequence: 2 });
    expect(calendarOfMail(cancellation)?.event.start.toISOString()).toBe(call.start);
    // The reader, who had the move, is told of the time they moved to.
    const readers = smtp.to(reader);
    expect(readers).toHaveLength(3);
    expect(calendarOfMail(readers[2])?.event.start).toEqual(
      calendarOfMail(readers[1])?.event.start,
    );
    smtp.answer = () => undefined;
  });

  it("sends the reader one move for the owner's two, answering the invitation they have", async () => {
    expect((await signedIn.signIn()).statusCode).toBe(200);
    const reader = `moved-${backend}@example.org`;
    const { call, done } = await bookedThenHeld(reader, 14, reader);
    const [second, third] = [(await free())[16] ?? "", (await free())[18] ?? ""];
    await ownerMove(call.id, second, "A site visit.");
    await heldUp(call.id, reader);
    await ownerMove(call.id, third, "The visit moved.");
    done();
    await settled(call.id);

    const [invited, moved, ...more] = smtp.to(reader);
    expect(more).toEqual([]);
    expect(moved?.parsed.text).toContain("moved your call: The visit moved.");
    expect(moved?.parsed.text).not.toContain("Accept the invitation attached");
    expect(moved?.parsed.inReplyTo).toBe(invited?.parsed.messageId);
    expect(calendarOfMail(moved)).toMatchObject({ method: "REQUEST" });
    expect(calendarOfMail(moved)?.event).toMatchObject({ uid: call.uid, sequence: 2 });
    expect(calendarOfMail(moved)?.event.start.toISOString()).toBe(third);
    // The owner, whose server took each, had each.
    expect(ownerMails(reader).map((mail) => calendarOfMail(mail)?.event.sequence)).toEqual([
      0, 1, 2,
    ]);
    smtp.answer = () => undefined;
  });

  it("sends a reader whose invitation is held up the owner's cancellation without a calendar file, as the first mail of the call", async () => {
    expect((await signedIn.signIn()).statusCode).toBe(200);
    const reader = `held-${backend}@example.org`;
    let holding = true;
    smtp.answer = later(reader, () => holding);
    const call = await book(reader, 20);
    await smtp.waitFor(() => ownerMails(reader).length === 1);
    await heldUp(call.id, reader);
    const cancelled = await signedIn.post(`/api/admin/bookings/${call.id}/cancel`, {
      message: "Something came up.",
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    holding = false;
    await settled(call.id);

    const [mail, ...more] = smtp.to(reader);
    expect(more).toEqual([]);
    expect(mail?.parsed.text).toContain(
      "had to cancel this call. No invitation of it had been sent to you, so there is nothing to take out of your calendar.",
    );
    expect(mail?.parsed.text).toContain("Something came up.");
    expect(calendarOfMail(mail)).toBeNull();
    expect(mail?.parsed.inReplyTo).toBeUndefined();
    // The owner, who had the invitation, is sent the cancellation that takes it out.
    const [booked, cancellation] = ownerMails(reader);
    expect(calendarOfMail(cancellation)).toMatchObject({ method: "CANCEL" });
    expect(calendarOfMail(cancellation)?.event).toMatchObject({ uid: call.uid, sequence: 1 });
    expect(cancellation?.parsed.inReplyTo).toBe(booked?.parsed.messageId);
    smtp.answer = () => undefined;
  });

  it("sends an owner whose invitation is held up the reader's move as their first invitation", async () => {
    const reader = `early-${backend}@example.org`;
    let holding = true;
    smtp.answer = later(owner, () => holding);
    const call = await book(reader, 44);
    await smtp.waitFor(() => smtp.to(reader).length === 1);
    await heldUp(call.id, owner);
    const moveTo = (await free())[46] ?? "";
    expect((await readerMove(smtp.to(reader)[0], moveTo)).statusCode).toBe(200);
    holding = false;
    await settled(call.id);

    const [mail, ...more] = ownerMails(reader);
    expect(more).toEqual([]);
    expect(mail?.parsed.text).toContain("A reader booked a call.");
    expect(calendarOfMail(mail)).toMatchObject({ method: "PUBLISH" });
    expect(calendarOfMail(mail)?.event).toMatchObject({ uid: call.uid, sequence: 1 });
    expect(calendarOfMail(mail)?.event.start.toISOString()).toBe(moveTo);
    expect(mail?.parsed.messageId).toBe(`<owner.${call.uid}>`);
    expect(mail?.parsed.inReplyTo).toBeUndefined();
    smtp.answer = () => undefined;
  });

  it("mails neither side a call erased from Your data before its invitations went", async () => {
    const reader = `erased-${backend}@example.org`;
    const ownersBefore = smtp.to(owner).length;
    let holding = true;
    smtp.answer = later(
      reader,
      () => holding,
      later(owner, () => holding),
    );
    const call = await book(reader, 42);
    await heldUp(call.id, reader);
    await heldUp(call.id, owner);
    const erased = await call.browser.post("/api/your-data/delete", { confirm: true });
    expect(erased.statusCode, erased.body).toBe(200);
    holding = false;
    await settled(call.id);
    // Nothing of it reached either calendar, and whoever typed the address asked for it gone.
    expect(smtp.to(reader)).toEqual([]);
    expect(smtp.to(owner)).toHaveLength(ownersBefore);
    smtp.answer = () => undefined;
  });

  it("sends a reader whose invitation is held up the owner's move as their first invitation, at its new time", async () => {
    expect((await signedIn.signIn()).statusCode).toBe(200);
    const reader = `first-${backend}@example.org`;
    let holding = true;
    smtp.answer = later(reader, () => holding);
    const call = await book(reader, 24);
    await smtp.waitFor(() => ownerMails(reader).length === 1);
    await heldUp(call.id, reader);
    const moveTo = (await free())[26] ?? "";
    await ownerMove(call.id, moveTo, "");
    holding = false;
    await settled(call.id);

    const [mail, ...more] = smtp.to(reader);
    expect(more).toEqual([]);
    expect(mail?.parsed.text).toContain("moved your call.");
    expect(mail?.parsed.text).toContain(
      "Accept the invitation attached to put the call in your calendar.",
    );
    // Its calendar adds the call (the call's UID, the sequence it is at), and it opens the
    // reader's thread, which the reminders answer.
    const calendar = calendarOfMail(mail);
    expect(calendar).toMatchObject({ method: "REQUEST" });
    expect(calendar?.event).toMatchObject({ uid: call.uid, sequence: 1 });
    expect(calendar?.event.start.toISOString()).toBe(moveTo);
    expect(mail?.parsed.messageId).toBe(`<reader.${call.uid}>`);
    expect(mail?.parsed.inReplyTo).toBeUndefined();
    smtp.answer = () => undefined;
  });
});
