import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import autocannon, { type Request, type Result } from "autocannon";
import { SMTPServer } from "smtp-server";
import { clientDir, projectRoot } from "../scripts/build-inputs.ts";
import { EventStream } from "../tests/support/event-stream.ts";
import { freePort } from "../tests/support/postgres.ts";
import { httpVisitor, type Visitor, type VisitorResponse } from "../tests/support/visitor.ts";
import { fanOutFloor } from "./fan-out-floor.ts";
import { benchNewsletter } from "./newsletter.ts";
import { recordRun } from "./record.ts";
import { verdictTable } from "./verdict.ts";

/*
 * `npm run bench`: the engagement API on SQLite, on loopback, measured from
 * outside the server's process, with a Fastify hello world measured first in
 * the same run as the machine's ceiling; throughputs are printed as ratios to
 * it. Reads that need no cookie (hello world, item reads, /science) are driven
 * by wrk, a load generator in C: autocannon parses every answer in JavaScript
 * and, on two cores, ran out of CPU before the server did on any answer larger
 * than hello world's (docs/decisions/009-reads-from-memory.md). Reads as a
 * visitor and writes need a cookie per request, which autocannon hands out;
 * they are printed against autocannon's own hello world.
 * Then the viral case: BENCH_STREAMS (default 10,000) event streams on one post
 * receiving 2 writes a second for BENCH_VIRAL_SECONDS (default 30), with
 * delivery p50/p99, the reads the streams' clients made (they behave as the
 * browser does: apply deltas, read only on their first `ready` and on
 * `resync`), and the server's CPU time and memory, next to this machine's
 * floor: how long a bare write of one event to that many loopback sockets
 * takes, with no HTTP and no parsing (bench/fan-out-floor.ts).
 * Last, one newsletter edition to BENCH_SUBSCRIBERS (default 10,000)
 * subscribers, queued and sent by a server of its own through a loopback SMTP
 * server with no pacing: its RSS over idle, its rate against bare nodemailer
 * in the same run, and one mail per address (bench/newsletter.ts).
 * BENCH_DURATION (seconds per load run, default 10) and BENCH_CONNECTIONS
 * (default 50) scale the rest;
 * BENCH_ONLY=reads stops after the reads (pages and item reads), for a short
 * run on a shared machine. With --record, the run's lines are appended to
 * docs/benchmarks.md (bench/record.ts).
 * wrk comes from Debian (`apt-get install wrk`); the bench installs it when it
 * runs as root and it is missing.
 */

const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const streamCount = Number(process.env.BENCH_STREAMS ?? 10_000);
const viralSeconds = Number(process.env.BENCH_VIRAL_SECONDS ?? 30);
const writesPerSecond = 2;
const readsOnly = process.env.BENCH_ONLY === "reads";
class ReadsDone extends Error {}

/** Every kind of page a reader loads: static ones, and those the server fills in. */
const pages = [
  "/",
  "/about",
  "/technical",
  "/non-technical",
  "/mythology",
  "/mechfusion-ai",
  "/services",
  "/science",
  "/science/soap",
];

/** Ratios to hello world, p99 in ms, and the viral case (docs/architecture.md, "Reads"). */
const targets = {
  cachedRead: 0.4,
  readP99: 10,
  page: 0.4,
  sciencePage: 0.25,
  deliveryP99: 100,
  readsPerDelivered: 0.01,
};

execFileSync("bash", [path.join(projectRoot, "scripts/ensure-system-deps.sh"), "--bench"], {
  stdio: "inherit",
});

const scratch = mkdtempSync(path.join(os.tmpdir(), "ewe-bench-"));
// The built site, as `npm start` would build it: /science is served from it,
// filled in with its counts and comments.
execFileSync(process.execPath, [path.join(projectRoot, "scripts/ensure-build.ts")], {
  stdio: "inherit",
});
const clientRoot = clientDir;

const subscriberCount = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);

/** Takes the server's mail (the owner's notifications of the bench's comments) unread. */
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  onData(stream, _session, callback) {
    stream.resume();
    stream.on("end", () => callback());
  },
});
await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
const smtpAddress = smtp.server.address();
const smtpUrl = `smtp://127.0.0.1:${typeof smtpAddress === "object" && smtpAddress ? smtpAddress.port : 0}`;

let server: ChildProcess | undefined;
let hello: ChildProcess | undefined;

