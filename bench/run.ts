import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { DatabaseSync } from "node:sqlite";
import autocannon, { type Request, type Result } from "autocannon";
import { SMTPServer } from "smtp-server";
import { runAdmin } from "../server/cli/run-admin.ts";

/*
 * `npm run bench`: the engagement API on SQLite, on loopback, measured from
 * outside the server's process. Prints throughput and latency of the item read
 * (100 comments seeded), of writes, and the delivery latency of one write to
 * 1,000 open event streams, and the time to queue and send one newsletter
 * edition to 10,000 subscribers through a loopback SMTP server with no pacing
 * (BENCH_SUBSCRIBERS), with the server's RSS meanwhile. BENCH_DURATION (seconds per run, default 10),
 * BENCH_CONNECTIONS (default 50) and BENCH_STREAMS (default 1000) scale it.
 */

const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const streamCount = Number(process.env.BENCH_STREAMS ?? 1000);
const deliveries = 20;

const targets = { readRps: 1500, readP99: 50, deliveryP99: 100 };

const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-bench-"));
const clientRoot = path.join(scratch, "client");
mkdirSync(clientRoot);
writeFileSync(path.join(clientRoot, "index.html"), "<!doctype html><title>bench</title>");
writeFileSync(path.join(clientRoot, "404.html"), "<!doctype html><title>bench</title>");

const subscriberCount = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);

/** Counts the messages it accepts; nothing is parsed, so the sender is what is measured. */
let mailsAccepted = 0;
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  onData(stream, _session, callback) {
    stream.resume();
    stream.on("end", () => {
      mailsAccepted += 1;
      callback();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
const smtpAddress = smtp.server.address();
const smtpUrl = `smtp://127.0.0.1:${typeof smtpAddress === "object" && smtpAddress ? smtpAddress.port : 0}`;

let server: ChildProcess | undefined;

function startServer(): Promise<{ url: string; startMs: number }> {
  const { DATABASE_URL: _sqliteOnly, ...env } = process.env;
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "server.ts"), clientRoot], {
    env: {
      ...env,
      NODE_ENV: "production",
      SITE_URL: "http://127.0.0.1",
      CONTACT_EMAIL: "bench@example.com",
      SMTP_URL: smtpUrl,
      MAIL_FROM: "bench@example.com",
      MAIL_RATE_PER_MINUTE: "0",
      DATA_DIR: path.join(scratch, "data"),
      COOKIE_SECRET: randomBytes(32).toString("hex"),
      RATE_LIMIT_WRITES_PER_VISITOR: "1000000000",
      RATE_LIMIT_WRITES_PER_IP: "1000000000",
      EVENT_STREAMS_MAX: String(streamCount + 100),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  server = child;
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      const match = /listening (\S+)/.exec(output);
      if (match?.[1]) resolve({ url: match[1], startMs: performance.now() - started });
    });
    child.once("exit", (code) => reject(new Error(`the server exited with code ${code}`)));
  });
}

let baseUrl = "";

