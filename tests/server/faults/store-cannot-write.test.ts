import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorResponseSchema } from "../../../contract/api.ts";
import { slotsResponseSchema } from "../../../contract/bookings.ts";
import { createFormTickets, createFormTokens } from "../../../server/lib/form-token.ts";
import { fillDisk } from "../support/full-disk.ts";
import { runSql } from "../support/sql.ts";
import {
  type Backend,
  freshItem,
  json,
  readinessSchema,
  siteUrl,
  startTestApp,
  type TestApp,
} from "../support/test-app.ts";

/*
 * The store cannot write (docs/health.md, "Health, process managers and shutdown"):
 * on SQLite its disk is full, a real filesystem of a few MB filled to the
 * last byte; on PostgreSQL the database is read-only. Every write answers
 * 503 with Retry-After and a plain message, through the API and through the
 * forms that work without JavaScript; /readyz answers 503 and says why;
 * nothing is half-written; and once the store can write again, /readyz is
 * ready and the same writes go through.
 */

/** What `GET /readyz` answers (server/app.ts). */

/** An answer's JSON body, as the test reads it. */

const cookieSecret = "store-cannot-write-cookie-secret-0123456789";
const enquiryTokens = createFormTokens(cookieSecret, {
  purpose: "enquiry form timing",
  minimumMs: 0,
});
const newsletterTickets = createFormTickets(cookieSecret);

/** How a test breaks its store's writes and mends them. */
type Fault = {
  /** Where the app keeps its data (SQLite: on the small filesystem). */
  dataDir?: string;
  break(t: TestApp): Promise<void>;
  /**
   * Takes again the room the store freed since. SQLite: a moment after any
   * deletion (the app's own clean-ups too) the store empties its write-ahead
   * log, which frees the room the log held, and a small write fits in it (a
   * reader's "Your data" went through once, under load).
   */
  breakAgain?(): void;
  mend(t: TestApp): Promise<void>;
  teardown(): Promise<void>;
};

/** A tmpfs of a few MB that the test fills to its last byte, then frees. */
function fullDisk(): Fault {
  const mount = mkdtempSync(path.join(os.tmpdir(), "ewe-full-disk-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", mount]);
  const dataDir = path.join(mount, "data");
  mkdirSync(dataDir, { mode: 0o700 });
  const filler = path.join(mount, "filler");
  return {
    dataDir,
    async break() {
      fillDisk(filler);
    },
    breakAgain() {
      fillDisk(`${filler}-again`);
    },
    async mend() {
      rmSync(filler);
      rmSync(`${filler}-again`, { force: true });
    },
    async teardown() {
      execFileSync("umount", ["-l", mount]);
      rmSync(mount, { recursive: true, force: true });
    },
  };
}

/**
 * PostgreSQL refuses writes on every new connection to the app's database
 * (`default_transaction_read_only`); its present connections are ended, so
 * the app's pool opens new ones.
 */
function readOnlyDatabase(): Fault {
  const setReadOnly = async (t: TestApp, on: boolean) => {
    // From the server's own database: the app's is read-only once this is done.
    const url = new URL(t.databaseUrl as string);
    const name = url.pathname.slice(1);
    url.pathname = "/postgres";
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await client.query(
        `alter database ${name} ${on ? "set default_transaction_read_only = on" : "reset default_transaction_read_only"}`,
      );
      await client.query(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
        [name],
      );
    } finally {
      await client.end();
    }
  };
  return {
    break: (t) => setReadOnly(t, true),
    mend: (t) => setReadOnly(t, false),
    async teardown() {},
  };
}

const faults: { backend: Backend; what: string; fault: () => Fault; runs: boolean }[] = [
  {
    backend: "sqlite",
    what: "a full disk",
    fault: fullDisk,
    // Mounting a filesystem takes root, as CI and the development machines have.
    runs: process.getuid?.() === 0,
  },
  { backend: "postgres", what: "a read-only database", fault: readOnlyDatabase, runs: true },
];

/** Every table's row count, read in one statement. */
async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const tables = await runSql(
    t,
    t.databaseUrl
      ? "select table_name as name from information_schema.tables where table_schema = 'public' order by 1"
      : "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by 1",
  );
  const rows = await runSql(
    t,
    tables
      .map(({ name }) => `select '${String(name)}' as name, count(*) as n from ${String(name)}`)
      .join(" union all "),
  );
  return Object.fromEntries(rows.map(({ name, n }) => [String(name), Number(n)]));
}

