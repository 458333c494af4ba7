import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bookingsResponseSchema, slotsResponseSchema } from "../../contract/bookings.ts";
import { healthResponseSchema } from "../../contract/console.ts";
import { calendarOfMail } from "../support/calendar.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { bookingsApp, cookieSecret, owner, postBooking } from "./support/bookings.ts";
import { movableClock } from "./support/clock.ts";
import { deliveryReport } from "./support/delivery-report.ts";
import { type ImapServer, startImapServer } from "./support/imap.ts";
import { Owner } from "./support/owner.ts";
import { header, type ReceivedMail, type SmtpSink } from "./support/smtp.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, siteUrl, type TestApp } from "./support/test-app.ts";

/*
 * A call booked under an address that does not receive mail is released
 * (docs/decisions/090-a-booking-whose-address-bounces-is-released.md): when
 * its invitation is refused for good by the reader's server, or a verified
 * provider reports it so, the time is free again, the owner's list says why,
 * and the owner is sent the cancellation that takes their copy out. A full
 * mailbox, a report nobody signed, or the owner's own mail bouncing, changes nothing.
 */

describe.each(backends)("a booking whose invitation bounces on %s", (backend) => {
  const secret = "postmark-hook-secret-for-bookings";
  let t: TestApp;
  let smtp: SmtpSink;
  const clock = movableClock();
  let signedIn: Owner;
  let readers = 0;
  bookingsApp(backend, clock, { POSTMARK_WEBHOOK_SECRET: secret }, (app) => {
    ({ t, smtp } = app);
  });
  beforeAll(async () => {
    signedIn = new Owner(t);
    expect((await signedIn.signIn()).statusCode).toBe(200);
  });

  const free = async () =>
    json(await t.visitor().get("/api/bookings/slots"), slotsResponseSchema).starts;
  const listed = async (email: string) => {
    const response = await signedIn.get("/api/admin/bookings?when=upcoming");
    return json(response, bookingsResponseSchema).bookings.find((b) => b.email === email);
  };
  const postmark = (email: string, type: string, password = secret) =>
    t.app.inject({
      method: "POST",
      url: "/hooks/postmark",
      headers: {
        "content-type": "application/json",
        authorization: `Basic ${Buffer.from(`postmark:${password}`).toString("base64")}`,
      },
      payload: JSON.stringify({
        RecordType: "Bounce",
        ID: Math.floor(Math.random() * 1e9),
        Type: type,
        Email: email,
        Description: "The server was unable to deliver your message",
      }),
    });
  /** What became of the reader's invitation to `email` in the outbox. */
  const invitationStatus = async (email: string) =>
    (
      await runSql(t, "select status from outbox where kind = 'booking_invitation' and email = ?", [
        email,
      ])
    )[0]?.status;
  /** The mails given up after their tries or refused for good, as Health counts them. */
  const givenUp = async () =>
    json(await signedIn.get("/api/admin/health"), healthResponseSchema).outbox.failed;
  /** The owner's mails about the call of `email`, by the name in their subject. */
  const ownerMails = (name: string) =>
    smtp.to(owner).filter((mail) => mail.parsed.subject?.includes(`Call with ${name}`));

  it("frees the time when the reader's server refuses the invitation for good, and tells the owner", async () => {
    const nobody = `nobody-${backend}@example.org`;
    // Refused for good once the owner's invitation is in: the release drops a mail not yet sent.
    smtp.answer = async (to) => {
      if (!to.includes(nobody)) return undefined;
      await smtp.waitFor(() => ownerMails("Reader nobody").length === 1);
      return { code: 550, message: "5.1.1 <nobody>: Recipient address rejected: User unknown" };
    };
    const failedBefore = await givenUp();
    const { start } = await bookFor(nobody, 2);

    await expect
      .poll(async () => (await listed(nobody))?.status, { timeout: 20_000 })
      .toBe("cancelled");
    // The invitation stays, failed with the server's answer and counted a bounce, on Health
    // among the mails given up, as any mail refused for good (its release took nothing of it).
    const [invitation] = await runSql(
      t,
      "select status, last_error, feedback from outbox where kind = 'booking_invitation' and email = ?",
      [nobody],
    );
    expect(invitation).toMatchObject({ status: "failed", feedback: "bounce" });
    expect(invitation?.last_error).toContain("5.1.1");
    expect(await givenUp()).toBe(failedBefore + 1);
    const call = await listed(nobody);
    expect(call).toMatchObject({ undeliverable: true, cancelledBy: null });
    // The time is free again, for the next reader.
    expect(await free()).toContain(start);
    // The owner was sent the invitation, then the cancellation that takes its copy out.
    await smtp.waitFor(() => ownerMails("Reader nobody").length === 2);
    const cancellation = ownerMails("Reader nobody")[1];
    expect(cancellation?.parsed.text).toContain(
      "This call is cancelled: the reader's address does not receive mail",
    );
    expect(calendarOfMail(cancellation)?.method).toBe("CANCEL");
    // The owner's reply would go nowhere: no Reply-To to the address that bounced.
    expect(header(cancellation as ReceivedMail, "reply-to")).toBe("");
    // Nothing more was tried on the address: no reminder, no cancellation waits for it.
    const waiting = await runSql(
      t,
      "select kind from outbox where lower(email) = ? and status in ('queued', 'sending')",
      [nobody],
    );
    expect(waiting).toEqual([]);
    smtp.answer = () => undefined;
  });

  it("keeps the call when the mailbox is full, or when the owner's own copy bounces", async () => {
    const full = `full-${backend}@example.org`;
    smtp.recipient = (address) =>
      address === full ? { code: 552, message: "5.2.2 Mailbox full" } : undefined;
    const call = await bookFor(full);
    await expect.poll(() => invitationStatus(full), { timeout: 20_000 }).toBe("failed");
    expect((await listed(full))?.status).toBe("booked");
    expect(await free()).not.toContain(call.start);
    smtp.recipient = () => undefined;
  });

  it("frees the time on a verified provider's hard bounce of the invitation, not on an unverified or soft one", async () => {
    const gone = `gone-${backend}@example.org`;
    const call = await bookFor(gone);
    // The owner's invitation in before the report, whose release drops a mail not yet sent.
    await smtp.waitFor(() => ownerMails(call.name).length === 1);
    expect((await postmark(gone, "HardBounce", "not-the-secret")).statusCode).toBe(401);
    expect((await postmark(gone, "SoftBounce")).statusCode).toBe(200);
    expect((await listed(gone))?.status).toBe("booked");

    expect((await postmark(gone, "HardBounce")).statusCode).toBe(200);
    expect(await listed(gone)).toMatchObject({ status: "cancelled", undeliverable: true });
    expect(await free()).toContain(call.start);
    await smtp.waitFor(() => ownerMails(call.name).length === 2);
    // A report of the owner's own mail releases nothing.
    const kept = await bookFor(`kept-${backend}@example.org`);
    await smtp.waitFor(() => ownerMails(kept.name).length === 1);
    expect((await postmark(owner, "HardBounce")).statusCode).toBe(200);
    expect((await listed(kept.email))?.status).toBe("booked");
  });

  it("keeps a call that has begun when its invitation is refused for good, at send time or in a report", async () => {
    const late = `late-${backend}@example.org`;
    const reported = `reported-${backend}@example.org`;
    // The reader's server says "later" until the call has begun, then refuses it for good.
    let begun = false;
    smtp.answer = (to) =>
      !to.includes(late)
        ? undefined
        : begun
          ? { code: 550, message: "5.1.1 <late>: Recipient address rejected: User unknown" }
          : { code: 451, message: "4.2.0 Try again later" };
    const held = await bookFor(reported, 6).then(async (call) => {
      const name = `Reader ${readers + 1}`;
      const start = (await free())[7] ?? "";
      readers += 1;
      const response = await postBooking(t.visitor({ ip: `10.8.1.${readers}` }), start, late, name);
      expect(response.statusCode, response.body).toBe(201);
      return { first: call, start, name };
    });
    clock.advance(Date.parse(held.start) - clock.now().getTime() + 60_000);
    begun = true;
    await expect.poll(() => invitationStatus(late), { timeout: 20_000 }).toBe("failed");
    // Reported hard-bounced by a verified provider once its call has begun, too.
    clock.advance(Date.parse(held.first.start) - clock.now().getTime() + 60_000);
    expect((await postmark(reported, "HardBounce")).statusCode).toBe(200);

    for (const email of [late, reported]) {
      const [row] = await runSql(
        t,
        "select status, undeliverable, sequence from bookings where email = ?",
        [email],
      );
      expect(
        { ...row, undeliverable: Number(row?.undeliverable), sequence: Number(row?.sequence) },
        email,
      ).toEqual({
        status: "booked",
        undeliverable: 0,
        sequence: 0,
      });
    }
    // Neither owner's copy is taken out: nobody is sent a cancellation.
    const ids = await runSql(t, "select id from bookings where email in (?, ?)", [late, reported]);
    for (const { id } of ids) {
      const mails =
        "select kind from outbox where kind = 'booking_cancellation' and payload like ?";
      expect(await runSql(t, mails, [`{"bookingId":${id},%`])).toEqual([]);
    }
    expect(ownerMails(held.name).map((mail) => mail.parsed.text)).not.toContainEqual(
      expect.stringContaining("cancelled"),
    );
    smtp.answer = () => undefined;
  });

  /** A reader books the free time `index` places down the list for `email`, once its invitation has been tried. */
  async function bookFor(email: string, index = 4) {
    const start = (await free())[index] ?? "";
    readers += 1;
    const name = `Reader ${email.split("-")[0]}`;
    const response = await postBooking(t.visitor({ ip: `10.8.1.${readers}` }), start, email, name);
    expect(response.statusCode, response.body).toBe(201);
    const call = await listed(email);
    if (!call) throw new Error(`${email} is not listed`);
    await expect.poll(() => invitationStatus(email), { timeout: 20_000 }).not.toBe("queued");
    return call;
  }
});

