import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import { expect, inject, it } from "vitest";
import { migrations } from "../../server/db/migrations.ts";
import { migrateToLatest, openStore } from "../../server/db/store.ts";
import { createDatabase, dropDatabase } from "../support/postgres.ts";
import { backends } from "./support/test-app.ts";

/*
 * Migration 058 on both databases: the news of a booking not made, queued by the version
 * before with its mailbox's digest first in its payload, gets the digest in `email_hash`,
 * which the refusal's once-an-hour now finds it by (server/bookings/not-made.ts).
 */
it.each(backends)(
  "gives the news queued before the upgrade its mailbox's digest, on %s",
  async (backend) => {
    const databaseUrl =
      backend === "postgres" ? await createDatabase(inject("postgresUrl")) : undefined;
    const store = await openStore(
      databaseUrl
        ? { kind: "postgres", connectionString: databaseUrl }
        : {
            kind: "sqlite",
            file: path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-058-")), "db.sqlite"),
          },
    );
    try {
      const migrator = new Migrator({
        db: store.db,
        provider: { getMigrations: async () => migrations(store.kind) },
      });
      expect((await migrator.migrateTo("057_reader_day_zones")).error).toBeUndefined();
      const digest = "8kP_DSNxLAlZll5cdKMjBKGRmFZgZKdW0yq2Wgukqm0";
      const at = new Date().toISOString();
      for (const payload of [
        `{"mailbox":"${digest}","why":"booked this hour","start":"${at}","zone":"UTC","service":"dfmea"}`,
        '{"mailbox":"short","why":"calls ahead"}',
        "not JSON at all",
      ]) {
        await sql`insert into outbox (kind, email, payload, status, next_attempt_at, created_at)
        values ('booking_not_made', 'asha@example.org', ${payload}, 'sent', ${at}, ${at})`.execute(
          store.db,
        );
      }
      await migrateToLatest(store);
      const rows = await sql<{
        email_hash: string | null;
      }>`select email_hash from outbox order by id`.execute(store.db);
      expect(rows.rows.map((row) => row.email_hash)).toEqual([digest, null, null]);
    } finally {
      await store.close();
      if (databaseUrl) await dropDatabase(databaseUrl);
    }
  },
);
