import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Migrator } from "kysely/migration";
import { describe, expect, inject, it } from "vitest";
import { commentResponseSchema } from "../../contract/api.ts";
import { deleteYourDataResponseSchema } from "../../contract/your-data.ts";
import { migrations } from "../../server/db/migrations.ts";
import { migrateToLatest, openStore } from "../../server/db/store.ts";
import { EventStream } from "../support/event-stream.ts";
import { createDatabase, dropDatabase } from "../support/postgres.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { movableClock } from "./support/clock.ts";
import { confirmedSubscriber, editionFile } from "./support/newsletter.ts";
import { Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  freshItem,
  json,
  startTestApp,
  type TestApp,
  type TestAppOptions,
} from "./support/test-app.ts";

/*
 * Deleted means deleted: once a comment is deleted (by its writer, by the
 * owner's moderation or by a "Your data" deletion) or edited, its old text is
 * in no answer the site gives, the replay of live events included, and no
 * notification carries it later. Across a restart, on both databases.
 */

const hourMs = 60 * 60 * 1000;

/** One database for an app and the app that replaces it after a restart. */
async function sharedDatabase(backend: (typeof backends)[number]) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-deleted-"));
  const databaseUrl =
    backend === "postgres" ? await createDatabase(inject("postgresUrl")) : undefined;
  return {
    databaseUrl,
    dataDir,
    where: (databaseUrl ? { databaseUrl } : { dataDir }) satisfies TestAppOptions,
    async drop() {
      if (databaseUrl) await dropDatabase(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Everything a stream replays from the first event on: every event's data, then `ready`. */
async function replayFromStart(t: TestApp, topic: string): Promise<string> {
  const baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
  const stream = new EventStream(baseUrl, topic, "0");
  try {
    await stream.ready();
    expect(stream.events.map((event) => event.event)).not.toContain("resync");
    return stream.events.map((event) => event.data).join("\n");
  } finally {
    stream.close();
  }
}

describe.each(backends)("deleted text on %s", (backend) => {
  it("is in no replay of the live events, before or after a restart", async () => {
    const db = await sharedDatabase(backend);
    const postId = freshItem("science");
    const removed = [
      "Deleted by its writer: my street address",
      "Edited away: my first clumsy draft",
      "Removed by the owner: someone's home address",
      "Erased with Your data: my first words",
      "Erased with Your data: my second words",
    ];
    let t = await startTestApp(backend, db.where);
    try {
      const alex = t.visitor();
      const bea = t.visitor();
      const carl = t.visitor();
      const dana = t.visitor();
      const keeper = t.visitor();
      await keeper.comment(postId, "A comment that stays", "Keeper");

      const alexs = json(
        await alex.comment(postId, removed[0] as string, "Alex"),
        commentResponseSchema,
      ).comment;
      expect((await alex.delete(`/api/comments/${alexs.id}`)).statusCode).toBe(204);

      const beas = json(
        await bea.comment(postId, removed[1] as string, "Bea"),
        commentResponseSchema,
      ).comment;
      const edit = await bea.patch(`/api/comments/${beas.id}`, {
        content: "The words Bea kept",
        userName: "Bea",
      });
      expect(edit.statusCode).toBe(200);

      const carls = json(
        await carl.comment(postId, removed[2] as string, "Carl"),
        commentResponseSchema,
      ).comment;
      const owner = new Owner(t);
      expect((await owner.signIn()).statusCode).toBe(200);
      expect((await owner.delete(`/api/admin/comments/${carls.id}`)).statusCode).toBe(204);

      await dana.comment(postId, removed[3] as string, "Dana");
      await dana.comment(postId, removed[4] as string, "Dana");
      const erasure = await dana.post("/api/your-data/delete", { confirm: true });
      expect(json(erasure, deleteYourDataResponseSchema).deleted.comments).toBe(2);

      const check = async () => {
        const replay = await replayFromStart(t, `science:${postId}`);
        // The replay is whole: what still stands is in it, as it stands.
        expect(replay).toContain("A comment that stays");
        expect(replay).toContain("The words Bea kept");
        for (const text of removed) expect(replay).not.toContain(text);
        // Nor is the text anywhere in the journal a replay is read from.
        const journal = await runSql(t, "select data from events");
        expect(journal.length).toBeGreaterThan(0);
        for (const text of removed) {
          expect(journal.filter((row) => String(row.data).includes(text))).toEqual([]);
        }
      };
      await check();

      await t.close();
      t = await startTestApp(backend, db.where);
      await check();
    } finally {
      await t.close();
      await db.drop();
    }
  });

  it("is never sent to the webhook on a retry, even after a restart", async () => {
    const db = await sharedDatabase(backend);
    // Down until the restart: every call fails, and is retried an hour later.
    const receiver = await startReceiver(() => (receiver.up ? 200 : 503));
    const env = {
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: "webhook-secret-for-the-tests-0123456789",
    };
    let t = await startTestApp(backend, { env, mail: { retryBaseMs: hourMs }, ...db.where });
    try {
      const postId = freshItem("science");
      const alex = t.visitor();
      const deleted = json(
        await alex.comment(postId, "Deleted before the retry", "Alex"),
        commentResponseSchema,
      ).comment;
      const edited = json(
        await alex.comment(postId, "Before the edit", "Alex"),
        commentResponseSchema,
      ).comment;
      const kept = json(
        await alex.comment(postId, "Kept as it was", "Alex"),
        commentResponseSchema,
      ).comment;
      await receiver.waitFor((bodies) => bodies.length >= 3);

      expect((await alex.delete(`/api/comments/${deleted.id}`)).statusCode).toBe(204);
      await alex.patch(`/api/comments/${edited.id}`, {
        content: "After the edit",
        userName: "Alex",
      });
      // While a call waits for its retry, its row holds which comment, not what it says.
      const waiting = await runSql(t, "select payload from outbox where kind = 'webhook'");
      expect(waiting).toHaveLength(3);
      for (const row of waiting) {
        expect(String(row.payload)).not.toMatch(/Deleted before|Before the edit|Kept as/);
      }

      await t.close();
      receiver.up = true;
      const clock = { offset: hourMs + 60_000 };
      const later = () => new Date(Date.now() + clock.offset);
      t = await startTestApp(backend, { env, mail: { clock: later }, ...db.where });

      await expect
        .poll(
          async () =>
            runSql(t, "select status, payload from outbox where kind = 'webhook' order by id"),
          { timeout: 20_000 },
        )
        .toEqual([
          { status: "cancelled", payload: null },
          { status: "sent", payload: null },
          { status: "sent", payload: null },
        ]);
      const retried = receiver.bodies.slice(3).map((body) => JSON.parse(body));
      expect(retried.map((body) => body.comment.id).sort()).toEqual([edited.id, kept.id].sort());
      expect(retried.find((body) => body.comment.id === edited.id).comment.content).toBe(
        "After the edit",
      );
      expect(receiver.bodies.slice(3).join("\n")).not.toContain("Deleted before the retry");
    } finally {
      await t.close();
      await receiver.close();
      await db.drop();
    }
  });
});

describe.each(backends)("rows written before on %s", (backend) => {
  it("notifications keep which comment while they wait, and nothing once done with; the audit trail no address", async () => {
    const db = await sharedDatabase(backend);
    const store = await openStore(
      db.databaseUrl
        ? { kind: "postgres", connectionString: db.databaseUrl }
        : { kind: "sqlite", file: path.join(db.dataDir, "engage.sqlite") },
    );
    try {
      const migrator = new Migrator({
        db: store.db,
        provider: { getMigrations: async () => migrations(store.kind) },
      });
      expect((await migrator.migrateTo("010_comment_threads")).error).toBeUndefined();
      const now = new Date().toISOString();
      // The body an older version stored: the comment's text, until sent.
      const body = (id: number, type = "comment.created") =>
        JSON.stringify({
          type,
          occurredAt: now,
          comment: { id, postId: "wifi", content: `Text of ${id}`, userName: "Asha" },
        });
      const row = (payload: string, status: "queued" | "failed" | "cancelled") => ({
        kind: "webhook" as const,
        email: null,
        payload,
        status,
        next_attempt_at: now,
        created_at: now,
      });
      await store.db
        .insertInto("outbox")
        .values([
          row(body(1), "queued"),
          row(body(2, "comment.held"), "queued"),
          row(body(3), "failed"),
          row(body(4), "cancelled"),
          // A call about an enquiry carries its own body; its module deletes it with the enquiry.
          row('{"type":"enquiry.created","enquiryId":7,"occurredAt":"x"}', "queued"),
          { ...row('{"commentId":5,"state":"created"}', "cancelled"), kind: "comment_notice" },
        ])
        .execute();

      await store.db
        .insertInto("owner_audit")
        .values({ at: now, session_id: null, action: "subscriber remove", object: "x@example.com" })
        .execute();

      await migrateToLatest(store);

      const audit = await store.db.selectFrom("owner_audit").select(["action", "object"]).execute();
      expect(audit).toEqual([{ action: "subscriber remove", object: "1 address" }]);

      const rows = await store.db
        .selectFrom("outbox")
        .select(["status", "payload"])
        .orderBy("id")
        .execute();
      expect(rows.map((r) => [r.status, r.payload && JSON.parse(r.payload)])).toEqual([
        ["queued", { commentId: 1, state: "created", occurredAt: now }],
        ["queued", { commentId: 2, state: "held", occurredAt: now }],
        ["failed", null],
        ["cancelled", null],
        ["queued", { type: "enquiry.created", enquiryId: 7, occurredAt: "x" }],
        ["cancelled", null],
      ]);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});

/** Which of `addresses` (or texts) a file in DATA_DIR/outbox/ (the mail without SMTP_URL) holds. */
function addressesInOutboxFolder(t: TestApp, addresses: readonly string[]): string[] {
  const folder = path.join(t.dataDir, "outbox");
  const files = readdirSync(folder).map((name) => {
    try {
      return readFileSync(path.join(folder, name), "utf8");
    } catch {
      return ""; // deleted since it was listed
    }
  });
  return addresses.filter((address) => files.some((file) => file.includes(address)));
}

describe.each(backends)("a newsletter address the owner removes, on %s", (backend) => {
  it("leaves no record of a mail to it in the outbox, its folder or the export, unsubscribed before or not", async () => {
    const t = await startTestApp(backend);
    const out = mkdtempSync(path.join(os.tmpdir(), "ewe-removed-"));
    try {
      for (const email of ["leaving@example.com", "left@example.com", "staying@example.com"]) {
        await confirmedSubscriber(t, email);
      }
      const edition = editionFile("2026-12-erased");
      expect((await admin(adminEnv(t), "newsletter", "send", edition, "--yes")).code).toBe(0);
      await expect
        .poll(
          async () =>
            runSql(t, "select email from outbox where kind = 'edition' and status = 'sent'"),
          {
            timeout: 20_000,
          },
        )
        .toHaveLength(3);
      const everyone = ["leaving@example.com", "left@example.com", "staying@example.com"];
      expect(addressesInOutboxFolder(t, everyone)).toEqual(everyone);
      // One reader left with the link first: the record of the mail stays until they ask.
      const [left] = await runSql(t, "select unsubscribe_token from subscribers where email = ?", [
        "left@example.com",
      ]);
      const unsubscribed = await t
        .visitor()
        .post("/api/unsubscribe", { token: t.links.tokenOf(String(left?.unsubscribe_token)) });
      expect(unsubscribed.statusCode).toBe(200);

      const owner = new Owner(t);
      expect((await owner.signIn()).statusCode).toBe(200);
      for (const email of ["LEAVING@example.com", "left@example.com"]) {
        const removed = await owner.post("/api/admin/subscribers/remove", { email });
        expect(removed.statusCode, email).toBe(204);
      }

      const rows = await runSql(t, "select kind, email from outbox order by id");
      const addresses = rows.map((row) => String(row.email).toLowerCase());
      expect(addresses).not.toContain("leaving@example.com");
      expect(addresses).not.toContain("left@example.com");
      expect(rows).toContainEqual({ kind: "edition", email: "staying@example.com" });
      await expect
        .poll(() => addressesInOutboxFolder(t, everyone), { timeout: 10_000 })
        .toEqual(["staying@example.com"]);

      const file = path.join(out, "export.json");
      expect((await admin(adminEnv(t), "export", "--out", file)).code).toBe(0);
      const exported = readFileSync(file, "utf8");
      expect(exported).toContain("staying@example.com");
      expect(exported).not.toContain("leaving@example.com");
      expect(exported).not.toContain("left@example.com");
    } finally {
      await t.close();
      rmSync(out, { recursive: true, force: true });
    }
  });
});

/** A webhook receiver on loopback that answers each call with `status()`, keeping the bodies. */
async function startReceiver(status: () => number) {
  const bodies: string[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString());
      response.statusCode = status();
      response.end();
      for (const waiter of [...waiters]) waiter();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    up: false,
    url: `http://127.0.0.1:${port}/hooks`,
    bodies,
    waitFor(condition: (bodies: string[]) => boolean, timeoutMs = 20_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!condition(bodies)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out with ${bodies.length} webhook calls`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.each(backends)("an hourly digest's file in DATA_DIR/outbox on %s", (backend) => {
  it("goes when any row it carries does, not only its first", async () => {
    const clock = movableClock();
    clock.set(new Date("2030-03-04T10:20:00.000Z"));
    const t = await startTestApp(backend, {
      env: {
        OWNER_EMAIL: "owner@example.com",
        NOTIFY_COMMENTS: "hourly",
      },
      mail: { clock: clock.now },
    });
    try {
      const postId = freshItem("science");
      for (const [content, name] of [
        ["A question from Asha on the lid", "Asha"],
        ["Words from Dana on the spin", "Dana"],
      ] as const) {
        expect((await t.visitor().comment(postId, content, name)).statusCode).toBe(201);
      }
      clock.set(new Date("2030-03-04T11:00:01.000Z"));
      const inFolder = (text: string) => addressesInOutboxFolder(t, [text]).length > 0;
      await expect.poll(() => inFolder("Words from Dana"), { timeout: 20_000 }).toBe(true);
      const rows = await runSql(
        t,
        "select id from outbox where kind = 'comment_digest' order by id",
      );
      expect(rows).toHaveLength(2);
      // The digest's second row is deleted behind the server's back (a restore): the next
      // start deletes the file that quoted it, with the rest of the digest.
      await runSql(t, "delete from outbox where id = ?", [Number(rows[1]?.id)]);
      const next = await startTestApp(backend, {
        dataDir: t.dataDir,
        ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}),
      });
      await next.close();
      expect(inFolder("Words from Dana")).toBe(false);
      expect(inFolder("A question from Asha")).toBe(false);
    } finally {
      await t.close();
    }
  });
});

describe.each(backends)("the owner's notice of a comment in DATA_DIR/outbox on %s", (backend) => {
  it("goes with the comment, however it is deleted, and stays while the comment does", async () => {
    const t = await startTestApp(backend, {
      env: { OWNER_EMAIL: "owner@example.com", NOTIFY_COMMENTS: "each" },
    });
    try {
      const postId = freshItem("science");
      const inFolder = (text: string) => addressesInOutboxFolder(t, [text]).length > 0;
      const alex = t.visitor();
      const bea = t.visitor();
      const words = {
        own: "Alex's own words on the lid",
        erased: "Bea's words on the spin",
        owners: "Carl's words on the steam",
        kept: "Dana's words on the valve",
      };
      const ids: Record<string, number> = {};
      for (const [key, writer] of [
        ["own", alex],
        ["erased", bea],
        ["owners", t.visitor()],
        ["kept", t.visitor()],
      ] as const) {
        const posted = await writer.comment(postId, words[key], "Reader");
        ids[key] = json(posted, commentResponseSchema).comment.id;
      }
      await expect
        .poll(() => Object.values(words).filter(inFolder), { timeout: 20_000 })
        .toEqual(Object.values(words));

      expect((await alex.delete(`/api/comments/${ids.own}`)).statusCode).toBe(204);
      expect((await bea.post("/api/your-data/delete", { confirm: true })).statusCode).toBe(200);
      expect((await admin(adminEnv(t), "comments", "delete", String(ids.owners))).code).toBe(0);
      await expect
        .poll(() => Object.values(words).filter(inFolder), { timeout: 10_000 })
        .toEqual([words.kept]);
      // Nor does the outbox keep a row for them; the comment that stands keeps its notice.
      const notices = await runSql(t, "select payload from outbox where kind = 'comment_notice'");
      expect(notices.map((row) => JSON.parse(String(row.payload)).commentId)).toEqual([ids.kept]);
    } finally {
      await t.close();
    }
  });
});