/** Starts a script that prints "listening <url>", and resolves with that url. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      const match = /listening (\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`${child.spawnfile} exited with code ${code}`)));
  });
}

// Writes must carry SITE_URL's origin, so the server's port is chosen first.
const serverPort = await freePort();
const serverOrigin = `http://127.0.0.1:${serverPort}`;

function startServer(): Promise<{ url: string; startMs: number }> {
  const { DATABASE_URL: _sqliteOnly, ...env } = process.env;
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(import.meta.dirname, "server.ts"), clientRoot], {
    env: {
      ...env,
      NODE_ENV: "production",
      SITE_URL: serverOrigin,
      PORT: String(serverPort),
      CONTACT_EMAIL: "bench@example.com",
      SMTP_URL: smtpUrl,
      MAIL_FROM: "bench@example.com",
      SITE_OWNER_NAME: "Bench Owner",
      MAIL_RATE_PER_MINUTE: "0",
      DATA_DIR: path.join(scratch, "data"),
      COOKIE_SECRET: randomBytes(32).toString("hex"),
      RATE_LIMIT_WRITES_PER_VISITOR: "1000000000",
      RATE_LIMIT_WRITES_PER_IP: "1000000000",
      // Its writers are programs posting the same text: it measures the write
      // path, not the comment form's timing or the repeat check.
      COMMENT_MIN_SECONDS: "0",
      COMMENT_DUPLICATE_MINUTES: "0",
      EVENT_STREAMS_MAX: String(streamCount + 100),
      // Every simulated reader comes from 127.0.0.1.
      EVENT_STREAMS_PER_IP: String(streamCount + 100),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  server = child;
  return listening(child).then((url) => ({ url, startMs: performance.now() - started }));
}

let baseUrl = "";

/** A browser on the site, as the tests have it; a new one has no cookie yet. */
const stranger = () => httpVisitor(baseUrl, { origin: baseUrl });

/** The answer, once it is a success: the bench measures requests that work. */
async function succeeded(request: Promise<VisitorResponse>): Promise<VisitorResponse> {
  const response = await request;
  if (response.statusCode >= 300) throw new Error(`${response.statusCode} ${response.body}`);
  return response;
}

/** A visitor with a cookie, made by its first write (a reaction on a story the bench never reads). */
async function newVisitor(index: number): Promise<Visitor> {
  const visitor = stranger();
  await succeeded(visitor.react("mythology", "garuda", "idea", `Bench ${index}`));
  if (!visitor.cookie) throw new Error("no visitor cookie was set");
  return visitor;
}

const cookieOf = (visitor: Visitor | undefined) => visitor?.cookie ?? "";

function percentile(sorted: number[], p: number): number {
  return (
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
  );
}

const rows: string[] = [];

/** With --record, a finished run goes into docs/benchmarks.md. */
function record() {
  if (!process.argv.includes("--record")) return;
  recordRun(rows, {
    BENCH_DURATION: duration,
    BENCH_CONNECTIONS: connections,
    ...(readsOnly
      ? { BENCH_ONLY: "reads" }
      : {
          BENCH_STREAMS: streamCount,
          BENCH_VIRAL_SECONDS: viralSeconds,
          BENCH_SUBSCRIBERS: subscriberCount,
        }),
  });
  console.info("\nRecorded in docs/benchmarks.md.");
}
function report(name: string, values: string) {
  const line = `${name.padEnd(58)} ${values}`;
  rows.push(line);
  console.info(line);
}

/** Hello world's req/s with each load generator: the ceilings the ratios divide by. */
const ceiling = { wrk: 0, autocannon: 0 };
const ratio = (reqPerSec: number, of: number) =>
  of ? `  ${(reqPerSec / of).toFixed(2)}× hello` : "";

type Throughput = { reqPerSec: number; p50: number; p99: number };

/** wrk's "1.58ms", "870.00us", "1.02s" in milliseconds. */
function wrkMs(text: string | undefined): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text ?? "");
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

const run = promisify(execFile);

/**
 * GETs of `path` by wrk, one thread and BENCH_CONNECTIONS connections, after a
 * 3 s warm-up that is not counted (the server's JIT, the caches' compressed copies).
 */
