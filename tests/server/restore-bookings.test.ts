import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { slotsResponseSchema } from "../../contract/bookings.ts";
import { createFormTokens } from "../../server/lib/form-token.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import { json, startTestApp } from "./support/test-app.ts";

/*
 * A restore brings back the calls as the backup had them. The database it
 * replaces knows what became of them since (docs/backups.md): a call cancelled
 * since stays cancelled, with no reminder sent, a cancellation it had still to
 * send is sent, a call moved since stays moved, reminded for its new time, and a call
 * deleted since is named, for the owner to cancel by hand.
 */

const cookieSecret = "restore-bookings-tests-cookie-secret-012345";
const env = {
  COOKIE_SECRET: cookieSecret,
  BOOKINGS_PER_HOUR: "1000",
  BOOKING_TIMEZONE: "Europe/London",
  OWNER_EMAIL: "owner@example.com",
};

/**
 * A site on SQLite with the owner signed in, its free times, and a reader's booking of
 * `start` under `name` (the address made from its first word) from an address of its own.
 */
async function bookingSite() {
  const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-restore-")), "data");
  const site = await startTestApp("sqlite", { dataDir, env });
  const me = new Owner(site);
  expect((await me.signIn()).statusCode).toBe(200);
  const { starts } = json(await site.visitor().get("/api/bookings/slots"), slotsResponseSchema);
  let readers = 0;
  const book = async (name: string, start: string | undefined) => {
    readers += 1;
    const reader = site.visitor({ ip: `10.9.0.${readers}` });
    const booked = await reader.post("/api/bookings", {
      start,
      name,
      email: `${name.split(" ")[0]?.toLowerCase()}@example.org`,
      service: "dfmea",
      zone: "Europe/London",
      formToken: createFormTokens(cookieSecret, {
        purpose: "booking form timing",
        minimumMs: 0,
      }).issue(Date.now() - 60_000),
    });
    expect(booked.statusCode, booked.body).toBe(201);
    return reader;
  };
  /** The calls' ids by their readers' names. */
  const ids = async (): Promise<Record<string, number>> =>
    Object.fromEntries(
      (await runSql(site, "select id, name from bookings", [])).map((row) => [
        String(row.name),
        Number(row.id),
      ]),
    );
  return { dataDir, site, me, starts, book, ids };
}

