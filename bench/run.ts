import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import autocannon, { type Request, type Result } from "autocannon";
import { plural } from "../contract/plural.ts";
import { answerable } from "../scripts/assistant-questions.ts";
import { clientDir, projectRoot } from "../scripts/build-inputs.ts";
import { startCountingSink } from "../tests/server/support/smtp.ts";
import { createDatabase, freePort, startPostgres } from "../tests/support/postgres.ts";
import { httpVisitor, type Visitor } from "../tests/support/visitor.ts";
import { benchNewsletter } from "./newsletter.ts";
import { cpuMs, machineBusyMs, rssMb, settledRssMb } from "./process-stats.ts";
import { benchReaderScreen } from "./readers.ts";
import { recordRun } from "./record.ts";
import {
  newVisitor as newBenchVisitor,
  seed,
  startServerUnderTest,
  succeeded,
} from "./server-under-test.ts";
import { percentile } from "./timing.ts";
import { atLeast, atMost, type Verdict, verdictTable } from "./verdict.ts";
import { apiHeaders, pageHeaders, viewHeaders, viewPath, viewsUnlimited } from "./views.ts";
import { viralCase } from "./viral.ts";
import { visitorRead } from "./visitor-read.ts";
import { wrk } from "./wrk.ts";

/*
 * `npm run bench`: the site as `npm start` runs it (the bundle, at the
 * default LOG_LEVEL, with its access log written to a file) on SQLite, on
 * loopback, measured from outside the server's process: first the time from
 * spawning it to its first accepted connection, and its memory once seeded.
 * Then the reads, with a Fastify hello world measured first in
 * the same run as the machine's ceiling; throughputs are printed as ratios to
 * it. Reads (hello world, every page, item reads, a returning reader's read
 * with their cookie: bench/visitor-read.ts) are driven by wrk, a load
 * generator in C: autocannon parses every answer in JavaScript and, on two
 * cores, ran out of CPU before the server did on any answer larger than hello
 * world's (docs/decisions/009-reads-from-memory.md). Writes need a cookie per
 * request, which autocannon hands out; they are printed against autocannon's
 * own hello world.
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
 * run on a shared machine; BENCH_ONLY=readers runs hello world, the start and
 * the readers' part alone. With BENCH_PROCESSES=N besides, that part runs on a
 * throwaway PostgreSQL, by one server process and then by N on one port
 * (SHARE_PORT, docs/decisions/083-several-processes-on-one-port.md), each
 * against hello world by one process and by N, all in the same run, without
 * the Readers screen. Every target is a row held to its bound
 * (bench/verdict.ts), and the run ends with one table of them all. With
 * --record, the run's lines and that table are appended to docs/benchmarks.md
 * (bench/record.ts). Other arguments run something else than `npm start`'s
 * command with the same settings, for a comparison, as `npm run bench:start`
 * takes them (`npm run bench -- server/main.ts`, the TypeScript sources;
 * `npm run bench -- build/server/main.js`, the bundle without npm start's flags).
 * wrk comes from Debian (`apt-get install wrk`); the bench installs it when it
 * runs as root and it is missing.
 */

const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const streamCount = Number(process.env.BENCH_STREAMS ?? 10_000);
const viralSeconds = Number(process.env.BENCH_VIRAL_SECONDS ?? 30);
const readsOnly = process.env.BENCH_ONLY === "reads";
const readersOnly = process.env.BENCH_ONLY === "readers";
const processes = Number(process.env.BENCH_PROCESSES ?? 0);
if (processes && !readersOnly) throw new Error("BENCH_PROCESSES goes with BENCH_ONLY=readers");
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
  "/services/dfmea",
  "/science",
  "/science/soap",
];

/**
 * Ratios to hello world, p99 in ms, start and idle, and the viral case (the
 * docs/benchmarks.md and docs/architecture.md, "Reads").
 */
const targets = {
  read: 0.4,
  readP99: 10,
  startMs: 500,
  idleRssMb: 120,
  /** The assistant's quoted answer, one question at a time. */
  assistantP99: 20,
};

/** Every target of the run, printed together at its end. */
const verdicts: Verdict[] = [];

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
const smtp = await startCountingSink();
const smtpUrl = smtp.url;

