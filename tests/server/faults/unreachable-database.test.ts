import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { errorResponseSchema, reactionsResponseSchema } from "../../../contract/api.ts";
import { commentIn, EventStream } from "../../support/event-stream.ts";
import { createDatabase, startPostgres } from "../../support/postgres.ts";
import { waitFor } from "../../support/wait-for.ts";
import { json, readinessSchema, startTestApp, type TestApp } from "../support/test-app.ts";

/*
 * The database goes away under a running server: PostgreSQL stopped and
 * started again (each test on a cluster of its own, which it halts), and
 * SQLite's write lock held by another connection. Writes answer 503 and
 * nothing else, /readyz says so, and the server comes back by itself.
 */

async function listen(t: TestApp) {
  return t.app.listen({ host: "127.0.0.1", port: 0 });
}

async function liveEventsState(t: TestApp) {
  return json(await t.app.inject({ method: "GET", url: "/readyz" }), readinessSchema).liveEvents;
}

describe("an unreachable database", () => {
  it("answers 503 on PostgreSQL, and recovers when it is back", async () => {
    const server = await startPostgres();
    const t = await startTestApp("postgres", { databaseUrl: await createDatabase(server.url) });
    try {
      const alex = t.visitor();
      expect((await alex.react("science", "wifi", "like")).statusCode).toBe(201);
      await server.halt();
      for (const response of [
        await alex.react("science", "wifi", "love"),
        await alex.get("/api/items/science/wifi/reactions"),
        await alex.get("/api/items/science/wifi/comments"),
        await alex.post("/api/subscribers", {
          email: "down@example.com",
          formToken: t.formToken(),
        }),
      ]) {
        expect(response.statusCode).toBe(503);
        expect(json(response, errorResponseSchema).error.code).toBe("service_unavailable");
      }
      const ready = await t.app.inject({ method: "GET", url: "/readyz" });
      expect(ready.statusCode).toBe(503);

      await server.resume();
      expect((await t.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
      expect(
        json(await alex.get("/api/items/science/wifi/reactions"), reactionsResponseSchema).mine,
      ).toEqual(["like"]);
    } finally {
      await t.close();
      await server.stop();
    }
  });

  it("answers 503 on SQLite when another process holds the write lock too long", async () => {
    const t = await startTestApp("sqlite");
    const other = new DatabaseSync(path.join(t.dataDir, "engage.sqlite"));
    try {
      const alex = t.visitor();
      other.exec("begin exclusive");
      const response = await alex.react("science", "wifi", "like");
      expect(response.statusCode).toBe(503);
      expect(json(response, errorResponseSchema).error.code).toBe("service_unavailable");
      // Readers are not blocked in WAL mode.
      expect((await alex.get("/api/items/science/wifi/reactions")).statusCode).toBe(200);
      other.exec("rollback");
      expect((await alex.react("science", "wifi", "like")).statusCode).toBe(201);
    } finally {
      other.close();
      await t.close();
    }
  });
});

describe("a PostgreSQL restart", () => {
  it("is survived by the listener and the open streams", async () => {
    const server = await startPostgres();
    const t = await startTestApp("postgres", { databaseUrl: await createDatabase(server.url) });
    const stream = new EventStream(await listen(t), "science:wifi");
    try {
      await stream.ready();
      await server.halt();
      await waitFor(async () => (await liveEventsState(t)) === "reconnecting");
      await server.resume();
      await waitFor(async () => (await liveEventsState(t)) === "listening");
      expect((await t.visitor().comment("wifi", "after the restart")).statusCode).toBe(201);
      expect(commentIn((await stream.next("comment")).json)?.content).toBe("after the restart");
    } finally {
      stream.close();
      await t.close();
      await server.stop();
    }
  });
});
