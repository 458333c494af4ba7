import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportTables } from "../../server/portability/tables.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { requestSubscription } from "./support/newsletter.ts";
import { runSql } from "./support/sql.ts";
import { backends, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * An export written before suppressions kept no address (version 1,
 * docs/backups.md) still moves a site: its suppressed addresses and soft
 * bounces come in as the importing site's digests, as migration 048 converts
 * a database's (docs/decisions/059-suppressions-without-addresses.md).
 */

const now = new Date().toISOString();
/** As version 1 wrote them: the address in `email`, the server's words quoting it. */
const version1 = {
  format: "engage-with-engineer-export",
  version: 1,
  exportedAt: now,
  tables: {
    suppressions: [
      {
        email: "kept.out@example.org",
        reason: "hard_bounce",
        source: "smtp",
        detail: "550 5.1.1 <kept.out@example.org>: user kept.out unknown",
        created_at: now,
      },
      // The same mailbox spelt otherwise, a complaint: one row, the complaint's.
      {
        email: "Kept.Out+news@Example.org",
        reason: "complaint",
        source: "ses",
        detail: "complaint from Kept.Out+news@Example.org",
        created_at: now,
      },
      // Quoted, at the domain written in full: the same mailbox again.
      {
        email: '"Kept.Out"@EXAMPLE.ORG.',
        reason: "hard_bounce",
        source: "mailbox",
        detail: null,
        created_at: now,
      },
    ],
    soft_bounces: [
      { id: 7, email: "busy@example.net", ref: "outbox 7", created_at: now },
      { id: 8, email: "Busy@Example.net", ref: "outbox 8", created_at: now },
    ],
  },
};

describe.each(backends)("a version-1 export imported into a new site on %s", (backend) => {
  let t: TestApp;
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-v1-")), "site.json");
  beforeAll(async () => {
    t = await startTestApp(backend);
    writeFileSync(file, JSON.stringify(version1));
  });
  afterAll(() => t?.close());

  it("imports its suppressions as digests, keeps the address from every table, holds, and adds nothing twice", async () => {
    const env = adminEnv(t);
    const run = await admin(env, "import", "--from", "export", file);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    // The report says two rows were folded into the third, not silently kept as one.
    expect(run.stdout).toContain(
      "2 suppressed addresses of the file were other spellings of a mailbox suppressed in it already",
    );

    const kept = await runSql(
      t,
      "select email_hash, domain, reason, source, detail from suppressions",
    );
    expect(kept).toEqual([
      {
        email_hash: t.addressKey("kept.out@example.org"),
        domain: "example.org",
        reason: "complaint",
        source: "ses",
        detail: "complaint from [address]",
      },
    ]);
    const bounces = await runSql(t, "select id, email_hash from soft_bounces order by id");
    expect(bounces.map((row) => [Number(row.id), row.email_hash])).toEqual([
      [7, t.addressKey("busy@example.net")],
      [8, t.addressKey("busy@example.net")],
    ]);
    // No table the site exports holds the address, nor its name.
    for (const { name } of exportTables) {
      const rows = JSON.stringify(await runSql(t, `select * from ${name}`));
      expect(rows, name).not.toMatch(/kept\.out|busy@/i);
    }

    const again = await admin(env, "import", "--from", "export", file);
    expect(again.code, again.stderr).toBe(0);
    expect(await runSql(t, "select email_hash from suppressions")).toHaveLength(1);
    expect(await runSql(t, "select id from soft_bounces")).toHaveLength(2);

    // Anyone typing the address in: its confirmation is cancelled, never sent.
    expect((await requestSubscription(t, "kept.out@example.org")).statusCode).toBe(202);
    await expect
      .poll(() =>
        runSql(t, "select status, last_error from outbox where email = ?", [
          "kept.out@example.org",
        ]),
      )
      .toEqual([{ status: "cancelled", last_error: "the address is suppressed" }]);
  });

  it("says when a later file's suppressions were kept under another cookie secret, and not for its own export", async () => {
    const elsewhere = path.join(path.dirname(file), "elsewhere.json");
    const row = {
      email_hash: "0".repeat(64),
      domain: "example.org",
      reason: "complaint",
      source: "ses",
      detail: null,
      created_at: now,
    };
    writeFileSync(
      elsewhere,
      JSON.stringify({
        ...version1,
        version: 2,
        tables: { suppressions: [row] },
        commentsSignature: "1".repeat(64),
      }),
    );
    const env = adminEnv(t);
    const run = await admin(env, "import", "--from", "export", elsewhere);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      "1 suppressed address was kept by a site with another cookie secret",
    );

    const own = path.join(path.dirname(file), "own.json");
    expect((await admin(env, "export", "--out", own)).code).toBe(0);
    const back = await admin(env, "import", "--from", "export", own);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).not.toContain("another cookie secret");
  });

  // Once, on SQLite: the file is refused as it is read, before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("still refuses a file of a version newer than the site reads", async () => {
        const future = path.join(path.dirname(file), "future.json");
        writeFileSync(future, JSON.stringify({ ...version1, version: 6 }));
        const run = await admin(adminEnv(t), "import", "--from", "export", future);
        expect(run.code).toBe(1);
        expect(run.stderr).toContain("is 6, newer than this version of the site reads (5)");
      });
    });
  }
});
