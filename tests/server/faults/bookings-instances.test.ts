import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { errorResponseSchema } from "../../../contract/api.ts";
import { slotsResponseSchema, slotTakenMessage } from "../../../contract/bookings.ts";
import { fakeBuiltSite } from "../../support/built-site.ts";
import { createDatabase, dropDatabase } from "../../support/postgres.ts";
import {
  generousLimits,
  type ServerProcess,
  startServerProcess,
} from "../../support/server-process.ts";
import { httpVisitor } from "../../support/visitor.ts";
import { killedSender } from "../support/killed-sender.ts";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "../support/smtp.ts";
import { runSql } from "../support/sql.ts";
import { backends, json, siteUrl } from "../support/test-app.ts";

/*
 * Booked calls across processes (docs/decisions/043-bookings.md): two
 * `node server/main.ts` on one PostgreSQL take a time once when two readers
 * press it at the same moment, and the reminders a killed process was sending
 * go exactly once after a restart.
 */

/** What every server process here runs with, beside its data, mail and limits. */
const bookingSettings = {
  OWNER_EMAIL: "owner@example.com",
  BOOKING_TIMEZONE: "Europe/London",
  BOOKINGS_PER_HOUR: "1000",
  COOKIE_SECRET: randomBytes(32).toString("hex"),
};

const call = (start: string, reader: string) => ({
  start,
  name: `Reader ${reader}`,
  email: `${reader}@example.org`,
  service: "dfmea",
  note: "A second opinion on our pump's DFMEA, please.",
  zone: "Asia/Kolkata",
});

describe("two server processes on one PostgreSQL, two readers pressing one time", () => {
  let smtp: SmtpSink;
  let databaseUrl: string;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    databaseUrl = await createDatabase(inject("postgresUrl"));
    const env = {
      ...generousLimits,
      ...bookingSettings,
      CLIENT_ROOT: fakeBuiltSite(),
      SITE_URL: siteUrl,
      SMTP_URL: smtp.url,
      DATABASE_URL: databaseUrl,
    };
    // One migrates first, so the two do not race to make the tables.
    a = await startServerProcess({ env });
    b = await startServerProcess({ env });
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await smtp?.close();
    if (databaseUrl) await dropDatabase(databaseUrl);
  });

  it("books exactly one of them, every time; the other is told the time was just taken and sees the times left", async () => {
    const rounds = 8;
    for (let round = 0; round < rounds; round++) {
      const { starts } = json(
        await httpVisitor(a.url, { origin: siteUrl }).get("/api/bookings/slots"),
        slotsResponseSchema,
      );
      const start = starts[round * 3] ?? "";
      const pair = [
        { server: a, body: call(start, `race-${round}-a`) },
        { server: b, body: call(start, `race-${round}-b`) },
      ];
      const answers = await Promise.all(
        pair.map(({ server, body }) =>
          httpVisitor(server.url, { origin: siteUrl }).post("/api/bookings", body),
        ),
      );
      expect(answers.map((answer) => answer.statusCode).sort(), `round ${round}`).toEqual([
        201, 409,
      ]);
      const loser = answers.findIndex((answer) => answer.statusCode === 409);
      const refusal = json(answers[loser] ?? { body: "" }, errorResponseSchema).error;
      expect(refusal.code).toBe("slot_taken");
      expect(refusal.message).toContain(slotTakenMessage);
      // What the loser's page shows next: the free times, without the one taken.
      const left = json(
        await httpVisitor(pair[loser]?.server.url ?? "", { origin: siteUrl }).get(
          "/api/bookings/slots",
        ),
        slotsResponseSchema,
      ).starts;
      expect(left).not.toContain(start);
      expect(left.length).toBeGreaterThan(0);
      const stored = await runSql(
        { databaseUrl, dataDir: "" },
        "select email from bookings where starts_at = ? and status = 'booked'",
        [start],
      );
      expect(stored).toHaveLength(1);
      expect(stored[0]?.email).toBe(pair[1 - loser]?.body.email);
    }
    // The winner alone was invited: one invitation per round to a reader.
    await smtp.waitFor(
      () => smtp.received.filter((m) => m.to.some((to) => to.startsWith("race-"))).length >= rounds,
    );
    const invited = smtp.received.flatMap((m) => m.to).filter((to) => to.startsWith("race-"));
    expect(new Set(invited).size).toBe(rounds);
  }, 120_000);
});

describe.each(backends)("booking reminders through kill -9 on %s", (backend) => {
  // Paced, one mail every 250 ms, so the kill comes in the middle of the reminders.
  const sender = killedSender(backend, {
    tag: "booking-kill",
    mailRatePerMinute: 240,
    env: bookingSettings,
  });

  it("sends each reminder exactly once when the process sending them is killed and another starts", async () => {
    const { smtp, data } = sender;
    const first = await sender.start();
    const readers = Array.from({ length: 6 }, (_, i) => `remind-${backend}-${i}`);
    const { starts } = json(
      await httpVisitor(first.url, { origin: siteUrl }).get("/api/bookings/slots"),
      slotsResponseSchema,
    );
    for (const [i, reader] of readers.entries()) {
      const response = await httpVisitor(first.url, { origin: siteUrl }).post(
        "/api/bookings",
        call(starts[i * 2] ?? "", reader),
      );
      expect(response.statusCode, response.body).toBe(201);
    }
    // The invitations, to each reader and to the owner, are out before the reminders are due.
    await smtp.waitFor(() => smtp.received.length >= readers.length * 2, 60_000);
    const isReminder = (mail: ReceivedMail) =>
      mail.parsed.text?.includes("Reminder: the call is ") ?? false;
    expect(smtp.received.filter(isReminder)).toEqual([]);

    // Every mail from now on is a reminder: the invitations are all in. The
    // kill comes with the sixth, which the SMTP server never accepts, so the
    // sender cannot have recorded it.
    sender.killWhen(first, (arriving) => arriving === 6);
    // Their time comes: what the clock would do in a day, the test does in the database.
    await runSql(data, "update outbox set next_attempt_at = ? where kind = ?", [
      new Date().toISOString(),
      "booking_reminder",
    ]);
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    const before = smtp.received.filter(isReminder).length;
    expect(before).toBeGreaterThanOrEqual(5);
    // 24 hours and 1 hour before, to the reader and to the owner.
    const expected = readers.length * 4;
    expect(before).toBeLessThan(expected);

    const second = await sender.start();
    await smtp.waitFor(() => smtp.received.filter(isReminder).length >= expected, 60_000);
    // Each reminder once: by its address and Message-ID, which names its call and its hour.
    const keys = smtp.received
      .filter(isReminder)
      .flatMap((mail) => mail.to.map((to) => `${to} ${mail.parsed.messageId}`));
    expect(keys).toHaveLength(expected);
    expect(new Set(keys).size).toBe(expected);
    await expect
      .poll(() =>
        runSql(
          data,
          "select count(*) as n from outbox where kind = 'booking_reminder' and status <> 'sent'",
        ),
      )
      .toEqual([{ n: backend === "postgres" ? "0" : 0 }]);
    await second.stop();
  }, 180_000);
});