async function call(method: string, pathname: string, body?: unknown, cookie?: string) {
  const response = await fetch(`${baseUrl}${pathname}`, {
    method,
    headers: {
      origin: baseUrl,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(cookie ? { cookie } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok)
    throw new Error(`${method} ${pathname}: ${response.status} ${await response.text()}`);
  return {
    json: response.status === 204 ? null : await response.json(),
    cookie: response.headers.get("set-cookie")?.split(";")[0] ?? cookie,
  };
}

/** A visitor with a cookie, made by its first write (a reaction on a story the bench never reads). */
async function newVisitor(index: number): Promise<string> {
  const { cookie } = await call("POST", "/api/items/mythology/garuda/reactions", {
    type: "idea",
    userName: `Bench ${index}`,
  });
  if (!cookie) throw new Error("no visitor cookie was set");
  return cookie;
}

function percentile(sorted: number[], p: number): number {
  return (
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
  );
}

const rows: string[] = [];
function report(name: string, values: string) {
  const line = `${name.padEnd(58)} ${values}`;
  rows.push(line);
  console.info(line);
}

async function load(name: string, requests: Request[], visitors?: string[]): Promise<Result> {
  let nextVisitor = 0;
  const withVisitor = (request: Request): Request => {
    if (!visitors) return request;
    return {
      ...request,
      setupRequest: (raw) => {
        const cookie = visitors[nextVisitor++ % visitors.length] ?? "";
        return { ...raw, headers: { ...raw.headers, cookie } };
      },
    };
  };
  const result = await autocannon({
    url: baseUrl,
    connections,
    duration,
    headers: { origin: baseUrl, "content-type": "application/json" },
    requests: requests.map(withVisitor),
  });
  const failures = result.errors + result.timeouts + result.non2xx;
  report(
    name,
    `${Math.round(result.requests.average).toLocaleString("en")} req/s   p50 ${result.latency.p50} ms   p99 ${result.latency.p99} ms${failures ? `   FAILURES ${failures} ${JSON.stringify(result.statusCodeStats)}` : ""}`,
  );
  if (failures) process.exitCode = 1;
  return result;
}

/** Opens `count` event streams on `topic` and resolves once every one has said `ready`. */
async function openStreams(topic: string, count: number) {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  let expecting: { resolveAll: () => void; t0: number; pending: number } | null = null;
  const latencies: number[] = [];
  const requests: http.ClientRequest[] = [];
  let ready = 0;
  await new Promise<void>((resolve, reject) => {
    for (let i = 0; i < count; i += 1) {
      let got = false;
      const request = http.get(
        `${baseUrl}/api/events?topic=${encodeURIComponent(topic)}`,
        { agent, headers: { accept: "text/event-stream" } },
        (response) => {
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => {
            if (!got && chunk.includes("event: ready")) {
              got = true;
              ready += 1;
              if (ready === count) resolve();
            }
            if (expecting && chunk.includes("event: comment")) {
              latencies.push(performance.now() - expecting.t0);
              expecting.pending -= 1;
              if (expecting.pending === 0) expecting.resolveAll();
            }
          });
        },
      );
      request.on("error", reject);
      requests.push(request);
    }
  });
  return {
    latencies,
    /** Resolves when every stream has received the event caused by `write`. */
    deliver(write: () => Promise<unknown>): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error("a write did not reach every stream in 10 s")),
          10_000,
        );
        expecting = {
          t0: performance.now(),
          pending: count,
          resolveAll: () => {
            clearTimeout(timer);
            expecting = null;
            resolve();
          },
        };
        write().catch(reject);
      });
    },
    close() {
      for (const request of requests) request.destroy();
      agent.destroy();
    },
  };
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

