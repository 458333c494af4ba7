import pg from "pg";
import { expect } from "vitest";
import { type Backend, startTestApp, type TestApp } from "./test-app.ts";

/** The instances requests at once go to: one on SQLite, two on one PostgreSQL. */
export async function startInstances(backend: Backend, env: Record<string, string>) {
  const first = await startTestApp(backend, { env });
  const instances: TestApp[] = [first];
  if (backend === "postgres") {
    instances.push(await startTestApp(backend, { env, databaseUrl: first.databaseUrl ?? "" }));
  }
  return instances;
}

/**
 * Runs `requests` at once. On PostgreSQL (`databaseUrl`) they are held at a
 * gate, a lock on `table` that their reads pass and their writes wait for,
 * until every one of them waits on a lock (the gate's, or one they take in
 * turn): each has counted what it could before any is stored. SQLite's one
 * process runs each request's queries without leaving the event loop, so
 * requests sent at once do not interleave there today; its transactions take
 * turns on the one connection (Kysely's mutex), should they come to.
 */
export async function atOnce<T>(
  databaseUrl: string | undefined,
  table: string,
  requests: (() => Promise<T>)[],
): Promise<T[]> {
  if (!databaseUrl) return Promise.all(requests.map((request) => request()));
  const gate = new pg.Client({ connectionString: databaseUrl });
  await gate.connect();
  try {
    await gate.query("begin");
    await gate.query(`lock table ${table} in exclusive mode`);
    const answers = Promise.all(requests.map((request) => request()));
    await expect
      .poll(
        async () => {
          // Within a transaction PostgreSQL shows the sessions as they were at its first
          // look: the gate's open one would count the same waiters at every poll.
          await gate.query("select pg_stat_clear_snapshot()");
          return (
            await gate.query(
              "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
            )
          ).rows[0]?.n;
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThanOrEqual(requests.length);
    await gate.query("commit");
    return await answers;
  } finally {
    await gate.end();
  }
}
