import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { readOwnerProfile } from "../../content/owner.ts";
import { fakeBuiltSite } from "../support/built-site.ts";
import { createDatabase, dropDatabase, freePort } from "../support/postgres.ts";
import { type ServerProcess, startServerProcess } from "../support/server-process.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { copies, editionFile, inMs, recipients } from "./support/newsletter.ts";
import { type SmtpSink, startSmtpSink } from "./support/smtp.ts";
import { runSql, seedConfirmed } from "./support/sql.ts";

/*
 * docs/postgresql.md, "Several processes on one port": two `node server/main.ts`
 * processes with SHARE_PORT on one port, one PostgreSQL and one DATA_DIR, as
 * an operator runs them on one machine; the kernel hands each connection to
 * one of them (docs/decisions/083-several-processes-on-one-port.md).
 */
const siteUrl = "http://localhost:8080";
const cookieSecret = randomBytes(32).toString("hex");
const chrome =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/** A POST on a connection of its own, as a reader's browser opens one: its status. */
function postOnNewConnection(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: "POST", headers, agent: false }, (response) => {
      response.resume();
      response.once("end", () => resolve(response.statusCode ?? 0));
    });
    request.once("error", reject);
    request.end();
  });
}

describe("two server processes on one port (SHARE_PORT)", () => {
  let databaseUrl: string;
  let dataDir: string;
  let smtp: SmtpSink;
  let url: string;
  let processes: ServerProcess[] = [];

  beforeAll(async () => {
    databaseUrl = await createDatabase(inject("postgresUrl"));
    dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-shared-port-"));
    smtp = await startSmtpSink();
    const env = {
      NODE_ENV: "production",
      SITE_URL: siteUrl,
      CONTACT_EMAIL: "owner@example.com",
      SMTP_URL: smtp.url,
      MAIL_FROM: "news@example.com",
      SITE_OWNER_NAME: readOwnerProfile().name,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      COOKIE_SECRET: cookieSecret,
      CLIENT_ROOT: fakeBuiltSite(),
      PORT: String(await freePort()),
      SHARE_PORT: "on",
      // Every view an access-log line: which process answered it.
      LOG_SAMPLE_READS: "1",
    };
    processes = [await startServerProcess({ env }), await startServerProcess({ env })];
    url = processes[0]?.url ?? "";
  });
  afterAll(async () => {
    await Promise.all(processes.map((server) => server.stop()));
    await smtp?.close();
    if (databaseUrl) await dropDatabase(databaseUrl);
  });

  it("listen on the same port, both", () => {
    expect(processes.map((server) => server.url)).toEqual([url, url]);
  });

  it("send a scheduled edition once to each subscriber, whichever looks first", async () => {
    const readers = recipients(20, "shared-port");
    await seedConfirmed({ databaseUrl, dataDir }, readers);
    const file = editionFile("shared-port");
    const run = await admin(
      { ...adminEnv({ databaseUrl, dataDir }), COOKIE_SECRET: cookieSecret },
      ...["newsletter", "send", file, "--at", inMs(1000), "--yes"],
    );
    expect(run.code, run.stderr).toBe(0);
    // Both processes look every few seconds: one queued it, once, and each copy went once.
    const queued = async () => {
      const [row] = await runSql(
        { databaseUrl, dataDir },
        "select count(*) as n, sum(case when status = 'sent' then 1 else 0 end) as sent from outbox where edition_id is not null",
      );
      return [Number(row?.n), Number(row?.sent)];
    };
    await waitFor(async () => (await queued())[1] === readers.length, { timeoutMs: 30_000 });
    expect(await queued()).toEqual([readers.length, readers.length]);
    expect([...copies(smtp, "Edition shared-port").values()]).toEqual(readers.map(() => 1));
  });

  it("take views on either, and each view is counted once", async () => {
    const views = 40;
    const view = `${url}/api/readers/view?p=%2F&r=&q=&z=Europe%2FLondon`;
    for (let i = 0; i < views; i += 1) {
      expect(await postOnNewConnection(view, { origin: siteUrl, "user-agent": chrome })).toBe(204);
    }
    const answered = (server: ServerProcess) =>
      server.logs.filter(
        (line) => line.req?.url.startsWith("/api/readers/view") && line.res?.statusCode === 204,
      ).length;
    // Each line is written as its answer goes: the last may come just after.
    await waitFor(
      async () => processes.reduce((sum, server) => sum + answered(server), 0) >= views,
    );
    const answeredBy = processes.map(answered);
    // The kernel spread the connections: 40 going to one alone is a chance of 2 in 2^40.
    expect(
      answeredBy.every((count) => count > 0),
      String(answeredBy),
    ).toBe(true);
    expect(answeredBy.reduce((sum, count) => sum + count)).toBe(views);
    // A clean stop writes what each counted; the two wrote every view, none twice.
    await Promise.all(processes.map((server) => server.stop()));
    const [counted] = await runSql(
      { databaseUrl, dataDir },
      "select sum(views) as n from reader_views where path = '/'",
    );
    expect(Number(counted?.n)).toBe(views);
  });
});
