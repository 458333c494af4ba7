import { describe, expect, it } from "vitest";
import { bookingsResponseSchema } from "../../contract/bookings.ts";
import { owner, readerSideApp } from "./support/bookings.ts";
import { movableClock } from "./support/clock.ts";
import type { Owner } from "./support/owner.ts";
import type { Answer, SmtpSink } from "./support/smtp.ts";
import { lockWaiters, runSql } from "./support/sql.ts";
import { backends, json, type TestApp } from "./support/test-app.ts";

/*
 * A booked call's mails to one side go in the order they were queued
 * (docs/decisions/092-a-calls-mails-in-order.md): a reminder due while the reader's
 * server keeps refusing the invitation "for now" waits for it, and so does everything
 * else of the call to that side, never the other side's. And on PostgreSQL the owner's
 * cancellation of a call whose invitation is being refused for good at that moment
 * waits for that send, instead of each holding what the other waits for.
 */

const hourMs = 3_600_000;

describe.each(backends)("a booked call's mails in order on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  const clock = movableClock();
  let signedIn: Owner;
  const { book } = readerSideApp(backend, clock, "10.7.1", (side) => {
    ({ t, smtp, owner: signedIn } = side);
  });

  /** The owner's mails about the call of `name`, by their subject. */
  const ownerMails = (name: string) =>
    smtp.to(owner).filter((mail) => mail.parsed.subject?.includes(`Call with ${name}`));
  /** The state of the outbox row of `kind` to `email`. */
  const statusOf = async (kind: string, email: string) =>
    (await runSql(t, "select status from outbox where kind = ? and email = ?", [kind, email]))[0]
      ?.status;

  /** `address`'s server says "later" to every mail, until `takes()` says it takes them. */
  const sayLater = (address: string, takes = () => false) => {
    smtp.answer = (to): Answer =>
      !takes() && to.includes(address)
        ? { code: 451, message: "4.2.0 Try again later" }
        : undefined;
  };

  it("holds the reader's reminder until their invitation has gone, and sends the owner's meanwhile", async () => {
    const reader = `late-${backend}@example.org`;
    let refusing = true;
    sayLater(reader, () => !refusing);
    const { start, name } = await book(reader, 3);
    await smtp.waitFor(() => ownerMails(name).length === 1);

    // The day-before reminders fall due while the invitation is still refused.
    clock.advance(Date.parse(start) - clock.now().getTime() - 24 * hourMs + 60_000);
    await smtp.waitFor(() => ownerMails(name).length === 2);
    expect(ownerMails(name)[1]?.parsed.text).toContain("Reminder: the call is tomorrow.");
    // The owner's went: the reader's, due with it, waits behind its invitation.
    expect(smtp.to(reader)).toEqual([]);
    // Queued between its tries (a try in hand reads "sending" for its moment).
    await expect.poll(() => statusOf("booking_invitation", reader)).toBe("queued");
    expect(await statusOf("booking_reminder", reader)).toBe("queued");

    refusing = false;
    await smtp.waitFor(() => smtp.to(reader).length === 2);
    const [invitation, reminder] = smtp.to(reader);
    expect(invitation?.parsed.text).toContain("You're booked.");
    expect(reminder?.parsed.text).toContain("Reminder: the call is tomorrow.");
    expect(reminder?.parsed.inReplyTo).toBe(invitation?.parsed.messageId);
  });

  it("sends no day-before reminder once the hour-before one is due, and an invitation held up past the call's end not at all", async () => {
    const reader = `later-${backend}@example.org`;
    let refusing = true;
    sayLater(reader, () => !refusing);
    const { start, name } = await book(reader, 6);
    await smtp.waitFor(() => ownerMails(name).length === 1);
    // Both reminders due, the invitation refused still: each side is sent the hour-before
    // reminder alone, the reader after their invitation.
    clock.advance(Date.parse(start) - clock.now().getTime() - hourMs + 60_000);
    await smtp.waitFor(() => ownerMails(name).length === 2);
    expect(ownerMails(name)[1]?.parsed.text).toContain("Reminder: the call is in an hour.");
    expect(smtp.to(reader)).toEqual([]);
    refusing = false;
    await smtp.waitFor(() => smtp.to(reader).length === 2);
    expect(smtp.to(reader)[1]?.parsed.text).toContain("Reminder: the call is in an hour.");
    await expect
      .poll(async () =>
        (
          await runSql(t, "select last_error from outbox where kind = ? and email = ?", [
            "booking_reminder",
            reader,
          ])
        ).map((row) => row.last_error),
      )
      .toContain("the next reminder is due");

    // Another call whose reader's server refuses its invitation until the call is over.
    const gone = `over-${backend}@example.org`;
    sayLater(gone);
    const over = await book(gone, 9);
    await smtp.waitFor(() => ownerMails(over.name).length === 1);
    clock.advance(Date.parse(over.start) - clock.now().getTime() + 2 * hourMs);
    // Its next try is not made: it is dropped as it is taken up.
    const tried = () =>
      runSql(t, "select status, last_error from outbox where kind = ? and email = ?", [
        "booking_invitation",
        gone,
      ]);
    await expect.poll(tried).toEqual([{ status: "cancelled", last_error: "the call is over" }]);
    smtp.answer = () => undefined;
  });

  it.runIf(backend === "postgres")(
    "lets the owner's cancellation wait for the invitation being refused for good, without a deadlock",
    async () => {
      expect((await signedIn.signIn()).statusCode).toBe(200);
      const reader = `refused-${backend}@example.org`;
      let arrived = false;
      let answer: (value: Answer) => void = () => {};
      smtp.answer = (to) => {
        if (!to.includes(reader)) return undefined;
        arrived = true;
        return new Promise<Answer>((resolve) => {
          answer = resolve;
        });
      };
      const call = await book(reader, 12);
      const { name } = call;
      // The invitation is being sent: its row held by its sender's transaction.
      await expect.poll(() => arrived).toBe(true);
      // The owner's own invitation in first: a release drops that side's mails not yet sent.
      await smtp.waitFor(() => ownerMails(name).length === 1);
      const cancelling = signedIn.post(`/api/admin/bookings/${call.id}/cancel`, {
        message: "Something came up.",
      });
      // The owner's cancellation waits for that row.
      await expect.poll(() => lockWaiters(t)).toBeGreaterThanOrEqual(1);
      // Refused for good: the send releases the call (decision 090), in the transaction
      // that holds the row; then the owner's cancellation finds it released.
      answer({ code: 550, message: "5.1.1 <refused>: Recipient address rejected: User unknown" });
      const cancelled = await cancelling;
      expect(cancelled.statusCode, cancelled.body).toBe(404);
      const listed = json(
        await signedIn.get("/api/admin/bookings?when=upcoming"),
        bookingsResponseSchema,
      ).bookings.find((b) => b.id === call.id);
      expect(listed).toMatchObject({ status: "cancelled", undeliverable: true, cancelledBy: null });
      await smtp.waitFor(() => ownerMails(name).length === 2);
      expect(ownerMails(name)[1]?.parsed.text).toContain(
        "the reader's address does not receive mail",
      );
      // The invitation stays, failed, as any mail refused for good (decision 090).
      expect(await statusOf("booking_invitation", reader)).toBe("failed");
      // Nothing else of the call is left to send, to either side.
      await expect
        .poll(() =>
          runSql(
            t,
            "select kind from outbox where payload like ? and status in ('queued', 'sending')",
            [`{"bookingId":${call.id},%`],
          ),
        )
        .toEqual([]);
      expect(ownerMails(name)).toHaveLength(2);
    },
  );
});
