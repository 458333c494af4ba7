import { describe, expect, inject, it } from "vitest";
import { createDatabase, dropDatabase } from "../../support/postgres.ts";
import { admin, adminEnv } from "../support/admin.ts";
import { killedSender } from "../support/killed-sender.ts";
import { auditLines, copies, dueIn, editionFile, inMs, recipients } from "../support/newsletter.ts";
import { startSmtpSink } from "../support/smtp.ts";
import { runSql, seedConfirmed } from "../support/sql.ts";
import { backends, siteUrl, startTestApp } from "../support/test-app.ts";

/*
 * A scheduled edition goes at its time, once, to every confirmed subscriber
 * then, whatever instances run or are killed (docs/mail.md, "Sending later"):
 * two instances on one PostgreSQL, and a server killed with kill -9 while it
 * sends. What a single server does with a schedule is
 * tests/server/edition-schedules.test.ts.
 */

describe("a scheduled edition on two instances of PostgreSQL", () => {
  it("is started by one of them and reaches each subscriber once", async () => {
    const smtp = await startSmtpSink();
    const databaseUrl = await createDatabase(inject("postgresUrl"));
    const env = { SMTP_URL: smtp.url, MAIL_RATE_PER_MINUTE: "0" };
    // Looked for as often as the outbox: a test waits out no 5 s poll.
    const a = await startTestApp("postgres", { databaseUrl, env, scheduleEveryMs: 200 });
    const b = await startTestApp("postgres", { databaseUrl, env, scheduleEveryMs: 200 });
    try {
      const readers = recipients(150, "pair-later");
      await seedConfirmed(a, readers);
      const run = await admin(
        adminEnv(a),
        "newsletter",
        "send",
        editionFile("shared-later"),
        "--at",
        inMs(3600_000),
        "--yes",
      );
      expect(run.code, run.stderr).toBe(0);
      await dueIn({ databaseUrl, dataDir: a.dataDir }, "shared-later", 0);
      await smtp.waitFor(
        () => copies(smtp, "Edition shared-later").size === readers.length,
        60_000,
      );
      const counts = copies(smtp, "Edition shared-later");
      expect([...counts.values()].reduce((sum, n) => sum + n, 0)).toBe(readers.length);
      expect(await auditLines(a, "newsletter scheduled send")).toEqual([
        "shared-later (150 queued)",
      ]);
    } finally {
      await a.close();
      await b.close();
      await dropDatabase(databaseUrl);
      await smtp.close();
    }
  });
});

describe.each(backends)("a scheduled edition through kill -9 on %s", (backend) => {
  const sender = killedSender(backend, { tag: "later-kill", mailRatePerMinute: 1200 });

  it("goes out once, after the server that started it is killed and a new one starts", async () => {
    const { smtp, data } = sender;
    const first = await sender.start();
    const readers = recipients(30, `later-kill-${backend}`);
    await seedConfirmed(data, readers);
    const subject = "Edition killed-later";

    // The 11th message arrives while the server is killed.
    sender.killWhen(first, (arriving) => arriving === 11);
    const at = inMs(3600_000);
    const cli = { NODE_ENV: "test", SITE_URL: siteUrl, DATA_DIR: data.dataDir };
    const run = await admin(
      { ...cli, ...(data.databaseUrl ? { DATABASE_URL: data.databaseUrl } : {}) },
      "newsletter",
      "send",
      editionFile("killed-later"),
      "--at",
      at,
      "--yes",
    );
    expect(run.code, run.stderr).toBe(0);
    await dueIn(data, "killed-later", 0);
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(copies(smtp, subject).size).toBe(10);
    // The killed server's claim would run out with its lease (30 s): the
    // test runs it out in the database. On SQLite the new server releases it
    // as it starts.
    await runSql(
      data,
      "update edition_schedules set claimed_until = ? where claimed_until is not null",
      [new Date(Date.now() - 1000).toISOString()],
    );

    const second = await sender.start();
    await smtp.waitFor(() => copies(smtp, subject).size === readers.length, 30_000);
    const counts = copies(smtp, subject);
    expect(readers.filter((reader) => counts.get(reader) !== 1)).toEqual([]);
    // Started once: the new server sent what was queued and queued nothing again.
    expect(await auditLines(data, "newsletter scheduled send")).toEqual([
      "killed-later (30 queued)",
    ]);
    await second.stop();
  }, 180_000);
});
