import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { dayMs } from "../../server/lib/time.ts";
import { createDatabase, dropDatabase } from "../support/postgres.ts";
import { waitFor } from "../support/wait-for.ts";
import { runSql } from "./support/sql.ts";
import { startTestApp, type TestApp } from "./support/test-app.ts";

/**
 * What an instance's start costs PostgreSQL: it checks the migrations, reads
 * the events, listens, and runs its hourly clean-ups of old rows
 * (server/lib/retention.ts), at each start and at the top of each hour. Run
 * all at once, the clean-ups took every connection of the pool from readers'
 * requests, and each new connection costs PostgreSQL a few milliseconds of CPU.
 */
describe("an instance's start on PostgreSQL", () => {
  /** A copy of the migrated template, for one test, dropped after it. */
  async function withDatabase(test: (databaseUrl: string) => Promise<void>) {
    const databaseUrl = await createDatabase(
      inject("postgresUrl"),
      "ewe_test",
      inject("postgresTemplate"),
    );
    try {
      await test(databaseUrl);
    } finally {
      await dropDatabase(databaseUrl);
    }
  }

  it("prunes old rows as it starts, one clean-up at a time, on a few of the pool's connections", async () => {
    await withDatabase(async (databaseUrl) => {
      const t = { databaseUrl, dataDir: "" };
      const longAgo = new Date(Date.now() - 400 * dayMs).toISOString();
      await runSql(
        t,
        "insert into fediverse_given_up (kind, activity, why, given_up_at) values ('ewe:take-back', null, 'Error', ?)",
        [longAgo],
      );
      await runSql(
        t,
        "insert into assistant_questions (question, known, asked_at) values (?, 1, ?)",
        ["Did you ever fix a lathe?", longAgo],
      );
      const app = await startTestApp("postgres", { databaseUrl });
      try {
        // The pool keeps a connection 10 s after its last use: those the start
        // opened are all still there once its clean-ups are done.
        const held = async () =>
          Number(
            (
              await runSql(
                t,
                "select count(*) as n from pg_stat_activity where datname = current_database() and application_name = 'ewe'",
              )
            )[0]?.n,
          );
        let most = 0;
        await waitFor(
          async () => {
            most = Math.max(most, await held());
            const [left] = await runSql(
              t,
              "select (select count(*) from fediverse_given_up) + (select count(*) from assistant_questions) as n",
            );
            return Number(left?.n) === 0;
          },
          { what: "the old rows pruned" },
        );
        most = Math.max(most, await held());
        // Half the pool at most (3 here): all at once, they took all 10.
        expect(most).toBeLessThanOrEqual(5);
      } finally {
        await app.close();
      }
    });
  });

  it("does not queue behind another instance's migrations' lock when nothing is left to migrate", async () => {
    await withDatabase(async (databaseUrl) => {
      // Kysely's lock of the migrations (its PostgreSQL adapter's), held as
      // by an instance starting at the same moment.
      const other = new pg.Client({ connectionString: databaseUrl });
      await other.connect();
      await other.query("select pg_advisory_lock(3853314791062309107)");
      const starting = startTestApp("postgres", { databaseUrl });
      let app: TestApp | undefined;
      try {
        app = await Promise.race([
          starting,
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error("the start waited for the lock")), 20_000).unref(),
          ),
        ]);
        expect((await app.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
      } finally {
        await other.end();
        await (app ?? (await starting.catch(() => undefined)))?.close();
      }
    });
  });

  it("still refuses a database a newer version migrated, and changes nothing", async () => {
    await withDatabase(async (databaseUrl) => {
      const t = { databaseUrl, dataDir: "" };
      await runSql(t, "insert into kysely_migration (name, timestamp) values (?, ?)", [
        "999_from_a_newer_version",
        new Date().toISOString(),
      ]);
      const before = await runSql(t, "select name from kysely_migration order by name");
      await expect(startTestApp("postgres", { databaseUrl })).rejects.toThrow(
        'This database was migrated by a newer version of the site (its migration "999_from_a_newer_version"',
      );
      expect(await runSql(t, "select name from kysely_migration order by name")).toEqual(before);
    });
  });
});
