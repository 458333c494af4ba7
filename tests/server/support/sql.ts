import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { keptConnection } from "../../support/postgres.ts";

/**
 * One connection per database for the statements below, let go after a
 * second unused (`keptConnection`): tests run hundreds of them in polls. Each
 * statement commits on its own, as before.
 */
const poolFor = (databaseUrl: string) => keptConnection(databaseUrl, 1000);

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
/** How many sessions of the test's PostgreSQL database wait for a lock (a row another holds). */
export async function lockWaiters(t: { databaseUrl: string | undefined; dataDir: string }) {
  const [row] = await runSql(
    t,
    "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
  );
  return Number(row?.n);
}

export async function seedConfirmed(
  t: { databaseUrl: string | undefined; dataDir: string; addressKey?: (email: string) => string },
  emails: string[],
): Promise<void> {
  const now = new Date().toISOString();
  for (let i = 0; i < emails.length; i += 500) {
    const chunk = emails.slice(i, i + 500);
    await runSql(
      t,
      `insert into subscribers (email, email_hash, unsubscribe_token, created_at, status, confirmed_at) values ${chunk
        .map(() => "(?, ?, ?, ?, 'confirmed', ?)")
        .join(", ")}`,
      chunk.flatMap((email) => [
        email,
        t.addressKey?.(email) ?? null,
        // The seed of its unsubscribe link (`StandingLinks`, server/lib/tokens.ts).
        Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex"),
        now,
        now,
      ]),
    );
  }
}

/**
 * Makes the database itself refuse every new line of the audit trail, or
 * those of one `action` (a trigger on SQLite, a check constraint on
 * PostgreSQL), as a full disk or a lost connection would at that moment; the
 * function returned lifts it.
 */
export async function refuseAuditLines(
  t: { databaseUrl: string | undefined; dataDir: string },
  action?: string,
): Promise<() => Promise<unknown>> {
  const named = action === undefined ? "" : `'${action.replaceAll("'", "''")}'`;
  const [refuse, allow] = t.databaseUrl
    ? [
        `alter table owner_audit add constraint no_audit check (${named ? `action <> ${named}` : "false"}) not valid`,
        "alter table owner_audit drop constraint no_audit",
      ]
    : [
        `create trigger no_audit before insert on owner_audit ${named ? `when new.action = ${named} ` : ""}begin select raise(abort, 'no audit'); end`,
        "drop trigger no_audit",
      ];
  await runSql(t, refuse);
  return () => runSql(t, allow);
}

/**
 * Suppressed addresses written straight into the table as the site keeps
 * them: a keyed digest and the domain, never the address.
 */
export async function seedSuppressed(
  t: { databaseUrl: string | undefined; dataDir: string; addressKey: (email: string) => string },
  rows: {
    email: string;
    reason: "hard_bounce" | "complaint" | "soft_bounces";
    source?: string;
    detail?: string | null;
    createdAt?: string;
  }[],
): Promise<void> {
  for (const { email, reason, source = "smtp", detail = null, createdAt } of rows) {
    await runSql(
      t,
      "insert into suppressions (email_hash, domain, reason, source, detail, created_at) values (?, ?, ?, ?, ?, ?)",
      [
        t.addressKey(email),
        email.slice(email.lastIndexOf("@") + 1).toLowerCase(),
        reason,
        source,
        detail,
        createdAt ?? new Date().toISOString(),
      ],
    );
  }
}
