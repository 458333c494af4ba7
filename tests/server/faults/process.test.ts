import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, statSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { fakeBuiltSite } from "../../support/built-site.ts";
import { EventStream } from "../../support/event-stream.ts";
import { formTokenFor } from "../../support/newsletter.ts";
import {
  projectRoot,
  type ServerProcess,
  startServerProcess,
} from "../../support/server-process.ts";
import { admin, parseExport } from "../support/admin.ts";
import { tokenFromOutboxFolder } from "../support/newsletter.ts";

const scratch = () => mkdtempSync(path.join(os.tmpdir(), "ewe-process-"));

/**
 * A POST whose body is sent in two halves, so the request can be left in
 * flight. Its connection is kept alive with no idle timeout of its own, like
 * a browser's or a proxy's: only the server can end it.
 */
function halfSentPost(url: string, origin: string, pathname: string, body: string) {
  const request = http.request(new URL(pathname, url), {
    agent: new http.Agent({ keepAlive: true }),
    method: "POST",
    headers: {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      origin,
    },
  });
  const response = new Promise<{
    status: number;
    headers: http.IncomingHttpHeaders;
    body: string;
  }>((resolve, reject) => {
    request.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
      );
    });
    request.on("error", reject);
  });
  const half = Math.floor(body.length / 2);
  request.write(body.slice(0, half));
  return {
    response,
    finish: () => request.end(body.slice(half)),
  };
}

