import { mkdtempSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { sql } from "kysely";
import { afterEach, describe, expect, inject, it } from "vitest";
import type { CommentsResponse } from "../../../contract/api.ts";
import {
  commentsResponseSchema,
  errorResponseSchema,
  reactionsResponseSchema,
} from "../../../contract/api.ts";
import { migrateToLatest, openStore } from "../../../server/db/store.ts";
import { fakeBuiltSite } from "../../support/built-site.ts";
import { EventStream } from "../../support/event-stream.ts";
import { formTokenFor } from "../../support/newsletter.ts";
import { createDatabase, dropDatabase, startPostgres } from "../../support/postgres.ts";
import {
  generousLimits,
  type ServerProcess,
  startServerProcess,
} from "../../support/server-process.ts";
import { httpVisitor } from "../../support/visitor.ts";
import { waitFor } from "../../support/wait-for.ts";
import { admin } from "../support/admin.ts";
import { backends, json } from "../support/test-app.ts";

type Acknowledged = {
  comments: string[];
  emails: string[];
  reactions: number;
  /** Writes cut off by the kill (sent, never answered), as opposed to refused after it. */
  interrupted: number;
};

/**
 * Writers that keep comments, subscriptions and reactions coming until the
 * server stops answering; `onAcknowledged` sees the running total of writes
 * answered 2xx. Resolves with what was acknowledged.
 */
async function burstOfWrites(
  url: string,
  formToken: () => string,
  onAcknowledged: (total: number) => void,
  writers = 8,
): Promise<Acknowledged> {
  const acknowledged: Acknowledged = { comments: [], emails: [], reactions: 0, interrupted: 0 };
  let total = 0;
  const writer = async (w: number) => {
    const author = httpVisitor(url);
    for (let i = 0; ; i += 1) {
      const content = `burst ${w}-${i}`;
      const email = `burst-${w}-${i}@example.com`;
      let status: number;
      try {
        if (i % 3 === 0) status = (await author.comment("wifi", content)).statusCode;
        else if (i % 3 === 1)
          status = (await httpVisitor(url).subscribe(email, formToken())).statusCode;
        else status = (await httpVisitor(url).react("mythology", "garuda", "like")).statusCode;
      } catch (error) {
        // The server is gone: this write was not acknowledged.
        if ((error as { cause?: { code?: string } }).cause?.code !== "ECONNREFUSED") {
          acknowledged.interrupted += 1;
        }
        return;
      }
      if (status < 200 || status >= 300) return;
      if (i % 3 === 0) acknowledged.comments.push(content);
      else if (i % 3 === 1) acknowledged.emails.push(email);
      else acknowledged.reactions += 1;
      total += 1;
      onAcknowledged(total);
    }
  };
  await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
  return acknowledged;
}

describe.each(backends)("kill -9 during a burst of writes on %s", (backend) => {
  const servers: ServerProcess[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop("SIGKILL");
  });

  it("loses no write that was answered 2xx", async () => {
    const databaseUrl =
      backend === "postgres" ? await createDatabase(inject("postgresUrl")) : undefined;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-durability-"));
    const env = {
      CLIENT_ROOT: fakeBuiltSite(),
      DATA_DIR: dataDir,
      ...generousLimits,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    };
    try {
      const first = await startServerProcess({ env });
      servers.push(first);
      let killed = false;
      const acknowledged = await burstOfWrites(
        first.url,
        () => formTokenFor(env),
        (total) => {
          if (total >= 150 && !killed) {
            killed = true;
            void first.stop("SIGKILL");
          }
        },
      );
      expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
      expect(acknowledged.comments.length).toBeGreaterThan(0);
      expect(acknowledged.emails.length).toBeGreaterThan(0);
      expect(acknowledged.reactions).toBeGreaterThan(0);
      expect(acknowledged.interrupted).toBeGreaterThan(0);

      const second = await startServerProcess({ env });
      servers.push(second);
      const reader = httpVisitor(second.url);
      // Every page of them (docs/decisions/015-comment-pages.md).
      const stored = new Set<string>();
      let after: string | null = "";
      while (after !== null) {
        const page: CommentsResponse = json(
          await reader.get(
            `/api/items/science/wifi/comments?limit=100${after ? `&after=${after}` : ""}`,
          ),
          commentsResponseSchema,
        );
        for (const comment of page.comments) stored.add(comment.content);
        after = page.next;
      }
      expect(acknowledged.comments.filter((content) => !stored.has(content))).toEqual([]);

      const reactions = await reader.get("/api/items/mythology/garuda/reactions");
      // A write can commit and lose its answer to the kill, so there may be more, never fewer.
      expect(json(reactions, reactionsResponseSchema).counts.like).toBeGreaterThanOrEqual(
        acknowledged.reactions,
      );

      // Acknowledged subscriptions are pending, each with its confirmation mail queued.
      const listed = await admin(
        databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir },
        "subscribers",
        "list",
        "--json",
      );
      const subscribers = new Set(
        (JSON.parse(listed.stdout) as { email: string }[]).map((s) => s.email),
      );
      expect(acknowledged.emails.filter((email) => !subscribers.has(email))).toEqual([]);

      if (backend === "sqlite") {
        const db = new DatabaseSync(path.join(dataDir, "engage.sqlite"), { readOnly: true });
        try {
          expect(db.prepare("pragma integrity_check").get()).toEqual({ integrity_check: "ok" });
        } finally {
          db.close();
        }
      }
    } finally {
      if (databaseUrl) {
        for (const server of servers.splice(0)) await server.stop("SIGKILL");
        await dropDatabase(databaseUrl);
      }
    }
  });
});

