import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { migrateToLatest, openStore, type Store } from "../../../server/db/store.ts";
import { createEditionsRepository } from "../../../server/newsletter/editions-repository.ts";
import { createSmtpThreadMailer } from "../../../server/outbox/mailer.ts";
import { fakeBuiltSite } from "../../support/built-site.ts";
import { createDatabase, dropDatabase } from "../../support/postgres.ts";
import { generousLimits, projectRoot, startServerProcess } from "../../support/server-process.ts";
import { admin, adminEnv } from "../support/admin.ts";
import { header, type SmtpSink, startCountingSink, startSmtpSink } from "../support/smtp.ts";
import { runSql, seedConfirmed } from "../support/sql.ts";
import { backends, siteUrl, startTestApp, type TestApp } from "../support/test-app.ts";

/*
 * An edition to a list of any size (docs/decisions/036-sending-in-flat-memory.md):
 * queued a page of subscribers at a time and resumable, sent with a bounded
 * number of mails in flight, each with its reader's own unsubscribe link, and
 * in a heap too small to hold the list's mails.
 */

function editionFile(slug: string, subject: string, markdown = "Hello, **readers**.\n"): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-edition-")), `${slug}.md`);
  writeFileSync(file, `---\nsubject: ${subject}\n---\n${markdown}`);
  return file;
}

const addresses = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `${tag}-${i}@example.com`);

describe.each(backends)("an edition to a long list on %s", (backend) => {
  let store: Store;
  let databaseUrl: string | undefined;
  beforeAll(async () => {
    databaseUrl = backend === "postgres" ? await createDatabase(inject("postgresUrl")) : undefined;
    store = await openStore(
      databaseUrl
        ? { kind: "postgres", connectionString: databaseUrl }
        : {
            kind: "sqlite",
            file: path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-queue-")), "engage.sqlite"),
          },
    );
    await migrateToLatest(store);
  });
  afterAll(async () => {
    await store?.close();
    if (databaseUrl) await dropDatabase(databaseUrl);
  });

  it("is queued a page at a time; stopped half way, running it again queues the rest, each confirmed address once", async () => {
    const now = new Date().toISOString();
    // Pending addresses between the confirmed ones: a page counts only the confirmed.
    const rows = Array.from({ length: 270 }, (_, i) => ({
      email: `page-${i}@example.com`,
      email_hash: `digest-${i}`,
      unsubscribe_token: `token-${backend}-${i}`,
      created_at: now,
      status: i % 27 === 5 ? ("pending" as const) : ("confirmed" as const),
      confirmed_at: now,
    }));
    await store.db.insertInto("subscribers").values(rows).execute();
    const confirmed = rows.filter((row) => row.status === "confirmed").map((row) => row.email);
    expect(confirmed).toHaveLength(260);

    // Each subscriber holds its digest: nothing to fill.
    const editions = createEditionsRepository(store, async () => 0);
    const saved = await editions.saveEdition({
      slug: "long-list",
      subject: "A long list",
      html: "<p>Hello</p>",
      text: "Hello",
      links: [],
      markup: [],
    });
    if (typeof saved === "string") throw new Error(saved);
    const { id } = saved;
    const queuedCopies = async () =>
      (
        await store.db
          .selectFrom("outbox")
          .select("email")
          .where("edition_id", "=", id)
          .orderBy("id")
          .execute()
      ).map((row) => row.email);

    // The process dies once its third page is committed.
    let pages = 0;
    await expect(
      editions.queueEdition(id, {
        pageSize: 40,
        onPage: () => {
          pages += 1;
          if (pages === 3) throw new Error("killed");
        },
      }),
    ).rejects.toThrow("killed");
    expect(await queuedCopies()).toEqual(confirmed.slice(0, 120));

    expect(await editions.queueEdition(id, { pageSize: 40 })).toBe(140);
    const copies = await queuedCopies();
    expect(copies).toHaveLength(260);
    expect(new Set(copies)).toEqual(new Set(confirmed));
    expect(await editions.queueEdition(id, { pageSize: 40 })).toBe(0);
  });
});