let server: ChildProcess | undefined;
let hello: ChildProcess | undefined;
/** The processes sharing a port (BENCH_PROCESSES), stopped with the run. */
const sharing: ChildProcess[] = [];
/** The server's log, as an operator's log collector would keep it. */
const serverLog = path.join(scratch, "server.log");

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

const given = process.argv.slice(2).filter((arg) => arg !== "--record");
const serverArgs = given.length
  ? given.map((arg) => (arg.startsWith("-") ? arg : path.resolve(projectRoot, arg)))
  : undefined;

// Writes must carry SITE_URL's origin, so the server's port is chosen first.
const serverPort = await freePort();

/**
 * The server as `npm start` runs it once the site is built
 * (bench/server-under-test.ts), timed from the spawn to the first connection
 * it accepts.
 */
async function startServer({
  port = serverPort,
  logFile = serverLog,
  env = {},
}: {
  port?: number;
  logFile?: string;
  env?: Record<string, string>;
} = {}) {
  const started = await startServerUnderTest({
    port,
    clientRoot,
    dataDir: path.join(scratch, "data"),
    smtpUrl,
    logFile,
    env: {
      EVENT_STREAMS_MAX: String(streamCount + 100),
      // Every simulated reader comes from 127.0.0.1.
      EVENT_STREAMS_PER_IP: String(streamCount + 100),
      ASSISTANT_QUESTIONS_PER_MINUTE: "10000",
      ASSISTANT_QUESTIONS_PER_MINUTE_PER_IP: "100000",
      ASSISTANT_QUESTIONS_PER_DAY_PER_IP: "10000000",
      ...viewsUnlimited,
      ...env,
    },
    ...(serverArgs ? { args: serverArgs } : {}),
  });
  server ??= started.child;
  return started;
}