async function wrkLoad(
  name: string,
  pathname: string,
  { url = baseUrl, headers = {} }: { url?: string; headers?: Record<string, string> } = {},
): Promise<Throughput> {
  const args = (seconds: number) => [
    "-t1",
    `-c${connections}`,
    `-d${seconds}s`,
    "--latency",
    ...Object.entries(headers).flatMap(([key, value]) => ["-H", `${key}: ${value}`]),
    new URL(pathname, url).toString(),
  ];
  await run("wrk", args(3));
  const { stdout } = await run("wrk", args(duration));
  const reqPerSec = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN);
  const p50 = wrkMs(/^\s+50%\s+(\S+)/m.exec(stdout)?.[1]);
  const p99 = wrkMs(/^\s+99%\s+(\S+)/m.exec(stdout)?.[1]);
  const failures =
    Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0) +
    (/Socket errors:/.test(stdout) ? 1 : 0);
  report(
    name,
    `${Math.round(reqPerSec).toLocaleString("en")} req/s${ratio(reqPerSec, ceiling.wrk)}   p50 ${p50.toFixed(1)} ms   p99 ${p99.toFixed(1)} ms${failures ? `   FAILURES ${stdout}` : ""}`,
  );
  if (failures || !Number.isFinite(reqPerSec)) process.exitCode = 1;
  return { reqPerSec, p50, p99 };
}

async function load(
  name: string,
  requests: Request[],
  {
    visitors,
    url = baseUrl,
    headers = {},
  }: { visitors?: string[]; url?: string; headers?: Record<string, string> } = {},
): Promise<Result> {
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
    url,
    connections,
    duration,
    headers: { origin: baseUrl, "content-type": "application/json", ...headers },
    requests: requests.map(withVisitor),
  });
  const failures = result.errors + result.timeouts + result.non2xx;
  report(
    name,
    `${Math.round(result.requests.average).toLocaleString("en")} req/s${ratio(result.requests.average, ceiling.autocannon)}   p50 ${result.latency.p50} ms   p99 ${result.latency.p99} ms${failures ? `   FAILURES ${failures} ${JSON.stringify(result.statusCodeStats)}` : ""}`,
  );
  if (failures) process.exitCode = 1;
  return result;
}

/**
 * `count` event streams on `topic`, each behaving as a browser does: one read
 * of the item on its first `ready`, one on `resync`, and every other event
 * applied as it comes. Resolves once every stream is ready and has read.
 * They are the tests' client (tests/support/event-stream.ts), keeping nothing
 * but the delivery times of the comments the writer sends.
 */
