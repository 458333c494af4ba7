import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchStore } from "./support/scratch-store.ts";
import { backends } from "./support/test-app.ts";

/*
 * Migration 050: an enquiry keeps its sender's zone in a column of its own.
 * One whose acknowledgement was queued before, with the zone in its payload,
 * takes the zone from there; any other keeps none (its mails say UTC).
 */
describe.each(backends)("enquiries' zones, migrated, on %s", (backend) => {
  let scratch: Awaited<ReturnType<typeof scratchStore>>;
  beforeAll(async () => {
    scratch = await scratchStore(backend);
  });
  afterAll(async () => {
    await scratch?.drop();
  });

  it("takes a queued acknowledgement's zone onto its enquiry, and gives the rest none", async () => {
    await scratch.migrateTo("049_addresses_digested");
    const db = scratch.store.db;
    for (const id of [1, 2, 3]) {
      await sql`insert into enquiries (id, name, email, service, message, ip_hash, thread_id,
          deletion_token_hash, created_at, updated_at)
        values (${id}, 'Priya', ${`p${id}@example.org`}, 'dfmea', 'A workshop, please.', 'ip',
          ${`<t${id}@ewe.test>`}, ${`hash-${id}`}, ${new Date().toISOString()},
          ${new Date().toISOString()})`.execute(db);
    }
    const queue = (kind: string, payload: string | null) =>
      sql`insert into outbox (kind, email, payload, status, next_attempt_at, created_at)
        values (${kind}, 'p@example.org', ${payload}, 'queued', ${new Date().toISOString()},
          ${new Date().toISOString()})`.execute(db);
    await queue("enquiry_ack", JSON.stringify({ enquiryId: 1, zone: "Asia/Kolkata" }));
    await queue("enquiry_ack", JSON.stringify({ enquiryId: 2 }));
    await queue("enquiry_notice", JSON.stringify({ enquiryId: 3, zone: "Europe/Paris" }));
    await queue("enquiry_ack", "not json");
    await queue("enquiry_ack", null);
    await scratch.migrateTo("050_enquiry_zones");
    const { rows } = await sql<{ id: number; zone: string | null }>`
      select id, zone from enquiries order by id`.execute(db);
    expect(rows.map((row) => [Number(row.id), row.zone])).toEqual([
      [1, "Asia/Kolkata"],
      [2, null],
      [3, null],
    ]);
  });
});
