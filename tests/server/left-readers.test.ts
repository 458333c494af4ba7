import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../server/db/store.ts";
import { createSubscribersRepository } from "../../server/engagement/subscribers-repository.ts";
import { lateReportsMs } from "../../server/engagement/subscribers-retention.ts";
import { withMailFiles } from "../../server/outbox/mail-files.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { confirmedSubscriber, editionFile } from "./support/newsletter.ts";
import { runSql } from "./support/sql.ts";
import { backends, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A reader who unsubscribed is forgotten by the outbox once no late report
 * about their mails can come (docs/privacy-requests.md, docs/mail.md): their
 * address leaves each copy of an edition, which keeps the mailbox's digest,
 * and their confirmation mails' rows go, with the mail files and from the export.
 */
describe.each(backends)("a reader who left, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    // Without SMTP_URL: every mail is a file in DATA_DIR/outbox/ too.
    t = await startTestApp(backend, { env: { MAIL_RATE_PER_MINUTE: "0" } });
  });
  afterAll(() => t?.close());

  /** The server's hourly pruning, run now, through a store that deletes mail files as the server's does. */
  async function prune() {
    const opened = await openStore(
      t.databaseUrl
        ? { kind: "postgres", connectionString: t.databaseUrl }
        : { kind: "sqlite", file: path.join(t.dataDir, "engage.sqlite") },
    );
    const store = withMailFiles(opened, { DATA_DIR: t.dataDir, SMTP_URL: undefined });
    try {
      await createSubscribersRepository(store, {
        addressKey: t.addressKey,
        links: t.links,
      }).prune();
    } finally {
      await opened.close();
    }
  }
  const rowsTo = (email: string) =>
    runSql(t, "select kind, email, email_hash, status from outbox where email = ? order by id", [
      email,
    ]);
  const mailFilesNaming = (email: string) => {
    const folder = path.join(t.dataDir, "outbox");
    return readdirSync(folder).filter((name) =>
      readFileSync(path.join(folder, name), "utf8").includes(email),
    );
  };

  it("keeps the address 30 days after the mail for late reports, then only the mailbox's digest", async () => {
    const leaver = "leaver@example.com";
    const stayer = "stayer@example.com";
    await confirmedSubscriber(t, leaver);
    await confirmedSubscriber(t, stayer);
    const env = adminEnv(t);
    expect((await admin(env, "newsletter", "send", editionFile("left-1"), "--yes")).code).toBe(0);
    await waitFor(
      async () =>
        (await runSql(t, "select id from outbox where kind = 'edition' and status = 'sent'"))
          .length === 2,
      { timeoutMs: 20_000, what: "both copies sent" },
    );
    const [seed] = await runSql(t, "select unsubscribe_token from subscribers where email = ?", [
      leaver,
    ]);
    const left = await t.visitor().post("/api/unsubscribe", {
      token: t.links.tokenOf(String(seed?.unsubscribe_token)),
    });
    expect(left.statusCode).toBe(200);

    // Within the time a late bounce or complaint may come, its mail still names the reader.
    await prune();
    expect((await rowsTo(leaver)).map((row) => row.kind)).toEqual(["confirmation", "edition"]);
    expect(mailFilesNaming(leaver).length).toBeGreaterThan(0);

    // The mails as old as the longest a late report can honestly take, and a day more.
    const old = new Date(Date.now() - lateReportsMs - 86_400_000).toISOString();
    await runSql(t, "update outbox set created_at = ?", [old]);
    await runSql(t, "update outbox set sent_at = ? where sent_at is not null", [old]);
    await prune();

    expect(await rowsTo(leaver)).toEqual([]);
    const [copy] = await runSql(
      t,
      "select email, email_hash, status from outbox where kind = 'edition' and email_hash = ?",
      [t.addressKey(leaver)],
    );
    // The copy stays counted in its edition's figures, under the mailbox's digest alone.
    expect(copy).toEqual({ email: null, email_hash: t.addressKey(leaver), status: "sent" });
    expect(mailFilesNaming(leaver)).toEqual([]);
    const out = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-left-")), "export.json");
    expect((await admin(env, "export", "--out", out)).code).toBe(0);
    expect(readFileSync(out, "utf8")).not.toContain(leaver);
    expect(readFileSync(out, "utf8")).toContain(stayer);

    // A reader still subscribed keeps theirs, mails and files.
    expect((await rowsTo(stayer)).map((row) => row.kind)).toEqual(["confirmation", "edition"]);
    expect(mailFilesNaming(stayer).length).toBeGreaterThan(0);
    const sent = await runSql(
      t,
      "select id from outbox where kind = 'edition' and status = 'sent'",
    );
    expect(sent.length).toBe(2);
  });
});