describe.each(backends)("sending an edition to many on %s", (backend) => {
  let smtp: SmtpSink;
  let t: TestApp;
  beforeAll(async () => {
    smtp = await startSmtpSink();
    t = await startTestApp(backend, {
      env: { SMTP_URL: smtp.url, MAIL_RATE_PER_MINUTE: "0", MAIL_CONNECTIONS: "4" },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it("gives every address exactly one mail, with its own unsubscribe link that works", async () => {
    const readers = addresses(150, `many-${backend}`);
    await seedConfirmed(t, readers);
    const tokens = new Map(
      (await runSql(t, "select email, unsubscribe_token from subscribers")).map((row) => [
        String(row.email),
        t.links.tokenOf(String(row.unsubscribe_token)),
      ]),
    );
    const subject = "Edition to many";
    const sent = await admin(
      adminEnv(t),
      "newsletter",
      "send",
      editionFile("many", subject),
      "--yes",
    );
    expect(sent.stdout).toContain("for 150 subscribers");

    const editions = () => smtp.received.filter((mail) => header(mail, "Subject") === subject);
    await smtp.waitFor(() => editions().length >= readers.length, 60_000);
    const perAddress = new Map<string, number>();
    for (const mail of editions()) {
      const [to] = mail.to;
      perAddress.set(to ?? "", (perAddress.get(to ?? "") ?? 0) + 1);
      const token = tokens.get(to ?? "");
      expect(header(mail, "List-Unsubscribe")).toBe(
        `<${siteUrl}/api/newsletter/one-click?token=${token}>`,
      );
      expect(mail.parsed.text).toContain(`Unsubscribe: ${siteUrl}/unsubscribe?token=${token}`);
      expect(mail.parsed.html).toContain(`${siteUrl}/unsubscribe?token=${token}`);
    }
    expect(readers.filter((reader) => perAddress.get(reader) !== 1)).toEqual([]);
    expect(perAddress.size).toBe(readers.length);

    // The links work: the first, middle and last readers' one-click POSTs remove exactly them.
    const leaving = [readers[0], readers[75], readers[149]] as string[];
    for (const reader of leaving) {
      const mail = editions().find((m) => m.to.includes(reader));
      const url = header(mail!, "List-Unsubscribe").slice(1, -1);
      const response = await t.app.inject({
        method: "POST",
        url: url.slice(siteUrl.length),
        headers: {
          origin: "https://mail.provider.example",
          "content-type": "application/x-www-form-urlencoded",
        },
        payload: "List-Unsubscribe=One-Click",
      });
      expect(response.statusCode).toBe(200);
    }
    const left = (await runSql(t, "select email from subscribers")).map((row) => String(row.email));
    expect(left).toHaveLength(readers.length - leaving.length);
    expect(left.filter((email) => leaving.includes(email))).toEqual([]);
  });
});

/**
 * The heap the server and the owner's command get: room for the server
 * itself, not for the list. Holding every mail of this edition at once (about
 * 26 KB each, HTML and text, for 3,000 readers: some 80 MB) does not fit in it.
 */
const smallHeap = "--max-old-space-size=96";
const listSize = 3000;

/** About 13 KB of text, twice in each mail (HTML and plain text). */
const longMarkdown =
  `${"A paragraph about pressure, heat and the **engines** that turn one into the other. ".repeat(8)}\n\n`.repeat(
    20,
  );

describe("an edition in a small heap", () => {
  it("reaches every address of a list whose mails do not fit in the heap, once each, over at most MAIL_CONNECTIONS connections", async () => {
    const sink = await startCountingSink();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-small-heap-"));
    const env = {
      CLIENT_ROOT: fakeBuiltSite(),
      DATA_DIR: dataDir,
      SITE_URL: siteUrl,
      SMTP_URL: sink.url,
      MAIL_RATE_PER_MINUTE: "0",
      MAIL_CONNECTIONS: "4",
      NODE_OPTIONS: smallHeap,
      ...generousLimits,
    };
    const server = await startServerProcess({ env });
    try {
      const readers = addresses(listSize, "heap");
      await seedConfirmed({ databaseUrl: undefined, dataDir }, readers);
      const queued = await promisify(execFile)(
        process.execPath,
        [
          path.join(projectRoot, "server/cli/admin.ts"),
          "newsletter",
          "send",
          editionFile("heap", "Heap", longMarkdown),
          "--yes",
        ],
        { env: { PATH: process.env.PATH ?? "", ...env } },
      );
      expect(queued.stdout).toContain(`for ${listSize} subscribers`);
      await expect
        .poll(() => sink.accepted, { timeout: 180_000, interval: 200 })
        .toBeGreaterThanOrEqual(listSize);
      expect(server.output()).not.toMatch(/heap out of memory|ERR_WORKER_OUT_OF_MEMORY/);
      expect(readers.filter((reader) => sink.perAddress.get(reader) !== 1)).toEqual([]);
      expect(sink.accepted).toBe(listSize);
      expect(sink.mostOpen).toBeLessThanOrEqual(4);
    } finally {
      await server.stop("SIGKILL").catch(() => {});
      await sink.close();
    }
  }, 240_000);
});

/*
 * The server above runs with a V8 flag, which every thread of the process
 * takes over its own limits; the SMTP thread's own heap (32 MB old, 4 MB
 * young: server/outbox/mailer.ts) is tested here, in a process
 * without one.
 */
describe("the SMTP thread's own heap", () => {
  it("sends mails of 26 KB, as many waiting as sending on its MAIL_CONNECTIONS, without running out of it", async () => {
    const sink = await startCountingSink();
    const mailer = createSmtpThreadMailer({
      smtpUrl: sink.url,
      from: "owner@example.com",
      connections: 4,
    });
    try {
      const readers = addresses(1500, "thread");
      let next = 0;
      // A thread out of its heap fails the mails it held: the lane's await throws.
      const lane = async () => {
        for (let i = next++; i < readers.length; i = next++) {
          await mailer.send({
            to: readers[i] as string,
            subject: "Thread",
            html: `<p>${longMarkdown}</p>`,
            text: longMarkdown,
          });
        }
      };
      // As the server hands them over on SQLite: a mail waiting behind each connection's.
      await Promise.all(Array.from({ length: 8 }, lane));
      expect(readers.filter((reader) => sink.perAddress.get(reader) !== 1)).toEqual([]);
      expect(sink.accepted).toBe(readers.length);
    } finally {
      mailer.close();
      await sink.close();
    }
  }, 120_000);
});
