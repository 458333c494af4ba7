import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/store.ts";
import { suppressionKey } from "../../server/lib/mailbox.ts";
import { createSuppressions } from "../../server/outbox/suppressions.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { backends } from "./support/test-app.ts";

/*
 * The owner's list of suppressions names the addresses the site holds by the
 * digest each keeps beside itself (migration 049; docs/mail.md, "Bounces and
 * complaints").
 */

const key = suppressionKey("a secret of the site, 32 characters or more");

describe.each(backends)("the addresses a suppression names, on %s", (backend) => {
  it("are digested where a database holds them (049), refused without the key, and named by lookup", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { store } = scratch;
      await scratch.migrateTo("048_suppressions_digested");
      const at = "2026-12-01T08:00:00.000Z";
      await sql`insert into subscribers (email, unsubscribe_token, created_at, status)
        values ('Held.Reader@Example.org', 'token-1', ${at}, 'confirmed')`.execute(store.db);
      await sql`insert into reply_addresses (visitor_id, email, unsubscribe_token, created_at)
        values ('visitor-1', 'replier@example.net', 'token-2', ${at})`.execute(store.db);
      const suppressions = createSuppressions(store, key);
      for (const email of ["held.reader+news@example.org", "REPLIER@example.net", "gone@x.org"])
        await suppressions.suppress(email, "hard_bounce", { source: "smtp" });

      await expect(migrateToLatest(store)).rejects.toThrow(/set COOKIE_SECRET/);
      await migrateToLatest(store, key);
      const { rows } = await sql<{
        email: string;
        email_hash: string;
      }>`select email, email_hash from subscribers union all
        select email, email_hash from reply_addresses order by email`.execute(store.db);
      expect(rows).toEqual([
        { email: "Held.Reader@Example.org", email_hash: key("held.reader@example.org") },
        { email: "replier@example.net", email_hash: key("replier@example.net") },
      ]);
      const listed = (await suppressions.list({ limit: 10 })).entries;
      expect(Object.fromEntries(listed.map((row) => [row.domain, row.email]))).toEqual({
        "example.org": "Held.Reader@Example.org",
        "example.net": "replier@example.net",
        "x.org": null,
      });
    } finally {
      await scratch.drop();
    }
  });
});
