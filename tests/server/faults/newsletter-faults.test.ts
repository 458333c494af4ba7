import { describe, expect, inject, it } from "vitest";
import { createDatabase, dropDatabase } from "../../support/postgres.ts";
import { admin } from "../support/admin.ts";
import { killedSender } from "../support/killed-sender.ts";
import { copies, editionFile, recipients } from "../support/newsletter.ts";
import { startSmtpSink } from "../support/smtp.ts";
import { seedConfirmed } from "../support/sql.ts";
import { backends, siteUrl, startTestApp } from "../support/test-app.ts";

describe.each(backends)("sending an edition through faults on %s", (backend) => {
  const sender = killedSender(backend, { tag: "mail-kill", mailRatePerMinute: 1200 });

  it("after kill -9 in the middle of sending and a restart, every recipient has the edition exactly once", async () => {
    const { smtp, env } = sender;
    const first = await sender.start();
    const readers = recipients(30, `kill-${backend}`);
    await seedConfirmed(sender.data, readers);
    const subject = "Edition killed-mid-send";

    // The 11th message arrives while the server is killed.
    sender.killWhen(first, (arriving) => arriving === 11);
    expect(
      (await admin(env, "newsletter", "send", editionFile("killed-mid-send"), "--yes")).code,
    ).toBe(0);
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(copies(smtp, subject).size).toBe(10);

    const second = await sender.start();
    await smtp.waitFor(() => copies(smtp, subject).size === readers.length, 30_000);
    const counts = copies(smtp, subject);
    expect(readers.filter((reader) => counts.get(reader) !== 1)).toEqual([]);
    await expect
      .poll(
        async () =>
          JSON.parse((await admin(env, "newsletter", "status", "--json")).stdout).editions[0],
      )
      .toMatchObject({ sent: readers.length, queued: 0, failed: 0 });
    await second.stop();
    // Two server processes start, one is killed: past the minute at load 40 on 2 cores.
  }, 180_000);
});

describe("two instances on PostgreSQL", () => {
  it("send one edition with no duplicates", async () => {
    const smtp = await startSmtpSink();
    const databaseUrl = await createDatabase(inject("postgresUrl"));
    const env = { SMTP_URL: smtp.url, MAIL_RATE_PER_MINUTE: "0" };
    const a = await startTestApp("postgres", { databaseUrl, env });
    const b = await startTestApp("postgres", { databaseUrl, env });
    try {
      const readers = recipients(200, "pair");
      await seedConfirmed(a, readers);
      const subject = "Edition shared";
      const run = await admin(
        { NODE_ENV: "test", SITE_URL: siteUrl, DATA_DIR: a.dataDir, DATABASE_URL: databaseUrl },
        "newsletter",
        "send",
        editionFile("shared"),
        "--yes",
      );
      expect(run.code).toBe(0);
      await smtp.waitFor(() => copies(smtp, subject).size === readers.length, 60_000);
      const counts = copies(smtp, subject);
      expect(readers.filter((reader) => counts.get(reader) !== 1)).toEqual([]);
      expect([...counts.values()].reduce((sum, n) => sum + n, 0)).toBe(readers.length);
    } finally {
      await a.close();
      await b.close();
      await dropDatabase(databaseUrl);
      await smtp.close();
    }
  });
});
