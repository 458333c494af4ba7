import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { expect, inject, it } from "vitest";
import { fakeBuiltSite } from "../../support/built-site.ts";
import { createDatabase, dropDatabase } from "../../support/postgres.ts";
import {
  generousLimits,
  type ServerProcess,
  startServerProcess,
} from "../../support/server-process.ts";
import { waitFor } from "../../support/wait-for.ts";

/*
 * PostgreSQL stops answering without closing anything (docs/postgresql.md):
 * a statement stuck behind a lock, and a connection whose
 * packets stop. The request answers 503 with Retry-After within a few
 * seconds (DATABASE_STATEMENT_TIMEOUT_SECONDS) instead of hanging, and the
 * site recovers once PostgreSQL answers again.
 */

/**
 * A TCP proxy on loopback in front of PostgreSQL that can freeze: while
 * frozen, it forwards nothing either way and holds what it is sent, as a
 * stalled network or a stopped server would; thawed, it delivers it all.
 */
function freezableProxy(target: { host: string; port: number }) {
  let frozen = false;
  const flows = new Set<() => void>();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = tcpConnect(target);
    sockets.add(client);
    sockets.add(upstream);
    const held: [Socket, Buffer][] = [];
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (frozen) held.push([to, chunk]);
      else to.write(chunk);
    };
    client.on("data", forward(upstream));
    upstream.on("data", forward(client));
    const flush = () => {
      for (const [to, chunk] of held.splice(0)) to.write(chunk);
    };
    flows.add(flush);
    const close = () => {
      flows.delete(flush);
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", close);
    upstream.on("close", close);
    client.on("error", close);
    upstream.on("error", close);
  });
  return {
    async listen(): Promise<number> {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return (server.address() as { port: number }).port;
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const flush of flows) flush();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

it("answers 503 within seconds, not after a hang, when PostgreSQL stops answering", async () => {
  const databaseUrl = await createDatabase(
    inject("postgresUrl"),
    "ewe_test",
    inject("postgresTemplate"),
  );
  const direct = new URL(databaseUrl);
  const proxy = freezableProxy({ host: direct.hostname, port: Number(direct.port) });
  const proxied = new URL(databaseUrl);
  proxied.port = String(await proxy.listen());
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-frozen-"));
  let server: ServerProcess | undefined;
  const locker = new pg.Client({ connectionString: databaseUrl });
  try {
    server = await startServerProcess({
      env: {
        CLIENT_ROOT: fakeBuiltSite(),
        DATA_DIR: dataDir,
        DATABASE_URL: proxied.toString(),
        DATABASE_STATEMENT_TIMEOUT_SECONDS: "1",
        ...generousLimits,
      },
    });
    const url = server.url;
    /** A visitor's request, given up by the test after 25 s (the hang it must not be). */
    const timed = async (request: () => Promise<Response>) => {
      const started = performance.now();
      const response = await request();
      const body = await response.text();
      return {
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
        body,
        seconds: (performance.now() - started) / 1000,
      };
    };
    let cookie = "";
    const send = (address: string, method = "GET", body?: unknown) =>
      timed(() =>
        fetch(`${url}${address}`, {
          method,
          headers: {
            origin: server?.siteUrl ?? "",
            ...(cookie ? { cookie } : {}),
            ...(body ? { "content-type": "application/json" } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(25_000),
        }),
      );
    const react = (id: string, type = "like") =>
      send(`/api/items/science/${id}/reactions`, "POST", { type, userName: "Alex" });

    const first = await fetch(`${url}/api/items/science/wifi/reactions`, {
      method: "POST",
      headers: { origin: server.siteUrl, "content-type": "application/json" },
      body: JSON.stringify({ type: "like", userName: "Alex" }),
    });
    expect(first.status).toBe(201);
    cookie = (first.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
    expect(cookie).toMatch(/^ewe_visitor=/);

    // A statement stuck behind a lock: PostgreSQL ends it (statement_timeout).
    await locker.connect();
    await locker.query("begin");
    await locker.query("lock table science_reactions in access exclusive mode");
    const blocked = await react("soap");
    await locker.query("rollback");
    expect(blocked.status).toBe(503);
    expect(blocked.retryAfter).toMatch(/^\d+$/);
    expect(blocked.seconds).toBeLessThan(15);
    expect(JSON.parse(blocked.body)).toMatchObject({ error: { code: "service_unavailable" } });
    expect(blocked.body).not.toMatch(/statement timeout|cancel/i);

    // Every connection stops answering: the server gives up on it (query_timeout).
    proxy.freeze();
    for (const request of [() => react("ironing"), () => send("/api/your-data")]) {
      const answer = await request();
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).toMatch(/^\d+$/);
      expect(answer.seconds).toBeLessThan(15);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "service_unavailable" } });
    }

    // Answering again: so is the site, on connections of its own.
    proxy.thaw();
    await waitFor(async () => (await react("wifi", "love")).status === 201, {
      what: "a write after PostgreSQL answers again",
      timeoutMs: 30_000,
    });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // The connections given up on were ended, not handed out again.
    expect(server.logs.some((line) => line.msg === "database connection lost")).toBe(true);
  } finally {
    await locker.end().catch(() => undefined);
    await server?.stop("SIGKILL");
    await proxy.close();
    await dropDatabase(databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
