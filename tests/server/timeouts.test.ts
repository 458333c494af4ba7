import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentIn, EventStream } from "../support/event-stream.ts";
import { waitFor } from "../support/wait-for.ts";
import { capturedLogs, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/** A raw connection to the server, for clients no HTTP library would imitate. */
class RawClient {
  readonly socket: net.Socket;
  received = "";
  readonly #closed: Promise<void>;

  constructor(port: number) {
    this.socket = net.connect(port, "127.0.0.1");
    this.socket.setEncoding("utf8");
    this.socket.on("data", (chunk: string) => {
      this.received += chunk;
    });
    this.socket.on("error", () => {});
    this.#closed = new Promise((resolve) => this.socket.once("close", () => resolve()));
  }

  /** Sends `text` every `everyMs` until the connection closes. */
  drip(text: string, everyMs: number) {
    const timer = setInterval(() => this.socket.write(text), everyMs);
    this.socket.once("close", () => clearInterval(timer));
  }

  /** Resolves when the server has closed the connection; fails if it is still open after `ms`. */
  closedWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`still open after ${ms} ms`)), ms);
    });
    return Promise.race([this.#closed, timeout]).finally(() => {
      clearTimeout(timer);
      this.socket.destroy();
    });
  }
}

const commentHeaders = (length: number) =>
  "POST /api/items/science/wifi/comments HTTP/1.1\r\nHost: ewe.test\r\n" +
  `Origin: ${siteUrl}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe("timeouts on a listening server", () => {
  const logs = capturedLogs();
  let t: TestApp;
  let port: number;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startTestApp("sqlite", {
      env: {
        HEADERS_TIMEOUT_SECONDS: "0.5",
        REQUEST_TIMEOUT_SECONDS: "1",
        IDLE_TIMEOUT_SECONDS: "1",
        KEEP_ALIVE_TIMEOUT_SECONDS: "0.5",
      },
      // No heartbeats: the stream below is as silent as a connection can be.
      heartbeatMs: 600_000,
      logger: logs.logger,
    });
    baseUrl = await t.app.listen({ host: "127.0.0.1", port: 0 });
    port = Number(new URL(baseUrl).port);
  });
  afterAll(() => t?.close());

  it("closes a connection that drips its body, answering 408", async () => {
    const client = new RawClient(port);
    client.socket.write(`${commentHeaders(200)}{`);
    client.drip(" ", 100);
    await client.closedWithin(10_000);
    expect(client.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(client.received).toContain('"code":"request_timeout"');
  });

  it("closes a connection whose headers never end", async () => {
    const client = new RawClient(port);
    client.socket.write("GET /healthz HTTP/1.1\r\nHost: ewe.test\r\n");
    client.drip("X-Padding: x\r\n", 100);
    await client.closedWithin(10_000);
    expect(client.received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("closes a connection that falls silent half-way through its body", async () => {
    const client = new RawClient(port);
    client.socket.write(`${commentHeaders(200)}{"content":`);
    await client.closedWithin(10_000);
  });

  it("closes a kept-alive connection left idle after its answer", async () => {
    const client = new RawClient(port);
    client.socket.write("GET /healthz HTTP/1.1\r\nHost: ewe.test\r\n\r\n");
    await client.closedWithin(10_000);
    expect(client.received).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("keeps a silent event stream open past every timeout, and it still delivers", async () => {
    const stream = new EventStream(baseUrl, "science:soap");
    try {
      await stream.ready();
      // A connection opened after the stream, left idle, outlives the idle,
      // request and keep-alive timeouts before the server closes it.
      const idle = new RawClient(port);
      idle.socket.write("GET /healthz HTTP/1.1\r\nHost: ewe.test\r\n\r\n");
      await idle.closedWithin(10_000);
      expect(stream.ended).toBe(false);
      await t.visitor().comment("soap", "still listening?");
      expect(commentIn((await stream.next("comment")).json)?.content).toBe("still listening?");
    } finally {
      stream.close();
    }
  });

  it("still answers a request refused after its body was read and the database asked", async () => {
    const response = await fetch(`${baseUrl}/api/comments/999999`, {
      method: "PATCH",
      headers: { origin: siteUrl, "content-type": "application/json" },
      body: JSON.stringify({ content: "edited", userName: "Alex" }),
      signal: AbortSignal.timeout(5000),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });

  it("logs timeouts and clients that leave at debug, without a stack trace", async () => {
    const before = logs.lines.length;
    const since = () => logs.lines.slice(before);
    const client = new RawClient(port);
    client.socket.write(`${commentHeaders(200)}{"content":`);
    await waitFor(async () => since().some((line) => line.req?.method === "POST"), {
      what: "the request to arrive",
    });
    client.socket.destroy();
    await waitFor(async () => since().some((line) => line.code === "ECONNRESET"), {
      what: "a line about the client leaving",
    });
    expect(logs.lines.filter((line) => (line.level ?? 0) >= 40)).toEqual([]);
    expect(logs.lines.filter((line) => JSON.stringify(line).includes("stack"))).toEqual([]);
    expect(logs.lines.filter((line) => line.level === 20).map((line) => line.code)).toEqual(
      expect.arrayContaining(["ERR_HTTP_REQUEST_TIMEOUT", "ECONNRESET"]),
    );
  });
});
