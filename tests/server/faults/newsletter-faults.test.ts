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

describe("two instances on PostgreSQL, each claim held past the database's idle limit", () => {
  it("send a copy whose acceptance outlasts the database's idle limit once, and lose none", async () => {
    const smtp = await startSmtpSink();
    const databaseUrl = await createDatabase(inject("postgresUrl"));
    // The limit on a transaction sitting idle is the server's statement
    // timeout: 2 s here, 10 s by default. A sender starved of CPU, or an SMTP
    // server slow to answer, keeps its claim's transaction idle that long.
    const limitMs = 2000;
    const env = {
      SMTP_URL: smtp.url,
      MAIL_RATE_PER_MINUTE: "0",
      DATABASE_STATEMENT_TIMEOUT_SECONDS: String(limitMs / 1000),
    };
    const a = await startTestApp("postgres", { databaseUrl, env });
    const b = await startTestApp("postgres", { databaseUrl, env });
    try {
      const readers = recipients(6, "slow-pair");
      const slow = readers[0] as string;
      await seedConfirmed(a, readers);
      const subject = "Edition slow-accept";
      // The first copy to `slow` is accepted three limits later, or as soon
      // as another copy to the same reader arrives (then it was sent twice).
      let held = false;
      smtp.answer = async (to) => {
        if (held || !to.includes(slow)) return undefined;
        held = true;
        await smtp
          .waitFor((received) => received.some((mail) => mail.to.includes(slow)), 3 * limitMs)
          .catch(() => {});
        return undefined;
      };
      const cli = {
        NODE_ENV: "test",
        SITE_URL: siteUrl,
        DATA_DIR: a.dataDir,
        DATABASE_URL: databaseUrl,
      };
      expect(
        (await admin(cli, "newsletter", "send", editionFile("slow-accept"), "--yes")).code,
      ).toBe(0);
      await smtp.waitFor(() => copies(smtp, subject).size === readers.length, 60_000);
      // Every row recorded: nothing waits to go again, nothing failed.
      await expect
        .poll(
          async () =>
            JSON.parse((await admin(cli, "newsletter", "status", "--json")).stdout).editions[0],
          { timeout: 30_000 },
        )
        .toMatchObject({ sent: readers.length, queued: 0, failed: 0 });
      expect(held).toBe(true);
      const counts = copies(smtp, subject);
      expect(readers.filter((reader) => counts.get(reader) !== 1)).toEqual([]);
    } finally {
      await a.close();
      await b.close();
      await dropDatabase(databaseUrl);
      await smtp.close();
    }
  });
  it("send every copy once when the pace between mails outlasts the database's idle limit", async () => {
    const smtp = await startSmtpSink();
    const databaseUrl = await createDatabase(inject("postgresUrl"));
    // 20 a minute: each claim waits 3 s for its turn, past a 1 s limit (as
    // 6 a minute or fewer, against the default 10 s, did in production).
    const env = {
      SMTP_URL: smtp.url,
      MAIL_RATE_PER_MINUTE: "20",
      DATABASE_STATEMENT_TIMEOUT_SECONDS: "1",
    };
    const a = await startTestApp("postgres", { databaseUrl, env });
    const b = await startTestApp("postgres", { databaseUrl, env });
    try {
      const readers = recipients(5, "paced-pair");
      await seedConfirmed(a, readers);
      const subject = "Edition paced-past";
      const cli = {
        NODE_ENV: "test",
        SITE_URL: siteUrl,
        DATA_DIR: a.dataDir,
        DATABASE_URL: databaseUrl,
      };
      expect(
        (await admin(cli, "newsletter", "send", editionFile("paced-past"), "--yes")).code,
      ).toBe(0);
      await expect
        .poll(
          async () =>
            JSON.parse((await admin(cli, "newsletter", "status", "--json")).stdout).editions[0],
          { timeout: 60_000, interval: 500 },
        )
        .toMatchObject({ sent: readers.length, queued: 0, failed: 0 });
      const counts = copies(smtp, subject);
      expect(readers.filter((reader) => counts.get(reader) !== 1)).toEqual([]);
    } finally {
      await a.close();
      await b.close();
      await dropDatabase(databaseUrl);
      await smtp.close();
    }
  });
});
