import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { commentResponseSchema } from "../../../contract/api.ts";
import { createDatabase, dropDatabase } from "../../support/postgres.ts";
import { movableClock } from "../support/clock.ts";
import { linksOf, owner } from "../support/notifications.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp.ts";
import { runSql } from "../support/sql.ts";
import { backends, freshItem, json, startTestApp, type TestApp } from "../support/test-app.ts";

/*
 * The owner is told of every comment exactly once through faults: a comment
 * accepted while mail was failing, across a restart, and three instances on
 * one PostgreSQL sharing the work. What one server mails, and when, is
 * tests/server/notifications.test.ts.
 */

const hourMs = 60 * 60 * 1000;

describe.each(backends)("a notification through a restart on %s", (backend) => {
  let smtp: SmtpSink;
  beforeAll(async () => {
    smtp = await startSmtpSink();
  });
  afterAll(async () => {
    await smtp?.close();
  });

  it("a comment accepted while mail was failing is notified after the server restarts", async () => {
    const env = { SMTP_URL: smtp.url, OWNER_EMAIL: owner, MAIL_RATE_PER_MINUTE: "0" };
    let refused = 0;
    smtp.answer = () => {
      refused += 1;
      return { code: 421, message: "Try again later" };
    };
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-restart-"));
    const databaseUrl =
      backend === "postgres" ? await createDatabase(inject("postgresUrl")) : undefined;
    const where = databaseUrl ? { databaseUrl } : { dataDir };
    // A retry an hour away: nothing is sent again before the restart.
    const t = await startTestApp(backend, { env, mail: { retryBaseMs: hourMs }, ...where });
    let stopped = false;
    let restarted: TestApp | undefined;
    try {
      const postId = freshItem("science");
      const response = await t.visitor().comment(postId, "Survives a restart");
      expect(response.statusCode).toBe(201);
      await expect.poll(() => refused).toBeGreaterThanOrEqual(1);
      await t.close();
      stopped = true;

      smtp.answer = () => undefined;
      const clock = movableClock();
      clock.advance(hourMs + 60_000);
      restarted = await startTestApp(backend, { env, mail: { clock: clock.now }, ...where });
      await smtp.waitFor(() =>
        smtp.to(owner).some((mail) => mail.parsed.text?.includes("> Survives a restart")),
      );
      expect(smtp.to(owner)).toHaveLength(1);
    } finally {
      if (!stopped) await t.close();
      await restarted?.close();
      if (databaseUrl) await dropDatabase(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("two instances on one PostgreSQL", () => {
  it("tell the owner of every comment exactly once, in digests and in single mails", async () => {
    const smtp = await startSmtpSink();
    const databaseUrl = await createDatabase(inject("postgresUrl"));
    const clock = movableClock();
    clock.set(new Date("2030-05-06T08:30:00.000Z"));
    const start = (mode: string) =>
      startTestApp("postgres", {
        env: {
          SMTP_URL: smtp.url,
          OWNER_EMAIL: owner,
          NOTIFY_COMMENTS: mode,
        },
        mail: { clock: clock.now, pollMs: 20 },
        databaseUrl,
      });
    // One instance mails each comment, the other digests: both kinds of row, both workers.
    const instances = [await start("hourly"), await start("hourly"), await start("each")];
    try {
      const posted: number[] = [];
      for (let i = 0; i < 30; i += 1) {
        const instance = instances[i % 3] as TestApp;
        const response = await instance.visitor().comment(freshItem("science"), `Once ${i}`);
        expect(response.statusCode).toBe(201);
        posted.push(json(response, commentResponseSchema).comment.id);
      }
      clock.set(new Date("2030-05-06T09:00:01.000Z"));
      const told = () => smtp.to(owner).flatMap((mail) => linksOf(mail).map((link) => link.id));
      await smtp.waitFor(() => told().length >= posted.length);
      await expect
        .poll(async () =>
          runSql(
            { databaseUrl, dataDir: "" },
            "select count(*)::int as n from outbox where status <> 'sent'",
          ),
        )
        .toEqual([{ n: 0 }]);
      expect(told().toSorted((a, b) => a - b)).toEqual(posted);
    } finally {
      for (const instance of instances) await instance.close();
      await dropDatabase(databaseUrl);
      await smtp.close();
    }
  });
});