async function refusesConnections(url: string, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const refused = await fetch(`${url}/healthz`).then(
      () => false,
      (error) => (error as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED",
    );
    if (refused) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}

describe("the server process", () => {
  let server: ServerProcess | undefined;
  afterEach(async () => {
    await server?.stop("SIGKILL");
    server = undefined;
  });

  it("starts with no settings but its address: SQLite and a cookie secret under ./data", async () => {
    const cwd = scratch();
    server = await startServerProcess({ env: { CLIENT_ROOT: fakeBuiltSite() }, cwd });
    const ready = await fetch(`${server.url}/readyz`);
    expect(await ready.json()).toEqual({
      status: "ready",
      database: "sqlite",
      liveEvents: "listening",
    });
    expect(existsSync(path.join(cwd, "data/engage.sqlite"))).toBe(true);
    expect(statSync(path.join(cwd, "data/cookie-secret")).mode & 0o777).toBe(0o600);
    // Beside the JSON log, a person is told where the site is, where mail goes
    // and how to reach the console; stdout stays JSON for log collectors.
    await expect.poll(() => server?.output()).toContain("The console is at");
    const output = server.output();
    expect(output).toContain(`Engage with Engineer is running at ${server.siteUrl}`);
    expect(output).toContain(`Mail goes to .eml files in ${path.join("data", "outbox")}`);
    expect(output).toContain(`${server.siteUrl}/admin: sign in with \`npm run admin -- login\``);
    expect(server.logs.filter((line) => "unparsed" in line)).toEqual([]);
  });

  it("refuses to start in production on unsafe settings, saying which", () => {
    const run = spawnSync(process.execPath, [path.join(projectRoot, "server/main.ts")], {
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", HOST: "127.0.0.1", PORT: "0" },
      encoding: "utf8",
      // A loaded 2-core machine can take longer than 15 s to start Node and fail.
      timeout: 50_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("Invalid configuration:");
    expect(run.stderr).toContain("SITE_URL: is required in production");
    expect(run.stderr).toContain("CONTACT_EMAIL: is required in production");
    expect(run.stderr).toContain("content/owner.md: is still the sample profile");
    expect(run.stdout).toBe("");
  });

  it("exits 1 with a JSON message when the database cannot be reached at start", () => {
    const run = spawnSync(process.execPath, [path.join(projectRoot, "server/main.ts")], {
      env: {
        PATH: process.env.PATH ?? "",
        HOST: "127.0.0.1",
        PORT: "0",
        CLIENT_ROOT: fakeBuiltSite(),
        DATABASE_URL: "postgres://ewe:start-password@127.0.0.1:1/ewe",
      },
      encoding: "utf8",
      // A loaded 2-core machine can take longer than 15 s to start Node and fail.
      timeout: 50_000,
    });
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stderr.trim())).toMatchObject({
      level: 60,
      msg: expect.stringContaining("could not start: Database migration failed"),
    });
    expect(run.stderr).not.toContain("start-password");
  });

  it("on SIGTERM ends the streams, refuses new connections, finishes what is in flight, closes the database and exits 0", async () => {
    const dataDir = scratch();
    server = await startServerProcess({
      // At debug a request is logged as it arrives, which the test waits for.
      env: { CLIENT_ROOT: fakeBuiltSite(), DATA_DIR: dataDir, LOG_LEVEL: "debug" },
    });
    const { url } = server;
    const stream = new EventStream(url, "science:wifi");
    await stream.ready();
    const inFlight = halfSentPost(
      url,
      server.siteUrl,
      "/api/items/science/wifi/comments",
      JSON.stringify({ content: "sent across the shutdown", userName: "Meera" }),
    );
    await server.waitForLog((line) => line.req?.url === "/api/items/science/wifi/comments");

    const signalled = Date.now();
    const exit = server.stop("SIGTERM");
    await server.waitForLog((line) => line.msg === "shutting down");
    await stream.until((s) => s.ended);
    expect(await refusesConnections(url)).toBe(true);

    inFlight.finish();
    const answered = await inFlight.response;
    expect(answered.status).toBe(201);
    // Kept alive, the connection would hold the process open past the deadline.
    expect(answered.headers.connection).toBe("close");
    expect(await exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalled).toBeLessThan(10_000);
    // Nothing is logged after the clean shutdown but the completion of a request
    // that was already answered (the in-flight post, the ended stream): Node
    // reports a response finished on its own schedule, which under load can
    // trail the close by a moment.
    const messages = server.logs.filter((line) => (line.level ?? 0) >= 30).map((line) => line.msg);
    const shutDown = messages.lastIndexOf("shut down cleanly");
    expect(shutDown).toBeGreaterThan(messages.indexOf("shutting down"));
    expect(messages.slice(shutDown + 1).filter((msg) => msg !== "request completed")).toEqual([]);

    // SQLite removes the write-ahead log when the last connection closes cleanly.
    const file = path.join(dataDir, "engage.sqlite");
    expect(existsSync(`${file}-wal`)).toBe(false);
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      expect(
        db
          .prepare("select count(*) as n from science_comments where content = ?")
          .get("sent across the shutdown"),
      ).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });

  it("logs JSON lines with request ids, and no emails, cookies, credentials or tokens", async () => {
    const dataDir = scratch();
    const cookieSecret = "cookie-secret-that-must-never-be-logged";
    server = await startServerProcess({
      env: {
        CLIENT_ROOT: fakeBuiltSite(),
        DATA_DIR: dataDir,
        COOKIE_SECRET: cookieSecret,
        LOG_LEVEL: "trace",
      },
    });
    const { url } = server;
    const email = "private.reader@example.com";
    const json = { "content-type": "application/json", origin: server.siteUrl };
    const secrets = [email, cookieSecret, "Bearer-credential-xyz", "other-cookie-value-123"];

    const subscribed = await fetch(`${url}/api/subscribers`, {
      method: "POST",
      headers: {
        ...json,
        "x-request-id": "trace-42",
        cookie: "session=other-cookie-value-123",
        authorization: "Bearer Bearer-credential-xyz",
      },
      body: JSON.stringify({
        email,
        formToken: formTokenFor({ COOKIE_SECRET: cookieSecret, DATA_DIR: dataDir }),
      }),
    });
    expect(subscribed.status).toBe(202);
    const confirmation = await tokenFromOutboxFolder({ dataDir }, email);
    secrets.push(confirmation);
    await fetch(`${url}/newsletter/confirm?token=${confirmation}`);
    const confirmed = await fetch(`${url}/api/subscribers/confirm`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ token: confirmation }),
    });
    expect(confirmed.status).toBe(200);
    expect(subscribed.headers.get("x-request-id")).toBe("trace-42");

    const reacted = await fetch(`${url}/api/items/science/wifi/reactions`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ type: "like", userName: "Private Name" }),
    });
    const visitorCookie = reacted.headers.get("set-cookie")?.split(";")[0] ?? "";
    expect(visitorCookie).toMatch(/^ewe_visitor=.{20,}/);
    secrets.push(visitorCookie.slice("ewe_visitor=".length));
    await fetch(`${url}/api/items/science/wifi/comments`, {
      method: "POST",
      headers: { ...json, cookie: visitorCookie },
      body: JSON.stringify({ content: "hello", userName: "Private Name" }),
    });
    await fetch(`${url}/api/subscribers`, { method: "POST", headers: json, body: "{not json" });

    const exported = await admin({ DATA_DIR: dataDir, SITE_URL: url }, "subscribers", "export");
    const link = parseExport(exported.stdout).get(email)!.url;
    const token = new URL(link).searchParams.get("token")!;
    secrets.push(token);
    await fetch(`${url}/unsubscribe?token=${token}`);
    // The same parameter, spelled so that only a decoded comparison catches it.
    await fetch(`${url}/unsubscribe?%74oken=${token}`);
    await fetch(`${url}/unsubscribe?ref=mail&T%4Fken=${token}#confirm`);
    await fetch(`${url}/api/unsubscribe`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ token }),
    });

    expect(await server.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    // Standard output is JSON lines only (the start-up lines for people go to
    // standard error); `logs` holds each line parsed, or `unparsed`.
    expect(server.logs.filter((entry) => "unparsed" in entry)).toEqual([]);
    for (const entry of server.logs) {
      expect(entry).toMatchObject({ level: expect.any(Number), time: expect.any(Number) });
      expect(typeof entry.msg).toBe("string");
    }
    const requests = server.logs.filter((line) => line.req);
    expect(requests.length).toBeGreaterThanOrEqual(6);
    for (const line of requests) expect(line.reqId).toEqual(expect.any(String));
    expect(requests.find((line) => line.reqId === "trace-42")?.req?.url).toBe("/api/subscribers");
    expect(requests.map((line) => line.req?.url)).toContain("/unsubscribe?token=[redacted]");
    expect(requests.map((line) => line.req?.url)).toContain("/newsletter/confirm?token=[redacted]");
    for (const secret of secrets) expect(server.output()).not.toContain(secret);
    expect(server.output()).not.toMatch(/ewe_visitor=|"cookie"|authorization/i);
  });
});
