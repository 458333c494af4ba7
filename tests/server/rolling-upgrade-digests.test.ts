import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { admin, adminEnv } from "./support/admin.ts";
import { mailingApp } from "./support/mailing-app.ts";
import type { SmtpSink } from "./support/smtp.ts";
import { runSql, seedConfirmed, seedSuppressed } from "./support/sql.ts";
import { backends, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A rolling upgrade past migration 049 (docs/upgrading.md): an instance of
 * the older version still writes subscribers and reply addresses without the
 * digest beside them. The new version mails none of them once suppressed,
 * names them in the owner's list of suppressions, and fills their digests.
 */
describe.each(backends)(
  "an address an older instance wrote without its digest, on %s",
  (backend) => {
    let t: TestApp;
    let smtp: SmtpSink;
    mailingApp(
      backend,
      {
        env: { MAIL_FROM: "news@ewe.test" },
      },
      (app) => ({ t, smtp } = app),
    );

    it("is not mailed once suppressed, and is named and given its digest", async () => {
      const older = `older.${backend}@example.org`;
      const newer = `newer.${backend}@example.org`;
      const reader = `reader.${backend}@example.org`;
      await seedConfirmed(t, [newer]);
      // As the older version writes them: the address alone, no digest.
      await seedConfirmed({ databaseUrl: t.databaseUrl, dataDir: t.dataDir }, [older]);
      await runSql(
        t,
        "insert into reply_addresses (visitor_id, email, unsubscribe_token, created_at) values (?, ?, ?, ?)",
        [`visitor-${backend}`, reader, `token-${backend}`, new Date().toISOString()],
      );
      await seedSuppressed(t, [
        { email: older, reason: "hard_bounce" },
        { email: reader, reason: "complaint" },
      ]);

      const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-edition-"));
      writeFileSync(path.join(dir, "rolling.md"), "---\nsubject: Rolling\n---\nHello.\n");
      const sent = await admin(
        adminEnv(t),
        "newsletter",
        "send",
        path.join(dir, "rolling.md"),
        "--yes",
      );
      expect(sent.code, sent.stderr).toBe(0);
      // The queueing skips the suppressed one itself: no copy of it, not one cancelled later.
      expect(sent.stdout).toContain("for 1 subscriber.");
      expect(await runSql(t, "select status from outbox where email = ?", [older])).toEqual([]);
      await smtp.waitFor(() => smtp.to(newer).length === 1, 30_000);
      expect(smtp.to(older)).toEqual([]);

      // The owner's list names both addresses, and both now keep their digest.
      const listed = JSON.parse(
        (await admin(adminEnv(t), "suppressions", "list", "--json")).stdout,
      ) as { email: string | null }[];
      expect(listed.map((row) => row.email).toSorted()).toEqual([older, reader]);
      expect(
        await runSql(t, "select email_hash from subscribers where email = ?", [older]),
      ).toEqual([{ email_hash: t.addressKey(older) }]);
      expect(
        await runSql(t, "select email_hash from reply_addresses where email = ?", [reader]),
      ).toEqual([{ email_hash: t.addressKey(reader) }]);
    });

    it("gives the digests as each new instance starts", async () => {
      const older = `started.${backend}@example.org`;
      await seedConfirmed({ databaseUrl: t.databaseUrl, dataDir: t.dataDir }, [older]);
      // Another instance on the same database, with the same secret (DATA_DIR's).
      const next = await startTestApp(backend, {
        dataDir: t.dataDir,
        ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}),
      });
      try {
        await expect
          .poll(() => runSql(t, "select email_hash from subscribers where email = ?", [older]))
          .toEqual([{ email_hash: t.addressKey(older) }]);
      } finally {
        await next.close();
      }
    });

    it("stops all reply mails to a spelling written without its digest", async () => {
      const reader = `stopper.${backend}@example.org`;
      const other = `Stopper.${backend}+news@example.org`;
      const token = randomBytes(32).toString("base64url");
      const insert =
        "insert into reply_addresses (visitor_id, email, email_hash, unsubscribe_token, status, created_at) values (?, ?, ?, ?, 'confirmed', ?)";
      const at = new Date().toISOString();
      await runSql(t, insert, [`one-${backend}`, reader, t.addressKey(reader), token, at]);
      // The other spelling as the older version writes it: the address alone, no digest.
      await runSql(t, insert, [`two-${backend}`, other, null, `other-${backend}`, at]);

      const stopped = await t.app.inject({
        method: "POST",
        url: "/replies/unsubscribe",
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: `token=${token}&scope=all`,
      });
      expect(stopped.statusCode).toBe(200);
      expect(
        await runSql(t, "select email from reply_addresses where email in (?, ?)", [reader, other]),
      ).toEqual([]);
    });
  },
);