/** Resolves once `file` has `count` lines that match `pattern`. */
async function linesIn(file: string, pattern: RegExp, count: number) {
  while ((readFileSync(file, "utf8").match(pattern) ?? []).length < count) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * `count` hello worlds on one port (SO_REUSEPORT), or one on a port of its own;
 * resolves with the address.
 */
async function startHellos(count: number): Promise<string> {
  const env = { ...process.env, HELLO_PORT: String(count > 1 ? await freePort() : 0) };
  const hellos = Array.from({ length: count }, () =>
    spawn(process.execPath, [path.join(import.meta.dirname, "hello.ts")], {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
  sharing.push(...hellos);
  return (await Promise.all(hellos.map(listening)))[0] as string;
}

/**
 * `count` server processes on one port and one PostgreSQL database of their
 * own (SHARE_PORT, one COOKIE_SECRET); resolves with their address once all
 * of them listen.
 */
async function startSharing(count: number, postgresUrl: string): Promise<string> {
  const env = {
    DATABASE_URL: await createDatabase(postgresUrl, "ewe_bench"),
    SHARE_PORT: "on",
    COOKIE_SECRET: randomBytes(32).toString("hex"),
  };
  const port = await freePort();
  const logFile = path.join(scratch, `sharing-${count}.log`);
  for (let i = 1; i <= count; i += 1) {
    sharing.push((await startServer({ port, logFile, env })).child);
    // The port accepted the first one's connections already: the log says when the next listens.
    await linesIn(logFile, /Server listening/g, i);
  }
  return `http://127.0.0.1:${port}`;
}

const sharingPids = () => sharing.map((child) => child.pid ?? 0);

/** Stops the processes sharing a port. */
async function stopSharing() {
  await Promise.all(
    sharing.splice(0).map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve(null);
          child.once("exit", resolve);
          child.kill("SIGTERM");
        }),
    ),
  );
}

let baseUrl = "";

/** A browser on the site, as the tests have it; a new one has no cookie yet. */
const stranger = () => httpVisitor(baseUrl, { origin: baseUrl });

/** A visitor with a cookie, made by its first write. */
const newVisitor = (index: number) => newBenchVisitor(baseUrl, index);

const cookieOf = (visitor: Visitor | undefined) => visitor?.cookie ?? "";

const rows: string[] = [];

/** The table of every target, printed last; with --record, the run goes into docs/benchmarks.md. */
function finish() {
  const table = verdictTable(verdicts);
  console.info(`\n${table.join("\n")}`);
  rows.push("", ...table);
  if (!process.argv.includes("--record")) return;
  recordRun(rows, {
    BENCH_DURATION: duration,
    BENCH_CONNECTIONS: connections,
    ...(readsOnly || readersOnly
      ? { BENCH_ONLY: readsOnly ? "reads" : "readers" }
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

/**
 * GETs of `path` by wrk, one thread and BENCH_CONNECTIONS connections, after a
 * 3 s warm-up that is not counted (the server's JIT, the caches' compressed copies).
 */
async function wrkLoad(
  name: string,
  pathname: string,
  { url = baseUrl, headers = {} }: { url?: string; headers?: Record<string, string> } = {},
): Promise<Throughput> {
  const target = new URL(pathname, url).toString();
  await wrk(target, { connections, seconds: 3, headers });
  const { reqPerSec, p50, p99, failed, stdout } = await wrk(target, {
    connections,
    seconds: duration,
    headers,
  });
  report(
    name,
    `${Math.round(reqPerSec).toLocaleString("en")} req/s${ratio(reqPerSec, ceiling.wrk)}   p50 ${p50.toFixed(1)} ms   p99 ${p99.toFixed(1)} ms${failed ? `   FAILURES ${stdout}` : ""}`,
  );
  if (failed) process.exitCode = 1;
  return { reqPerSec, p50, p99 };
}

/** A read's two targets: its throughput against wrk's hello world, and its p99. */
function judgeRead(label: string, throughput: Throughput) {
  verdicts.push(
    atLeast(`${label}, × hello world (wrk)`, throughput.reqPerSec / ceiling.wrk, targets.read, "×"),
    atMost(`${label}, p99`, throughput.p99, targets.readP99, " ms"),
  );
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

/** The views a second the readers' counting promises to take in while a page is read. */
const viewsPromised = 10_000;

/**
 * Readers (docs/decisions/072-views-offered-at-a-paced-rate.md): page views
 * offered to the beacon's route at a fixed rate (wrk, paced, a browser's
 * headers) while another wrk reads a page as fast as the server answers it:
 * the views taken in a second, and the page's rate as a share of the same hello
 * world. The same two at full speed, where the server splits itself between
 * them, are printed as they were, not held to a bound. Then the Readers
 * screen over 1,000,000 views.
 */
async function readersPart(
  url = baseUrl,
  /** With BENCH_PROCESSES: how many processes answer, and hello world's rate by as many. */
  sharing?: { count: number; hello: number },
) {
  const pageUrl = new URL("/science/soap", url).toString();
  const viewUrl = new URL(viewPath, url).toString();
  const views = { method: "POST" as const, headers: viewHeaders(url) };
  // Both as a browser asks, every header of its own (bench/views.ts).
  const page = { headers: pageHeaders(new URL(url).origin) };
  const by = sharing ? ` (${plural(sharing.count, "process", "processes")}, PostgreSQL)` : "";
  // A warm-up that is not counted, as for every other wrk figure, long
  // enough for the server's first write of views (every 5 s), which makes
  // the table of time zones' countries once per process (0.3-1.3 s of CPU).
  await Promise.all([
    wrk(pageUrl, { connections, seconds: 6, ...page }),
    wrk(viewUrl, { connections, seconds: 6, ...views }),
  ]);
  // Paced, the views come over four times the connections: each then waits
  // its turn rather than its answer, and a slow answer does not hold the rate down.
  const both = async (rate?: number) => {
    const pageRead = wrk(pageUrl, { connections, seconds: duration, ...page });
    const viewed = await wrk(viewUrl, {
      connections: rate ? connections * 4 : connections,
      seconds: duration,
      ...views,
      rate,
    });
    return { viewed, pageRead: await pageRead };
  };
  const line = (run: Awaited<ReturnType<typeof wrk>>) =>
    `${Math.round(run.reqPerSec).toLocaleString("en")} req/s${ratio(run.reqPerSec, ceiling.wrk)}${sharing ? `,${ratio(run.reqPerSec, sharing.hello)} by as many` : ""}   p50 ${run.p50.toFixed(1)} ms   p99 ${run.p99.toFixed(1)} ms${run.failed ? `   FAILURES ${run.stdout}` : ""}`;
  const full = await both();
  report(`readers${by}, both at full speed: page views (information)`, line(full.viewed));
  report("  page /science/soap meanwhile (wrk, a browser's headers)", line(full.pageRead));
  // A paced client can only take in what it offers, less what is in flight
  // as it stops: it offers 1 % over the promise.
  const offered = viewsPromised * 1.01;
  const cpu = () => sharingPids().reduce((sum, pid) => sum + cpuMs(pid), 0);
  const [cpuBefore, busyBefore, before] = [cpu(), machineBusyMs(), performance.now()];
  const paced = await both(offered);
  const elapsed = performance.now() - before;
  const cores = (cpu() - cpuBefore) / elapsed;
  const busy = (machineBusyMs() - busyBefore) / elapsed;
  report(
    `readers${by}: page views offered at ${offered.toLocaleString("en")}/s, taken in (wrk, paced)`,
    line(paced.viewed),
  );
  report("  page /science/soap meanwhile (wrk, a browser's headers)", line(paced.pageRead));
  if (sharing) {
    report(
      "  the server processes' CPU meanwhile",
      `${cores.toFixed(2)} cores (the machine's, every process: ${busy.toFixed(2)} of ${os.cpus().length})`,
    );
  }
  if (full.viewed.failed || full.pageRead.failed || paced.viewed.failed || paced.pageRead.failed)
    process.exitCode = 1;
  verdicts.push(
    atLeast(
      `page views taken in, per second (paced, none failed)${by}`,
      paced.viewed.failed ? 0 : Math.round(paced.viewed.reqPerSec),
      viewsPromised,
      "/s",
    ),
    atLeast(
      `page read while views are taken in, × hello world (wrk)${by}`,
      paced.pageRead.reqPerSec / ceiling.wrk,
      targets.read,
      "×",
    ),
  );
  if (sharing) {
    verdicts.push(
      atLeast(
        `the same, × hello world by as many processes${by}`,
        paced.pageRead.reqPerSec / sharing.hello,
        targets.read,
        "×",
      ),
    );
  } else verdicts.push(...(await benchReaderScreen({ report })));
}

// Stopped from outside (Ctrl-C, a timeout): the servers it started stop with it.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    for (const child of [hello, server, ...sharing]) child?.kill("SIGTERM");
    process.exit(signal === "SIGINT" ? 130 : 143);
  });
}

try {
  console.info(
    `Engagement API benchmark: ${processes ? `PostgreSQL, by 1 and ${processes} processes` : "SQLite"}, ${connections} connections, ${duration} s per run, ${os.cpus().length} CPUs, Node ${process.version}\n`,
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

  if (processes) {
    const helloByAll = await wrkLoad(
      `Fastify hello world by ${processes} processes on one port, wrk`,
      "/",
      { url: await startHellos(processes) },
    );
    await stopSharing();
    const postgres = await startPostgres();
    try {
      for (const count of new Set([1, processes])) {
        const helloRate = count === 1 ? ceiling.wrk : helloByAll.reqPerSec;
        await readersPart(await startSharing(count, postgres.url), { count, hello: helloRate });
        await stopSharing();
      }
    } finally {
      await postgres.stop();
    }
    throw new ReadsDone();
  }

  const { url, startMs, startCpuMs } = await startServer();
  baseUrl = url;
  // Its CPU time by then, which a shared machine's load disturbs less than the wall time.
  report(
    `server start to listening (${serverArgs ? given.join(" ") : "as npm start runs it"})`,
    `${Math.round(startMs)} ms   CPU ${Math.round(startCpuMs)} ms`,
  );
  verdicts.push(atMost("start to listening", Math.round(startMs), targets.startMs, " ms"));
  if (readersOnly) {
    await readersPart();
    throw new ReadsDone();
  }

  // Seed: 100 comments and 40 reactions on the post the reads fetch.
  const commenters = await seed(baseUrl);
  const seededRss = rssMb(server?.pid ?? 0);
  const idleRss = await settledRssMb(server?.pid ?? 0);
  report(
    "idle memory after seeding (RSS), once quiet",
    `${idleRss} MB   (${seededRss} MB as the seeding ended)`,
  );
  verdicts.push(atMost("idle RSS after seeding", idleRss, targets.idleRssMb, " MB"));

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

  // The assistant (docs/product.md, "Chat with Me"): questions a reader would
  // ask, one at a time, each found, quoted and recorded; the first loads the index.
  await succeeded(stranger().post("/api/assistant", { question: "What is a DPF?" }));
  const asked: number[] = [];
  for (let i = 0; i < 300; i += 1) {
    const { question, previous } = answerable[i % answerable.length] as (typeof answerable)[number];
    const t0 = performance.now();
    await succeeded(
      stranger().post("/api/assistant", { question, ...(previous ? { previous } : {}) }),
    );
    asked.push(performance.now() - t0);
  }
  asked.sort((a, b) => a - b);
  report(
    "assistant: POST /api/assistant, a quoted answer",
    `p50 ${percentile(asked, 50).toFixed(1)} ms   p99 ${percentile(asked, 99).toFixed(1)} ms (one at a time)`,
  );
  verdicts.push(
    atMost("assistant, a quoted answer, p99", percentile(asked, 99), targets.assistantP99, " ms"),
  );
  await load("  the same under load, autocannon", [
    {
      method: "POST",
      path: "/api/assistant",
      body: JSON.stringify({ question: "Why does a pressure cooker whistle?" }),
    },
  ]);

  // The API read as the item page's script asks for it (bench/views.ts; since
  // 2026-12-07 (session 59), before which Accept-Encoding alone).
  const asBrowser = apiHeaders(new URL(baseUrl).origin);
  judgeRead(
    "cached comments read",
    await wrkLoad(
      "item read, cached: GET the first 50 of 100 comments (as a browser: br)",
      "/api/items/science/ironing/comments",
      { headers: asBrowser },
    ),
  );
  await wrkLoad(
    "  the same, by a client that takes no compression",
    "/api/items/science/ironing/comments",
  );
  // Every page as a browser asks for it, every header of its own (bench/views.ts;
  // since 2026-12-07, before which Accept-Encoding alone): the static ones from
  // the table in memory, /science and the item page filled in with their engagement.
  const asBrowserPage = pageHeaders(new URL(baseUrl).origin);
  for (const pagePath of pages) {
    judgeRead(
      pagePath,
      await wrkLoad(`page ${pagePath} (a browser's headers)`, pagePath, { headers: asBrowserPage }),
    );
  }
  await wrkLoad("  GET reactions, cached", "/api/items/science/ironing/reactions", {
    headers: asBrowser,
  });
  verdicts.push(
    ...(await visitorRead({
      baseUrl,
      postId: "ironing",
      cookie: cookieOf(commenters[0]),
      helloReqPerSec: ceiling.wrk,
      connections,
      seconds: duration,
      report,
    })),
  );
  report(
    "  the server's log meanwhile (default LOG_LEVEL, reads sampled)",
    `${(statSync(serverLog).size / 1024).toFixed(0)} KB`,
  );
  if (readsOnly) throw new ReadsDone();

  await readersPart();

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
  verdicts.push(
    ...(await viralCase({
      baseUrl,
      serverPid: server?.pid ?? 0,
      writer: writers[0] ?? (await newVisitor(0)),
      streamCount,
      seconds: viralSeconds,
      report,
    })),
  );

  // Newsletter: one edition to BENCH_SUBSCRIBERS, against bare nodemailer (bench/newsletter.ts).
  const newsletterVerdicts = await benchNewsletter({
    subscribers: subscriberCount,
    clientRoot,
    scratch,
    report,
    ...(serverArgs ? { args: serverArgs } : {}),
  });
  verdicts.push(...newsletterVerdicts);
  finish();
} catch (error) {
  // BENCH_ONLY=reads (and =readers) ends here, with the servers stopped below.
  if (!(error instanceof ReadsDone)) throw error;
  finish();
} finally {
  hello?.kill("SIGTERM");
  server?.kill("SIGTERM");
  await stopSharing();
  await new Promise((resolve) =>
    server?.exitCode === null ? server.once("exit", resolve) : resolve(null),
  );
  await smtp.close();
  rmSync(scratch, { recursive: true, force: true });
}