describe("the SQLite store", () => {
  it("flushes every commit to disk before answering (WAL, synchronous=FULL)", async () => {
    // A power cut cannot be staged in a test; these two settings are what make a
    // committed transaction survive one.
    const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-sync-"));
    const store = await openStore({ kind: "sqlite", file: path.join(dir, "engage.sqlite") });
    try {
      const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(store.db);
      const sync = await sql<{ synchronous: number }>`pragma synchronous`.execute(store.db);
      expect(mode.rows).toEqual([{ journal_mode: "wal" }]);
      expect(sync.rows).toEqual([{ synchronous: 2 }]); // 2 = FULL
    } finally {
      await store.close();
    }
  });

  it("migrates without waiting on every commit, then is back at FULL with the migrations in the database file", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-sync-"));
    const file = path.join(dir, "engage.sqlite");
    const store = await openStore({ kind: "sqlite", file });
    try {
      await migrateToLatest(store);
      const sync = await sql<{ synchronous: number }>`pragma synchronous`.execute(store.db);
      expect(sync.rows).toEqual([{ synchronous: 2 }]);
      // The checkpoint moved every migration out of the write-ahead log, durably.
      expect(statSync(`${file}-wal`).size).toBe(0);
      const tables = new DatabaseSync(file, { readOnly: true });
      const migrated = tables.prepare("select count(*) as n from kysely_migration").get();
      tables.close();
      expect(Number(migrated?.n)).toBeGreaterThan(10);
    } finally {
      await store.close();
    }
  });
});

describe("a PostgreSQL restart under a running server", () => {
  it("turns /readyz unready then ready, answers writes 503 meanwhile, then serves and streams again", async () => {
    const postgres = await startPostgres();
    let server: ServerProcess | undefined;
    const stream: { current?: EventStream; late?: EventStream } = {};
    const restartDir = mkdtempSync(path.join(os.tmpdir(), "ewe-restart-"));
    try {
      server = await startServerProcess({
        env: {
          CLIENT_ROOT: fakeBuiltSite(),
          DATA_DIR: restartDir,
          DATABASE_URL: await createDatabase(postgres.url),
          ...generousLimits,
        },
      });
      const { url } = server;
      const readiness = async () => {
        const response = await fetch(`${url}/readyz`);
        return { code: response.status, body: await response.json() };
      };
      const alex = httpVisitor(url);
      expect((await alex.comment("wifi", "before the restart")).statusCode).toBe(201);
      stream.current = new EventStream(url, "science:wifi");
      await stream.current.ready();

      await postgres.halt();
      await waitFor(async () => (await readiness()).code === 503, { what: "unready" });
      expect((await readiness()).body).toEqual({
        status: "unavailable",
        database: "postgres",
        liveEvents: "reconnecting",
      });
      const whileDown = [
        await alex.comment("wifi", "while the database is down"),
        await alex.react("science", "wifi", "idea"),
        await httpVisitor(url).subscribe(
          "down@example.com",
          formTokenFor({ DATA_DIR: restartDir }),
        ),
        await alex.get("/api/items/science/wifi/comments"),
      ];
      for (const answer of whileDown) {
        expect(answer.statusCode).toBe(503);
        expect(json(answer, errorResponseSchema)).toMatchObject({
          error: { code: "service_unavailable" },
        });
      }
      // A page opened meanwhile still gets its stream, and hears what comes after.
      stream.late = new EventStream(url, "science:wifi");
      await stream.late.ready();
      expect(stream.late.status).toBe(200);

      await postgres.resume();
      await waitFor(
        async () => {
          const { code, body } = await readiness();
          return code === 200 && body.liveEvents === "listening";
        },
        { what: "ready again", timeoutMs: 15_000 },
      );
      expect((await alex.comment("wifi", "after the restart")).statusCode).toBe(201);
      expect((await alex.react("science", "wifi", "idea")).statusCode).toBe(201);
      // Delivery is at least once: a stream may also hear of a write committed
      // just before it opened, so look for this one by its text.
      for (const viewer of [stream.current, stream.late]) {
        await viewer.until((s) =>
          s.events.find(
            (e) =>
              e.event === "comment" && JSON.parse(e.data).comment?.content === "after the restart",
          ),
        );
      }
      expect((await stream.current.next("reaction")).json.counts.idea).toBe(1);

      const comments = await alex.get("/api/items/science/wifi/comments");
      expect(json(comments, commentsResponseSchema).comments.map((c) => c.content)).toEqual([
        "before the restart",
        "after the restart",
      ]);
      // It never answered 500, and never crashed.
      expect(server.logs.filter((line) => line.res?.statusCode === 500)).toEqual([]);
      expect(await server.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    } finally {
      stream.current?.close();
      stream.late?.close();
      await server?.stop("SIGKILL");
      await postgres.stop();
    }
  });
});
