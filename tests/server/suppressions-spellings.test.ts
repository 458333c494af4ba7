import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/store.ts";
import { suppressionKey } from "../../server/lib/mailbox.ts";
import { createSuppressions } from "../../server/outbox/suppressions.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { editionFile, requestSubscription } from "./support/newsletter.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { runSql, seedConfirmed, seedSuppressed } from "./support/sql.ts";
import { backends, freshItem, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The owner's list of suppressions names the addresses the site holds by the
 * digest each keeps beside itself (migration 049), and a suppression made
 * under one spelling of a mailbox holds for every other (lib/mailbox.ts):
 * a quoted name, a trailing dot, a Unicode domain and its punycode, capitals
 * of any script (docs/mail.md, "Bounces and complaints").
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
      for (const email of ["held.reader@example.org", "REPLIER@example.net", "gone@x.org"])
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

describe.each(backends)("a suppression under one spelling of a mailbox, on %s", (backend) => {
  it("cuts the quoted name from the server's words too", async () => {
    const scratch = await scratchStore(backend);
    try {
      await migrateToLatest(scratch.store);
      const suppressions = createSuppressions(scratch.store, key);
      await suppressions.suppress('"Quiet.One"@Example.org.', "hard_bounce", {
        source: "ses",
        detail: "550 5.1.1 user Quiet.One unknown",
      });
      expect((await suppressions.list({ limit: 1 })).entries).toEqual([
        expect.objectContaining({ domain: "example.org", detail: "550 5.1.1 user [name] unknown" }),
      ]);
      expect(await suppressions.isSuppressed("quiet.one@example.org")).toBe(true);
    } finally {
      await scratch.drop();
    }
  });

  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });

  const cancelled = (email: string, kind: string) =>
    expect
      .poll(() =>
        runSql(t, "select status, last_error from outbox where email = ? and kind = ?", [
          email,
          kind,
        ]),
      )
      .toEqual([{ status: "cancelled", last_error: "the address is suppressed" }]);

  it("stops a confirmation, an edition and a reply mail to every other spelling", async () => {
    // Reported by a provider, an import or a bounce under spellings the forms refuse.
    await seedSuppressed(t, [
      { email: `"Quoted.${backend}"@Example.org.`, reason: "hard_bounce" },
      { email: `LESER.${backend}@BÜCHER.example`, reason: "complaint" },
      { email: `"Replier.${backend}"@example.net.`, reason: "hard_bounce" },
    ]);

    // A confirmation to the plain spelling of the quoted name at the dotted domain.
    const quoted = `quoted.${backend}@example.org`;
    expect((await requestSubscription(t, quoted)).statusCode).toBe(202);
    await cancelled(quoted, "confirmation");

    // An edition skips the punycode spelling of the Unicode domain.
    const leser = `leser.${backend}@xn--bcher-kva.example`;
    const other = `other.${backend}@example.org`;
    await seedConfirmed(t, [leser, other]);
    const sent = await admin(
      adminEnv(t),
      "newsletter",
      "send",
      editionFile(`s-${backend}`),
      "--yes",
    );
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain("for 1 subscriber");
    expect(await runSql(t, "select email from outbox where kind = 'edition'")).toEqual([
      { email: other },
    ]);

    // A reply mail's confirmation.
    const replier = `replier.${backend}@example.net`;
    const asked = await t.visitor().post(`/api/items/science/${freshItem("science")}/comments`, {
      content: "Does a trailing dot change where the mail goes?",
      userName: "Asha",
      formToken: t.commentToken(),
      notifyEmail: replier,
    });
    expect(asked.statusCode).toBe(201);
    await cancelled(replier, "reply_confirmation");
  });
});
