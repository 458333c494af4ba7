import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, inject } from "vitest";
import { fakeBuiltSite } from "../../support/built-site.ts";
import { createDatabase, dropDatabase } from "../../support/postgres.ts";
import {
  generousLimits,
  type ServerProcess,
  startServerProcess,
} from "../../support/server-process.ts";
import { type SmtpSink, startSmtpSink } from "./smtp.ts";
import { type Backend, siteUrl } from "./test-app.ts";

/** Where a killed sender's data lives: what runSql and seedConfirmed take. */
export type SenderData = { databaseUrl: string | undefined; dataDir: string };

/**
 * The harness of the tests that kill a server with kill -9 while it sends
 * mail, then start another on the same data and count what arrives: a real
 * SMTP sink, a fresh data folder and, on PostgreSQL, a database of its own,
 * made before the describe's tests and removed after them, with every server
 * process it started killed. Call it inside the describe.
 */
export function killedSender(
  backend: Backend,
  {
    tag,
    mailRatePerMinute,
    startTimeoutMs,
    env: extra = {},
  }: {
    /** Names the data folder, to tell the runs apart. */
    tag: string;
    /** MAIL_RATE_PER_MINUTE: paced, so the kill comes in the middle of sending. */
    mailRatePerMinute: number;
    startTimeoutMs?: number;
    /** More settings for every server process, beside the harness's own. */
    env?: Record<string, string>;
  },
) {
  let smtp: SmtpSink | undefined;
  let data: SenderData | undefined;
  let env: Record<string, string> | undefined;
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    smtp = await startSmtpSink();
    const databaseUrl =
      backend === "postgres" ? await createDatabase(inject("postgresUrl")) : undefined;
    data = { databaseUrl, dataDir: mkdtempSync(path.join(os.tmpdir(), `ewe-${tag}-`)) };
    env = {
      CLIENT_ROOT: fakeBuiltSite(),
      DATA_DIR: data.dataDir,
      SITE_URL: siteUrl,
      SMTP_URL: smtp.url,
      ...generousLimits,
      MAIL_RATE_PER_MINUTE: String(mailRatePerMinute),
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...extra,
    };
  });
  afterAll(async () => {
    for (const server of servers) await server.stop("SIGKILL").catch(() => {});
    await smtp?.close();
    if (data?.databaseUrl) await dropDatabase(data.databaseUrl);
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error("killedSender's values are there once beforeAll has run");
    return value;
  };

  return {
    get smtp(): SmtpSink {
      return ready(smtp);
    },
    get data(): SenderData {
      return ready(data);
    },
    /** The settings every server process of the test runs with. */
    get env(): Record<string, string> {
      return ready(env);
    },
    /** Starts a server process on the test's data; the SMTP sink accepts everything again. */
    async start(): Promise<ServerProcess> {
      ready(smtp).answer = () => undefined;
      const server = await startServerProcess({
        env: ready(env),
        ...(startTimeoutMs === undefined ? {} : { startTimeoutMs }),
      });
      servers.push(server);
      return server;
    },
    /**
     * Kills `server` with kill -9 when a message arrives and `now(arriving)`,
     * given how many have arrived with this one, says so. That message is
     * refused, so the server cannot have recorded it as sent.
     */
    killWhen(server: ServerProcess, now: (arriving: number) => boolean): void {
      let arriving = 0;
      let killed = false;
      ready(smtp).answer = () => {
        arriving += 1;
        if (killed || !now(arriving)) return undefined;
        killed = true;
        void server.stop("SIGKILL");
        return { code: 421, message: "Closing" };
      };
    },
  };
}
