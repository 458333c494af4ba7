import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";

/**
 * One connection per PostgreSQL database for the statements below, let go
 * after a second unused: a new connection for each statement (a backend
 * process started, a catalogue read, then ended) cost about 9 ms of CPU, a
 * statement on a kept one 0.3, and tests run hundreds of them in polls
 * (docs/decisions/028-how-the-suite-stays-fast.md). Each statement commits on
 * its own, as before. A kept connection ended by the server (its database
 * dropped, the server halted by a fault test) is let go of, not thrown.
 */
const pools = new Map<string, pg.Pool>();
function poolFor(databaseUrl: string): pg.Pool {
  let pool = pools.get(databaseUrl);
  if (!pool) {
    pool = new pg.Pool({
      connectionString: databaseUrl,
      max: 1,
      idleTimeoutMillis: 1000,
      allowExitOnIdle: true,
    });
    pool.on("error", () => {});
    pools.set(databaseUrl, pool);
  }
  return pool;
}

/** Runs one statement on a test app's database, behind the app's back (clock changes, seeding). */
export async function runSql(
  t: { databaseUrl: string | undefined; dataDir: string },
  statement: string,
  params: (string | number | null)[] = [],
): Promise<Record<string, unknown>[]> {
  if (t.databaseUrl) {
    let n = 0;
    return (
      await poolFor(t.databaseUrl).query(
        statement.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows;
  }
  const db = new DatabaseSync(path.join(t.dataDir, "engage.sqlite"));
  try {
    db.exec("pragma busy_timeout = 5000");
    const prepared = db.prepare(statement);
    if (prepared.columns().length > 0) return prepared.all(...params) as Record<string, unknown>[];
    prepared.run(...params);
    return [];
  } finally {
    db.close();
  }
}

/** Confirmed subscribers written straight into the table, for sending tests of any size. */
export async function seedConfirmed(
  t: { databaseUrl: string | undefined; dataDir: string },
  emails: string[],
): Promise<void> {
  const now = new Date().toISOString();
  for (let i = 0; i < emails.length; i += 500) {
    const chunk = emails.slice(i, i + 500);
    await runSql(
      t,
      `insert into subscribers (email, unsubscribe_token, created_at, status, confirmed_at) values ${chunk
        .map(() => "(?, ?, ?, 'confirmed', ?)")
        .join(", ")}`,
      chunk.flatMap((email) => [
        email,
        Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url"),
        now,
        now,
      ]),
    );
  }
}