try {
  const { url, startMs } = await startServer();
  baseUrl = url;
  console.info(
    `Engagement API benchmark: SQLite, ${connections} connections, ${duration} s per run, ${os.cpus().length} CPUs, Node ${process.version}\n`,
  );
  report("server start to listening", `${Math.round(startMs)} ms`);

  // Seed: 100 comments and 40 reactions on the post the reads fetch.
  const commenters = await Promise.all(Array.from({ length: 10 }, (_, i) => newVisitor(i)));
  for (let i = 0; i < 100; i += 1) {
    await call(
      "POST",
      "/api/items/science/ironing/comments",
      {
        content: `Comment ${i}: ${"Steam and heat relax the fibres. ".repeat(3)}`,
        userName: `Reader ${i % 10}`,
      },
      commenters[i % 10],
    );
  }
  const reactionTypes = ["like", "love", "dislike", "idea"];
  for (let i = 0; i < 40; i += 1) {
    await call(
      "POST",
      "/api/items/science/ironing/reactions",
      { type: reactionTypes[i % 4], userName: `R${i}` },
      commenters[i % 10],
    );
  }
  report("idle memory after seeding (RSS)", `${rssMb(server?.pid ?? 0)} MB`);
  // Read as one of the commenters, so `mine` is worked out as for a real visitor.
  const readHeaders: Record<string, string> = { cookie: commenters[0] ?? "" };

  const itemRead = await load("item read: GET reactions + GET 100 comments (alternating)", [
    { method: "GET", path: "/api/items/science/ironing/reactions", headers: readHeaders },
    { method: "GET", path: "/api/items/science/ironing/comments", headers: readHeaders },
  ]);
  await load("  GET comments only (100 comments)", [
    { method: "GET", path: "/api/items/science/ironing/comments", headers: readHeaders },
  ]);
  await load("  GET reactions only", [
    { method: "GET", path: "/api/items/science/ironing/reactions", headers: readHeaders },
  ]);

  // Autocannon starts each connection's request sequence afresh, so visitors
  // are handed out in turn rather than kept per connection: comments never
  // conflict, and each add/remove pair brings its own new visitor instead.
  const writers = await Promise.all(
    Array.from({ length: connections }, (_, i) => newVisitor(100 + i)),
  );
  await load("react: a new visitor adds a reaction, then removes it", [
    {
      method: "POST",
      path: "/api/items/science/soap/reactions",
      body: JSON.stringify({ type: "like", userName: "Writer" }),
      onResponse: (_status, _body, context, headers) => {
        context.cookie = String(headers["set-cookie"]).split(";")[0];
      },
    },
    {
      method: "DELETE",
      path: "/api/items/science/soap/reactions/like",
      setupRequest: (request, context) => ({
        ...request,
        headers: { ...request.headers, cookie: String(context.cookie) },
      }),
    },
  ]);
  await load(
    "comment: a returning visitor adds a comment",
    [
      {
        method: "POST",
        path: "/api/items/science/wifi/comments",
        body: JSON.stringify({ content: "Benchmark comment", userName: "Writer" }),
      },
    ],
    writers,
  );

  const streams = await openStreams("science:tea-cooling", streamCount);
  const writer = writers[0];
  for (let i = 0; i < deliveries; i += 1) {
    await streams.deliver(() =>
      call(
        "POST",
        "/api/items/science/tea-cooling/comments",
        { content: `Live ${i}`, userName: "Writer" },
        writer,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  streams.close();
  const sorted = streams.latencies.sort((a, b) => a - b);
  const deliveryP50 = percentile(sorted, 50);
  const deliveryP99 = percentile(sorted, 99);
  report(
    `live: one write to ${streamCount} streams (${deliveries} writes)`,
    `p50 ${deliveryP50.toFixed(1)} ms   p99 ${deliveryP99.toFixed(1)} ms   max ${sorted.at(-1)?.toFixed(1)} ms`,
  );

  // Newsletter: confirmed subscribers written straight into the table, then
  // the owner's `newsletter send`, then the server's outbox worker at full speed.
  const db = new DatabaseSync(path.join(scratch, "data", "engage.sqlite"));
  db.exec("pragma busy_timeout = 5000");
  const insert = db.prepare(
    "insert into subscribers (email, unsubscribe_token, created_at, status, confirmed_at) values (?, ?, ?, 'confirmed', ?)",
  );
  const now = new Date().toISOString();
  db.exec("begin");
  for (let i = 0; i < subscriberCount; i += 1) {
    insert.run(`bench-${i}@example.com`, randomBytes(32).toString("base64url"), now, now);
  }
  db.exec("commit");
  db.close();
  const editionDir = path.join(scratch, "editions");
  mkdirSync(editionDir);
  const editionFile = path.join(editionDir, "bench-edition.md");
  writeFileSync(
    editionFile,
    `---\nsubject: Bench edition\n---\n${"Some **Markdown** text. ".repeat(40)}\n`,
  );
  const before = mailsAccepted;
  const queueStart = performance.now();
  const sent = await runAdmin(["newsletter", "send", editionFile], {
    env: { DATA_DIR: path.join(scratch, "data"), SITE_URL: "http://127.0.0.1" },
    stdout: { write: () => true },
    stderr: process.stderr,
  });
  if (sent !== 0) throw new Error("newsletter send failed");
  const queuedMs = performance.now() - queueStart;
  let peakRss = 0;
  while (mailsAccepted - before < subscriberCount) {
    peakRss = Math.max(peakRss, rssMb(server?.pid ?? 0));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const sendMs = performance.now() - queueStart;
  report(
    `newsletter: queue one edition for ${subscriberCount} subscribers`,
    `${Math.round(queuedMs)} ms`,
  );
  report(
    `newsletter: queue and send it over loopback SMTP, no pacing`,
    `${(sendMs / 1000).toFixed(1)} s (${Math.round(subscriberCount / (sendMs / 1000))} mails/s), server RSS peak ${peakRss} MB`,
  );

  const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
  console.info(
    `\nTargets: item read ≥ ${targets.readRps} req/s: ${verdict(itemRead.requests.average >= targets.readRps)}; ` +
      `item read p99 ≤ ${targets.readP99} ms: ${verdict(itemRead.latency.p99 <= targets.readP99)}; ` +
      `delivery p99 ≤ ${targets.deliveryP99} ms: ${verdict(deliveryP99 <= targets.deliveryP99)}`,
  );
} finally {
  server?.kill("SIGTERM");
  await new Promise((resolve) =>
    server?.exitCode === null ? server.once("exit", resolve) : resolve(null),
  );
  smtp.close();
  rmSync(scratch, { recursive: true, force: true });
}