describe.each(backends)(
  "a booking whose invitation's delivery report comes back on %s",
  (backend) => {
    let t: TestApp;
    let smtp: SmtpSink;
    let imap: ImapServer;
    const clock = movableClock();
    const env = () => ({ BOUNCE_ADDRESS: "bounces@ewe.test", BOUNCE_IMAP_URL: imap.url });
    let readers = 0;
    // Before the app: its settings name the mailbox.
    beforeAll(async () => {
      imap = await startImapServer();
    });
    afterAll(async () => imap?.stop());
    bookingsApp(backend, clock, env, (app) => {
      ({ t, smtp } = app);
    });

    const free = async () =>
      json(await t.visitor().get("/api/bookings/slots"), slotsResponseSchema).starts;
    /** The call booked for `email` as it stands, by the database. */
    const status = async (email: string) =>
      (await runSql(t, "select status, undeliverable from bookings where email = ?", [email]))[0];
    /** A reader books a free time for `email`: the return path of its invitation, once it came. */
    async function book(email: string) {
      readers += 1;
      const start = (await free())[readers] ?? "";
      const response = await postBooking(
        t.visitor({ ip: `10.8.2.${readers}` }),
        start,
        email,
        `Reader ${readers}`,
      );
      expect(response.statusCode, response.body).toBe(201);
      await smtp.waitFor(() => smtp.to(email).length > 0);
      return smtp.to(email)[0]?.from ?? "";
    }

    it("frees the time on a report to the invitation's signed return path, not a forged one nor one of a time moved since", async () => {
      const address = (name: string) => `${name}-${backend}@example.org`;
      const [gone, moved, forged] = [address("gone"), address("moved"), address("forged")];
      const goneTime = (await free())[1];
      const gonePath = await book(gone);
      const movedPath = await book(moved);
      const forgedPath = (await book(forged)).replace(
        /-([0-9a-f]{16})@/,
        (_m, sig: string) => `-${sig.slice(0, 15)}${sig.endsWith("0") ? "1" : "0"}@`,
      );
      // The reader moves the call: its first invitation's report, should one come, is late.
      const token = /\/book\/cancel\?token=([A-Za-z0-9_-]{43})/.exec(
        smtp.to(moved)[0]?.parsed.text ?? "",
      )?.[1];
      const movedTo = await t.app.inject({
        method: "POST",
        url: "/book/reschedule",
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({
          token: token ?? "",
          start: (await free())[6] ?? "",
        }).toString(),
      });
      expect(movedTo.statusCode).toBe(200);
      await smtp.waitFor(() => smtp.to(moved).length === 2);

      await imap.deliver(deliveryReport(gonePath, gone, "5.1.1"));
      await imap.deliver(deliveryReport(movedPath, moved, "5.1.1"));
      await imap.deliver(deliveryReport(forgedPath, forged, "5.1.1"));
      const run = await admin(
        { ...adminEnv(t), ...env(), COOKIE_SECRET: cookieSecret, OWNER_EMAIL: owner },
        "mail",
        "bounces",
      );
      expect(run.code, run.stderr).toBe(0);
      await expect.poll(() => imap.count(), { timeout: 20_000 }).toBe(0);

      expect(await status(gone)).toMatchObject({ status: "cancelled" });
      expect(Number((await status(gone))?.undeliverable)).toBe(1);
      expect(await free()).toContain(goneTime);
      for (const kept of [moved, forged]) expect((await status(kept))?.status, kept).toBe("booked");
      // The owner hears of it from the server's outbox, the command line having queued it.
      await smtp.waitFor(() =>
        smtp
          .to(owner)
          .some((mail) => mail.parsed.text?.includes("the reader's address does not receive mail")),
      );
    });
  },
);