describe.each(faults)("$what on $backend", ({ backend, fault: makeFault, runs }) => {
  let fault: Fault;
  let t: TestApp;
  const post = freshItem("science");
  const story = freshItem("mythology");
  let sender = 0;

  const enquiry = () => {
    sender += 1;
    return {
      name: "Priya Raman",
      email: `full${sender}@example.org`,
      service: "dfmea",
      message: "We need a DFMEA workshop for a fuel pump module before the launch in March.",
      organisation: "Raman Motors",
      timeline: "Before March",
      formToken: enquiryTokens.issue(Date.now() - 60_000),
    };
  };
  const readiness = async () => {
    const response = await t.app.inject({ method: "GET", url: "/readyz" });
    return { code: response.statusCode, body: json(response, readinessSchema) };
  };
  const form = (url: string, fields: Record<string, string>) =>
    t.app.inject({
      method: "POST",
      url,
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams(fields).toString(),
    });

  /** The writes a reader makes, through the API and the forms without JavaScript. */
  const writes = () => {
    const alex = t.visitor();
    const { formToken: _none, ...fields } = enquiry();
    return {
      comment: () => alex.comment(post, "Written while the store cannot write"),
      reaction: () => alex.react("mythology", story, "love"),
      enquiry: () => t.visitor().post("/api/enquiries", enquiry()),
      subscription: () => t.visitor().subscribe(`reader${++sender}@example.com`, t.formToken()),
      "enquiry form": () =>
        form("/services/enquiry", {
          ...fields,
          formToken: enquiryTokens.issue(Date.now() - 60_000),
        }),
      "newsletter form": () =>
        form(
          `/api/newsletter/continue?ticket=${newsletterTickets.seal(
            `form${++sender}@example.com`,
            Date.now() - 60_000,
          )}`,
          {},
        ),
      "booking form": async () => {
        const { starts } = json(await t.visitor().get("/api/bookings/slots"), slotsResponseSchema);
        return form("/book", {
          start: starts.at(-1) ?? "",
          name: "Caller",
          email: `caller${++sender}@example.org`,
          service: "vba-tools",
          zone: "Europe/Berlin",
        });
      },
    };
  };

  beforeAll(async () => {
    if (!runs) return;
    fault = makeFault();
    t = await startTestApp(backend, {
      ...(fault.dataDir ? { dataDir: fault.dataDir } : {}),
      // The comment goes straight to its transaction (no form token to spend first).
      env: { COOKIE_SECRET: cookieSecret, COMMENT_MIN_SECONDS: "0", ENQUIRIES_PER_HOUR: "100" },
    });
  });
  afterAll(async () => {
    await t?.close();
    await fault?.teardown();
  });

  it.runIf(runs)(
    "answers every write 503 with Retry-After, unready, writes nothing, and recovers",
    async () => {
      const alex = t.visitor();
      expect((await alex.comment(post, "Before the store filled up")).statusCode).toBe(201);
      expect((await alex.react("science", post, "like")).statusCode).toBe(201);
      expect((await readiness()).code).toBe(200);

      await fault.break(t);
      // PostgreSQL: until the pool has let go of the connections that were ended.
      await expect
        .poll(
          async () =>
            errorResponseSchema.safeParse(json(await writes().reaction())).data?.error.message,
          {
            timeout: 30_000,
          },
        )
        .toMatch(/cannot save/);
      const before = await rowCounts(t);

      for (const [what, write] of Object.entries(writes())) {
        const answer = await write();
        expect(answer.statusCode, what).toBe(503);
        expect(answer.headers["retry-after"], what).toMatch(/^\d+$/);
        if (what.endsWith("form")) {
          expect(answer.headers["content-type"], what).toMatch(/^text\/html/);
          expect(answer.body, what).toMatch(/cannot save anything/);
          // Its Retry-After is minutes: a person must free the store.
          expect(answer.body, what).toMatch(/again in a few minutes/);
        } else {
          expect(json(answer, errorResponseSchema).error, what).toEqual({
            code: "service_unavailable",
            message: expect.stringMatching(/cannot save anything/),
          });
        }
        // Never the driver's own words.
        expect(answer.body, what).not.toMatch(/disk is full|SQLITE|read-only transaction/i);
      }
      // A reader's "Your data" goes kind by kind, so it cannot say that nothing was changed.
      fault.breakAgain?.();
      const yours = await alex.post("/api/your-data/delete", { confirm: true });
      expect(yours.statusCode).toBe(503);
      expect(json(yours, errorResponseSchema).error.message).toBe(
        "The site cannot save anything right now; try again in a few minutes. Part of it may be done already; doing it again finishes it.",
      );

      const unready = await readiness();
      expect(unready.code).toBe(503);
      expect(unready.body).toMatchObject({
        status: "unavailable",
        database: backend,
        reason: expect.stringMatching(/cannot write/),
      });
      // Still so at the next look: the check tries a write, it does not time out.
      expect((await readiness()).code).toBe(503);

      await fault.mend(t);
      await expect.poll(async () => (await readiness()).code, { timeout: 30_000 }).toBe(200);
      expect((await readiness()).body).not.toHaveProperty("reason");
      // Nothing of the refused writes was kept, not a part of one.
      expect(await rowCounts(t)).toEqual(before);

      const statuses: Record<string, number> = {};
      for (const [what, write] of Object.entries(writes())) {
        statuses[what] = (await write()).statusCode;
      }
      expect(statuses).toEqual({
        comment: 201,
        reaction: 201,
        enquiry: 201,
        subscription: 202,
        "enquiry form": 303,
        "newsletter form": 303,
        "booking form": 200,
      });
      const after = await rowCounts(t);
      expect(after.science_comments).toBe((before.science_comments ?? 0) + 1);
      expect(after.enquiries).toBe((before.enquiries ?? 0) + 2);
    },
  );
});
