import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slotsResponseSchema } from "../../contract/bookings.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";
import { isAddressedTo, outboxMails } from "../support/newsletter.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { requestSubscription } from "./support/newsletter.ts";
import { Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  capturedLogs,
  freshItem,
  json,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/*
 * Without SMTP_URL each mail is an .eml file under DATA_DIR/outbox, and it
 * lives no longer than its outbox row (docs/mail.md, "Mail"): whatever deletes
 * the row, the server or the command line, deletes the file before it answers.
 */

const owner = "owner@example.com";
const cookieSecret = "outbox-files-tests-cookie-secret-0123456789";
const formToken = (purpose: string) =>
  createFormTokens(cookieSecret, { purpose, minimumMs: 0 }).issue(Date.now() - 60_000);
const dayMs = 24 * 60 * 60 * 1000;

describe.each(backends)("an outbox row's mail file on %s", (backend) => {
  const logs = capturedLogs("info");
  let t: TestApp;
  let me: Owner;
  let ip = 0;
  let sender = 0;
  const env = {
    COOKIE_SECRET: cookieSecret,
    OWNER_EMAIL: owner,
    MAIL_RATE_PER_MINUTE: "0",
    ENQUIRIES_PER_HOUR: "1000",
    BOOKINGS_PER_HOUR: "1000",
    BOOKING_TIMEZONE: "Europe/London",
    BOOKING_MEETING_URL: "https://meet.example.org/engineer",
  };
  /** The files in DATA_DIR/outbox that hold `text` (an address). */
  const filesWith = (text: string) => {
    const folder = path.join(t.dataDir, "outbox");
    return readdirSync(folder).filter((name) => {
      try {
        return readFileSync(path.join(folder, name), "utf8").includes(text);
      } catch {
        return false; // deleted since it was listed
      }
    });
  };
  const written = (text: string, files: number) =>
    expect.poll(() => filesWith(text).length, { timeout: 20_000 }).toBe(files);
  /** An enquiry from a new address: the owner's copy and the acknowledgement name it. */
  const enquire = async () => {
    sender += 1;
    const email = `files-${backend}-${sender}@example.org`;
    const response = await t.visitor({ ip: `10.8.0.${++ip}` }).post("/api/enquiries", {
      name: "Priya Raman",
      email,
      service: "dfmea",
      message: `We need a DFMEA workshop for a pump module in March (${sender}).`,
      formToken: formToken("enquiry form timing"),
    });
    expect(response.statusCode).toBe(201);
    await written(email, 2);
    const [row] = await runSql(t, "select id from enquiries where email = ?", [email]);
    return { email, id: Number(row?.id) };
  };

  beforeAll(async () => {
    t = await startTestApp(backend, { env, logger: logs.logger });
    me = new Owner(t);
    expect((await me.signIn()).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("goes with an enquiry the owner deletes, and with the sender's own deletion link", async () => {
    const kept = await enquire();
    const deleted = await enquire();
    expect((await me.delete(`/api/admin/enquiries/${deleted.id}`)).statusCode).toBe(204);
    expect(filesWith(deleted.email)).toEqual([]);

    const linked = await enquire();
    const [ack] = await outboxMails(t.dataDir, (mail) => isAddressedTo(mail, linked.email));
    const token = /delete\?token=([A-Za-z0-9_-]{43})/.exec(ack?.text ?? "")?.[1];
    const pressed = await t.app.inject({
      method: "POST",
      url: "/enquiries/delete",
      headers: { origin: "http://ewe.test", "content-type": "application/x-www-form-urlencoded" },
      payload: `token=${token}`,
    });
    expect(pressed.statusCode).toBe(200);
    expect(filesWith(linked.email)).toEqual([]);
    expect(filesWith(kept.email)).toHaveLength(2);
  });

  it("goes with the reply address and the booking a reader deletes in Your data", async () => {
    const reader = t.visitor({ ip: `10.8.1.${++ip}` });
    const email = `your-data-${backend}@example.org`;
    const commented = await reader.post(`/api/items/science/${freshItem("science")}/comments`, {
      content: "How long does a lithium cell keep its charge on a shelf?",
      userName: "Asha",
      formToken: t.commentToken(),
      notifyEmail: email,
    });
    expect(commented.statusCode).toBe(201);
    const slots = json(await reader.get("/api/bookings/slots"), slotsResponseSchema);
    const booked = await reader.post("/api/bookings", {
      start: slots.starts[0],
      name: "Asha Rao",
      email,
      service: "dfmea",
      note: "A second opinion on a pump module's DFMEA.",
      zone: "Asia/Kolkata",
      formToken: formToken("booking form timing"),
    });
    expect(booked.statusCode).toBe(201);
    // The reply mails' confirmation, the booking's invitation and the owner's notice of it.
    await written(email, 3);
    const removed = await reader.post("/api/your-data/delete", { confirm: true });
    expect(removed.statusCode).toBe(200);
    expect(filesWith(email)).toEqual([]);
  });

  it("is never written for a call's cancellation, whose row goes as it is sent, and the log names no file for it", async () => {
    const reader = t.visitor({ ip: `10.8.2.${++ip}` });
    const slots = json(await reader.get("/api/bookings/slots"), slotsResponseSchema);
    const booked = await reader.post("/api/bookings", {
      start: slots.starts[1],
      name: "Ravi Menon",
      email: `cancelled-${backend}@example.org`,
      service: "dfmea",
      zone: "Asia/Kolkata",
      formToken: formToken("booking form timing"),
    });
    expect(booked.statusCode).toBe(201);
    // Both sides' invitations are written first (the cancellation takes them with it).
    await written(`cancelled-${backend}@example.org`, 2);
    const [call] = await runSql(t, "select id from bookings where email = ?", [
      `cancelled-${backend}@example.org`,
    ]);
    const from = logs.lines.length;
    const cancelled = await me.post(`/api/admin/bookings/${call?.id}/cancel`, {});
    expect(cancelled.statusCode).toBe(200);
    // Both sides' cancellations go out, and their rows with them.
    await expect
      .poll(async () => runSql(t, "select id from outbox where kind = 'booking_cancellation'", []))
      .toEqual([]);
    const since = logs.lines.slice(from) as { msg?: string; file?: string }[];
    // Every file the log names since is there to open; the log says what was done instead.
    const named = since.map((line) => line.file).filter((file) => file !== undefined);
    expect(named.filter((file) => !existsSync(file))).toEqual([]);
    expect(
      since.filter((line) => line.msg?.startsWith("mail not written to the outbox folder")),
    ).toHaveLength(2);
  });

  it("goes with a subscriber the command line removes, in its own process", async () => {
    const email = `leaving-${backend}@example.org`;
    expect((await requestSubscription(t, email)).statusCode).toBe(202);
    await written(email, 1);
    const removed = await admin(
      { ...adminEnv(t), COOKIE_SECRET: cookieSecret },
      "subscribers",
      "remove",
      email,
    );
    expect(removed.code).toBe(0);
    expect(filesWith(email)).toEqual([]);
  });

  it("goes with an enquiry past its retention, and a row deleted behind the server's back goes at its next start", async () => {
    const old = await enquire();
    const longAgo = new Date(Date.now() - 400 * dayMs).toISOString();
    await runSql(t, "update enquiries set created_at = ? where id = ?", [longAgo, old.id]);
    const bypassed = await enquire();
    await runSql(t, "delete from outbox where payload = ?", [
      JSON.stringify({ enquiryId: bypassed.id }),
    ]);
    expect(filesWith(bypassed.email)).toHaveLength(2);
    // Another instance on the same database and folder prunes, and sweeps, as it starts.
    const second = await startTestApp(backend, {
      env,
      dataDir: t.dataDir,
      ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}),
    });
    try {
      await expect.poll(() => filesWith(old.email), { timeout: 20_000 }).toEqual([]);
      await expect.poll(() => filesWith(bypassed.email), { timeout: 20_000 }).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