describe("a restore of a backup with calls cancelled or deleted since", () => {
  it("keeps a call cancelled since cancelled without its reminders, sends the cancellations still to send, and names a call deleted since", async () => {
    const { dataDir, site, me, starts, book, ids: named } = await bookingSite();
    await book("Asha Rao", starts[0]);
    await book("Ravi Menon", starts[1]);
    const leaving = await book("Nadia Khan", starts[2]);
    await book("Lena Park", starts[3]);
    await book("Tara Singh", starts[4]);
    const ids = await named();
    const backup = path.join(path.dirname(dataDir), "backup.sqlite");
    expect((await admin(adminEnv(site), "backup", "--out", backup)).code).toBe(0);
    // Since the backup: the owner cancels Ravi's call, and Nadia deletes hers in "Your data".
    expect((await me.post(`/api/admin/bookings/${ids["Ravi Menon"]}/cancel`, {})).statusCode).toBe(
      200,
    );
    expect((await leaving.post("/api/your-data/delete", { confirm: true })).statusCode).toBe(200);
    // And the owner moves Lena's call.
    const move = await me.post(`/api/admin/bookings/${ids["Lena Park"]}/move`, {
      start: starts[6],
    });
    expect(move.statusCode, move.body).toBe(200);
    await site.close();
    // A cancellation the stopped server had not sent yet: the backup has no row of it.
    const replaced = new DatabaseSync(path.join(dataDir, "engage.sqlite"));
    // And Tara's call released since, her invitation hard-bounced (nobody cancelled it).
    replaced
      .prepare(
        "update bookings set status = 'cancelled', undeliverable = 1, sequence = sequence + 1, token_hash = null where id = ?",
      )
      .run(ids["Tara Singh"] ?? 0);
    const unsent = '{"bookingId":999,"to":"reader"}';
    replaced
      .prepare(
        "insert into outbox (kind, email, payload, status, next_attempt_at, created_at) values ('booking_cancellation', 'omar@example.org', ?, 'queued', ?, ?)",
      )
      .run(unsent, new Date().toISOString(), new Date().toISOString());
    // With the cancellations of Ravi's and Nadia's calls, if the server stopped before it sent them.
    const toSend = replaced
      .prepare(
        "select email, payload from outbox where kind = 'booking_cancellation' and status in ('queued', 'sending') order by id",
      )
      .all();
    const lenaSince = replaced
      .prepare(
        "select starts_at, ends_at, sequence, owner_moves, token_hash from bookings where id = ?",
      )
      .get(ids["Lena Park"] ?? 0);
    const invitationsToSend = replaced
      .prepare(
        "select email, payload from outbox where kind = 'booking_invitation' and status in ('queued', 'sending') and payload like ? order by id",
      )
      .all(`{"bookingId":${ids["Lena Park"]},%`);
    replaced.close();
    // The stopped server had not sent the move's invitations, to Lena and to the owner.
    expect(invitationsToSend).toHaveLength(2);

    const run = await admin(adminEnv(site), "restore", "--from", backup);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `2 calls the backup holds as booked were cancelled since, in the database it replaced: they stay cancelled, and no reminder of them is sent:\n  ${ids["Ravi Menon"]}  ${starts[1]}  Ravi Menon\n  ${ids["Tara Singh"]}  ${starts[4]}  Tara Singh\n`,
    );
    expect(run.stdout).toContain(
      `1 call the backup holds as booked is not in the database it replaced: deleted since the backup`,
    );
    expect(run.stdout).toContain(`\n  ${ids["Nadia Khan"]}  ${starts[2]}  Nadia Khan\n`);
    expect(run.stdout).toContain(
      `1 call the backup holds was moved since, in the database it replaced: it is at the new time, with its reminders for it:\n  ${ids["Lena Park"]}  ${starts[6]}  Lena Park\n`,
    );
    expect(run.stdout).toContain(
      `The database it replaced had ${toSend.length} calls' cancellations still to send: queued again, the server sends them once started.`,
    );

    const restored = new DatabaseSync(path.join(dataDir, "engage.sqlite"), { readOnly: true });
    try {
      const status = (id: number | undefined) =>
        restored.prepare("select status, cancelled_by from bookings where id = ?").get(id ?? 0);
      // Tara's released as it was: cancelled by nobody, because her address takes no mail.
      expect(
        restored
          .prepare("select status, cancelled_by, undeliverable from bookings where id = ?")
          .get(ids["Tara Singh"] ?? 0),
      ).toEqual({ status: "cancelled", cancelled_by: null, undeliverable: 1 });
      /** The mails the started server would send about a call. */
      const queued = (id: number | undefined) =>
        restored
          .prepare("select kind from outbox where status = 'queued' and payload like ?")
          .all(`{"bookingId":${id},%`)
          .map((row) => row.kind);
      expect(status(ids["Ravi Menon"])).toEqual({ status: "cancelled", cancelled_by: "owner" });
      // No invitation or reminder of it: only its cancellations, if they were still to send.
      expect(queued(ids["Ravi Menon"]).filter((kind) => kind !== "booking_cancellation")).toEqual(
        [],
      );
      // Asha's call is as it was: booked, its reminders to send.
      expect(status(ids["Asha Rao"])).toEqual({ status: "booked", cancelled_by: null });
      expect(queued(ids["Asha Rao"])).toContain("booking_reminder");
      expect(
        restored
          .prepare(
            "select email, payload from outbox where kind = 'booking_cancellation' and status = 'queued' order by id",
          )
          .all(),
      ).toEqual(toSend);
      expect(toSend).toContainEqual({ email: "omar@example.org", payload: unsent });
      // Lena's is where the owner moved it, its links' token and the owner's move kept
      // (decision 071), and reminded for its new time, not the old.
      expect(
        restored
          .prepare(
            "select starts_at, ends_at, sequence, owner_moves, token_hash from bookings where id = ?",
          )
          .get(ids["Lena Park"] ?? 0),
      ).toEqual({ ...lenaSince, starts_at: starts[6], sequence: 1, owner_moves: 1 });
      const reminders = restored
        .prepare(
          "select payload, next_attempt_at from outbox where kind = 'booking_reminder' and status = 'queued' and payload like ? order by next_attempt_at",
        )
        .all(`{"bookingId":${ids["Lena Park"]},%`)
        .map((row) => ({
          sequence: JSON.parse(String(row.payload)).sequence,
          hoursBefore:
            (Date.parse(starts[6] ?? "") - Date.parse(String(row.next_attempt_at))) / 3_600_000,
        }));
      expect(reminders).toHaveLength(4);
      // The move's invitations, if the server stopped before it sent them, go from here.
      expect(
        restored
          .prepare(
            "select email, payload from outbox where kind = 'booking_invitation' and status = 'queued' and payload like ? order by id",
          )
          .all(`{"bookingId":${ids["Lena Park"]},%`)
          .filter((row) => JSON.parse(String(row.payload)).sequence === 1),
      ).toEqual(invitationsToSend);
      for (const reminder of reminders) {
        expect(reminder.sequence).toBe(1);
        expect([24, 1]).toContain(reminder.hoursBefore);
      }
      // Each side's in the order it goes (decision 092): its invitation, then its reminders.
      const series = restored
        .prepare(
          "select kind, series from outbox where status = 'queued' and series like ? order by id",
        )
        .all(`booking ${ids["Lena Park"]} %`)
        .map((row) => `${row.series} ${row.kind}`);
      for (const side of ["reader", "owner"])
        expect(series.filter((row) => row.includes(` ${side} `))).toEqual([
          `booking ${ids["Lena Park"]} ${side} booking_invitation`,
          `booking ${ids["Lena Park"]} ${side} booking_reminder`,
          `booking ${ids["Lena Park"]} ${side} booking_reminder`,
        ]);
      // Nadia's is named above, for the owner: the restore cannot know how it ended.
      expect(status(ids["Nadia Khan"])).toEqual({ status: "booked", cancelled_by: null });
    } finally {
      restored.close();
    }
  });

  it("gives back two calls that swapped times swapped, and leaves one moved onto a call deleted since where it was, named", async () => {
    const { dataDir, site, me, starts, book, ids: named } = await bookingSite();
    const [t1 = "", t2 = "", t3 = "", t4 = "", t5 = ""] = [0, 4, 8, 12, 16].map((i) => starts[i]);
    await book("Asha Test", t1);
    await book("Ravi Test", t2);
    await book("Omar Test", t4);
    const nadia = await book("Nadia Test", t5);
    const ids = Object.fromEntries(
      Object.entries(await named()).map(([name, id]) => [name.split(" ")[0], id]),
    );
    const backup = path.join(path.dirname(dataDir), "backup.sqlite");
    expect((await admin(adminEnv(site), "backup", "--out", backup)).code).toBe(0);
    const move = async (who: string, start: string) =>
      expect((await me.post(`/api/admin/bookings/${ids[who]}/move`, { start })).statusCode).toBe(
        200,
      );
    // Since: Asha's and Ravi's calls swap times; Nadia deletes hers and Omar's takes its time.
    await move("Asha", t3);
    await move("Ravi", t1);
    await move("Asha", t2);
    expect((await nadia.post("/api/your-data/delete", { confirm: true })).statusCode).toBe(200);
    await move("Omar", t5);
    await site.close();

    const run = await admin(adminEnv(site), "restore", "--from", backup);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("2 calls the backup holds were moved since");
    expect(run.stdout).toContain(
      `1 call the backup holds was moved since, in the database it replaced, to a time another call the backup holds takes: it stays at the backup's time`,
    );
    expect(run.stdout).toContain(`\n  ${ids.Omar}  ${t4}  Omar Test\n`);
    const restored = new DatabaseSync(path.join(dataDir, "engage.sqlite"), { readOnly: true });
    try {
      const at = (who: string) =>
        restored
          .prepare("select starts_at, status, sequence from bookings where id = ?")
          .get(ids[who] ?? 0);
      expect(at("Asha")).toEqual({ starts_at: t2, status: "booked", sequence: 2 });
      expect(at("Ravi")).toEqual({ starts_at: t1, status: "booked", sequence: 1 });
      // Omar's stays as the backup had it, beside Nadia's, which the owner settles.
      expect(at("Omar")).toEqual({ starts_at: t4, status: "booked", sequence: 0 });
      expect(at("Nadia")).toEqual({ starts_at: t5, status: "booked", sequence: 0 });
    } finally {
      restored.close();
    }
  });
});