async function openStreams(topic: string, readPath: string, count: number) {
  const readAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let reads = 0;
  let ready = 0;

  const read = () =>
    new Promise<void>((resolve) => {
      reads += 1;
      http
        .get(`${baseUrl}${readPath}`, { agent: readAgent }, (response) => {
          response.resume().on("end", resolve);
        })
        .on("error", () => resolve());
    });

  const streams = Array.from({ length: count }, () => {
    let opened = false;
    // Comments arrive in order: one delivered again (at least once) is not counted twice.
    let counted = -1;
    return new EventStream(baseUrl, topic, undefined, {
      record: false,
      onEvent: ({ event, data }) => {
        const now = performance.now();
        if (event === "ready" && !opened) {
          opened = true;
          void read().then(() => {
            ready += 1;
          });
        } else if (event === "resync") {
          void read();
        } else if (event === "comment") {
          const n = Number(/"content":"Viral (\d+)"/.exec(data)?.[1] ?? -1);
          const t0 = sentAt.get(`Viral ${n}`);
          if (n > counted && t0 !== undefined) {
            counted = n;
            latencies.push(now - t0);
          }
        }
      },
    });
  });
  while (ready < count) {
    const refused = streams.find(
      (stream) => stream.ended || (stream.status && stream.status !== 200),
    );
    if (refused) throw new Error(`an event stream was refused or ended: status ${refused.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    latencies,
    get reads() {
      return reads;
    },
    sent(content: string) {
      sentAt.set(content, performance.now());
    },
    close() {
      for (const stream of streams) stream.close();
      readAgent.destroy();
    },
  };
}

/** User plus system CPU time of a process, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

// Stopped from outside (Ctrl-C, a timeout): the servers it started stop with it.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    hello?.kill("SIGTERM");
    server?.kill("SIGTERM");
    process.exit(signal === "SIGINT" ? 130 : 143);
  });
}

try {
  console.info(
    `Engagement API benchmark: SQLite, ${connections} connections, ${duration} s per run, ${os.cpus().length} CPUs, Node ${process.version}\n`,
  );
  hello = spawn(process.execPath, [path.join(import.meta.dirname, "hello.ts")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const helloUrl = await listening(hello);
  ceiling.wrk = (
    await wrkLoad("Fastify hello world (the ceiling), wrk", "/", { url: helloUrl })
  ).reqPerSec;
  const helloByAutocannon = await load(
    "Fastify hello world, autocannon (for the runs with cookies)",
    [{ method: "GET", path: "/" }],
    { url: helloUrl },
  );
  ceiling.autocannon = helloByAutocannon.requests.average;
  hello.kill("SIGTERM");

  const { url, startMs } = await startServer();
  baseUrl = url;
  report("server start to listening", `${Math.round(startMs)} ms`);

  // Seed: 100 comments and 40 reactions on the post the reads fetch.
  const commenters = await Promise.all(Array.from({ length: 10 }, (_, i) => newVisitor(i)));
  const commenter = (i: number) => commenters[i % commenters.length] as Visitor;
  for (let i = 0; i < 100; i += 1) {
    // Written in sentences, as the spam defences expect of a person.
    const content = `Comment ${i}: steam and heat relax the cotton fibres, and the weight of the iron presses them flat while they cool.`;
    await succeeded(commenter(i).comment("ironing", content, `Reader ${i % 10}`));
  }
  const reactionTypes = ["like", "love", "dislike", "idea"];
  for (let i = 0; i < 40; i += 1) {
    const type = reactionTypes[i % 4] ?? "like";
    await succeeded(commenter(i).react("science", "ironing", type, `R${i}`));
  }
  report("idle memory after seeding (RSS)", `${rssMb(server?.pid ?? 0)} MB`);

  // Cold: every read follows a write to the same post, so the cache is empty.
  const cold: number[] = [];
  for (let i = 0; i < 200; i += 1) {
    await succeeded(stranger().react("science", "ironing", "like", "Cold"));
    const t0 = performance.now();
    await succeeded(stranger().get("/api/items/science/ironing/comments"));
    cold.push(performance.now() - t0);
  }
  cold.sort((a, b) => a - b);
  report(
    "item read, cold (after a write): GET the first 50 of 100 comments",
    `p50 ${percentile(cold, 50).toFixed(1)} ms   p99 ${percentile(cold, 99).toFixed(1)} ms (one at a time)`,
  );

  // As a browser asks: it accepts compressed answers, which the cache keeps.
  const asBrowser = { "accept-encoding": "gzip, deflate, br, zstd" };
  const cachedRead = await wrkLoad(
    "item read, cached: GET the first 50 of 100 comments (as a browser: br)",
    "/api/items/science/ironing/comments",
    { headers: asBrowser },
  );
  await wrkLoad(
    "  the same, by a client that takes no compression",
    "/api/items/science/ironing/comments",
  );
  const sciencePage = await wrkLoad(
    "/science with its counts and comments filled in (as a browser: br)",
    "/science",
    { headers: asBrowser },
  );
  // Every page as a browser asks for it; the slowest sets the verdict.
  const pageRuns: { path: string; run: Throughput }[] = [];
  for (const pagePath of pages) {
    pageRuns.push({
      path: pagePath,
      run: await wrkLoad(`page ${pagePath} (as a browser: br)`, pagePath, { headers: asBrowser }),
    });
  }
  await wrkLoad("  GET reactions, cached", "/api/items/science/ironing/reactions", {
    headers: asBrowser,
  });
  await load(
    "  GET the first 50 comments as a visitor with a cookie (own flags)",
    [{ method: "GET", path: "/api/items/science/ironing/comments" }],
    { visitors: commenters.map(cookieOf) },
  );

  const worstPage = pageRuns.reduce((worst, page) =>
    page.run.reqPerSec < worst.run.reqPerSec ? page : worst,
  );
  const slowestPage = pageRuns.reduce((worst, page) =>
    page.run.p99 > worst.run.p99 ? page : worst,
  );
  const pagesVerdict =
    `every page ≥ ${targets.page}× hello world: ${worstPage.run.reqPerSec / ceiling.wrk >= targets.page ? "met" : "MISSED"} ` +
    `(lowest ${worstPage.path}, ${(worstPage.run.reqPerSec / ceiling.wrk).toFixed(2)}×); ` +
    `page p99 ≤ ${targets.readP99} ms: ${slowestPage.run.p99 <= targets.readP99 ? "met" : "MISSED"} ` +
    `(highest ${slowestPage.path}, ${slowestPage.run.p99.toFixed(1)} ms)`;
  if (readsOnly) {
    console.info(`\nTargets (reads only): ${pagesVerdict}`);
    throw new ReadsDone();
  }

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
    { visitors: writers.map(cookieOf) },
  );

  // The viral case: every reader of one post live while comments keep coming.
  const floorMs = await fanOutFloor(streamCount);
  report(
    `  the floor: one bare write to each of ${streamCount.toLocaleString("en")} loopback sockets`,
    `${floorMs.toFixed(1)} ms (median of 5; no HTTP, nothing parsed)`,
  );
  const streams = await openStreams(
    "science:tea-cooling",
    "/api/items/science/tea-cooling/comments",
    streamCount,
  );
  const pid = server?.pid ?? 0;
  const cpuBefore = cpuMs(pid);
  const readsBefore = streams.reads;
  const writer = writers[0] ?? (await newVisitor(0));
  const writes = viralSeconds * writesPerSecond;
  const started = performance.now();
  for (let i = 0; i < writes; i += 1) {
    const due = started + (i * 1000) / writesPerSecond;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    streams.sent(`Viral ${i}`);
    await succeeded(writer.comment("tea-cooling", `Viral ${i}`, "Writer"));
  }
  // Let the last event reach every stream.
  const expected = writes * streamCount;
  const deadline = performance.now() + 10_000;
  while (streams.latencies.length < expected && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const cpu = cpuMs(pid) - cpuBefore;
  const reads = streams.reads - readsBefore;
  const rss = rssMb(pid);
  streams.close();
  const delivered = streams.latencies.length;
  const sorted = streams.latencies.sort((a, b) => a - b);
  const deliveryP50 = percentile(sorted, 50);
  const deliveryP99 = percentile(sorted, 99);
  report(
    `live: ${streamCount.toLocaleString("en")} streams on one post, ${writesPerSecond} writes/s for ${viralSeconds} s`,
    `delivered ${delivered.toLocaleString("en")} of ${expected.toLocaleString("en")}   p50 ${deliveryP50.toFixed(1)} ms   p99 ${deliveryP99.toFixed(1)} ms`,
  );
  report(
    "  reads answered meanwhile / server CPU / server RSS",
    `${reads} reads (${((reads / Math.max(1, delivered)) * 100).toFixed(3)}% of deliveries)   ${Math.round(cpu)} ms CPU   ${rss} MB`,
  );

  // Newsletter: one edition to BENCH_SUBSCRIBERS, against bare nodemailer (bench/newsletter.ts).
  const newsletterVerdicts = await benchNewsletter({
    subscribers: subscriberCount,
    clientRoot,
    scratch,
    report,
  });
  for (const line of verdictTable(newsletterVerdicts)) report("", line);

  const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
  const readRatio = cachedRead.reqPerSec / ceiling.wrk;
  const scienceRatio = sciencePage.reqPerSec / ceiling.wrk;
  report(
    "Targets",
    `${pagesVerdict}; cached read ≥ ${targets.cachedRead}× hello world: ${verdict(readRatio >= targets.cachedRead)} (${readRatio.toFixed(2)}×); ` +
      `cached read p99 ≤ ${targets.readP99} ms: ${verdict(cachedRead.p99 <= targets.readP99)}; ` +
      `/science ≥ ${targets.sciencePage}× hello world: ${verdict(scienceRatio >= targets.sciencePage)} (${scienceRatio.toFixed(2)}×); ` +
      `delivery p99 ≤ ${targets.deliveryP99} ms: ${verdict(deliveryP99 <= targets.deliveryP99)} (this machine's floor for one event to ${streamCount.toLocaleString("en")} sockets: ${floorMs.toFixed(0)} ms); ` +
      `reads ≤ 1% of deliveries: ${verdict(reads <= delivered * targets.readsPerDelivered)}`,
  );
  record();
} catch (error) {
  // BENCH_ONLY=reads ends here, with the servers stopped below.
  if (!(error instanceof ReadsDone)) throw error;
  record();
} finally {
  hello?.kill("SIGTERM");
  server?.kill("SIGTERM");
  await new Promise((resolve) =>
    server?.exitCode === null ? server.once("exit", resolve) : resolve(null),
  );
  smtp.close();
  rmSync(scratch, { recursive: true, force: true });
}
