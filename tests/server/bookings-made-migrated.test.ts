import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scratchStore } from "./support/scratch-store.ts";
import { backends } from "./support/test-app.ts";

/*
 * Migration 060: the bookings' hourly limits count `bookings_made`. The bookings made in
 * the hour before it are counted there from the start, so an upgrade does not open the
 * limits for an hour; older ones are not kept.
 */
describe.each(backends)("the bookings made, migrated, on %s", (backend) => {
  let scratch: Awaited<ReturnType<typeof scratchStore>>;
  beforeAll(async () => {
    scratch = await scratchStore(backend);
  });
  afterAll(async () => {
    await scratch?.drop();
  });

  it("counts the hour's bookings by their digests and time, and no older one", async () => {
    await scratch.migrateTo("059_owner_moves");
    const db = scratch.store.db;
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const book = (id: number, made: string, network: string | null) =>
      sql`insert into bookings (id, starts_at, ends_at, name, email, service, note, reader_zone,
          uid, ip_hash, network_hash, address_hash, created_at, updated_at)
        values (${id}, ${ago(-1440 - id * 60)}, ${ago(-1470 - id * 60)}, 'Meera Iyer',
          'meera@example.org', 'dfmea', '', 'Asia/Kolkata', ${`uid-${id}`}, ${`ip-${id}`},
          ${network}, ${`mailbox-${id}`}, ${made}, ${made})`.execute(db);
    const [ten, fifty] = [ago(10), ago(50)];
    await book(1, ten, "net-1");
    await book(2, fifty, null);
    await book(3, ago(70), "net-3");
    await scratch.migrateTo("060_bookings_made");
    const { rows } = await sql<Record<string, unknown>>`
      select address_hash, ip_hash, network_hash, made_at from bookings_made
      order by address_hash`.execute(db);
    expect(
      rows.map((row) => [
        row.address_hash,
        row.ip_hash,
        row.network_hash,
        new Date(row.made_at as string).toISOString(),
      ]),
    ).toEqual([
      ["mailbox-1", "ip-1", "net-1", ten],
      ["mailbox-2", "ip-2", null, fifty],
    ]);
  });
});
