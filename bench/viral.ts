import { fork } from "node:child_process";
import type { Visitor } from "../tests/support/visitor.ts";
import { fanOutFloor } from "./fan-out-floor.ts";
import { cpuMs, rssMb } from "./process-stats.ts";
import { clock } from "./timing.ts";
import { atLeast, atMost, type Verdict } from "./verdict.ts";
import type { ClientsConfig, ClientsMessage, ReportRequest } from "./viral-clients.ts";

/*
 * The viral case of `npm run bench`: every reader of one post live while
 * comments keep coming. `streamCount` event streams (bench/viral-clients.ts,
 * in a process of their own) on one post, which a writer comments on
 * `writesPerSecond` times a second for `seconds`. A comment's delivery time
 * runs from just before its POST leaves to when a stream has parsed it, so it
 * holds the write itself (a durable commit) as well as the fan-out. Measured
 * against this machine's floor in the same run (bench/fan-out-floor.ts): the
 * same number of sockets, an event of the same size, the same layout of
 * processes, and the same statistic, so the ratio is what the server and an
 * honest client add (docs/architecture.md, "Live updates").
 */

const writesPerSecond = 2;

/** Targets (docs/benchmarks.md): the floor's multiple, and the reads the streams may make. */
const targets = { deliveryP99PerFloor: 1.5, readsPercentOfDeliveries: 1 };

export type ViralOptions = {
  baseUrl: string;
  /** The server's process, whose CPU time and memory are reported. */
  serverPid: number;
  /** A visitor with a cookie, who writes the comments. */
  writer: Visitor;
  streamCount: number;
  seconds: number;
  /** Prints one row of the run (bench/run.ts). */
  report: (name: string, values: string) => void;
};

function clients(config: ClientsConfig) {
  const child = fork(new URL("./viral-clients.ts", import.meta.url), [JSON.stringify(config)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = () =>
    new Promise<ClientsMessage>((resolve, reject) => {
      const exited = (code: number | null) =>
        reject(new Error(`the streams' process exited (${code})`));
      child.once("exit", exited);
      child.once("message", (message) => {
        child.off("exit", exited);
        resolve(message as ClientsMessage);
      });
    });
  return { child, next };
}

export async function viralCase({
  baseUrl,
  serverPid,
  writer,
  streamCount,
  seconds,
  report,
}: ViralOptions): Promise<Verdict[]> {
  const writes = seconds * writesPerSecond;
  const streams = clients({
    baseUrl,
    topic: "science:tea-cooling",
    readPath: "/api/items/science/tea-cooling/comments",
    count: streamCount,
    writes,
  });
  try {
    const opened = await streams.next();
    if (opened.type === "failed") throw new Error(opened.message);

    // One write before the measured ones, on their schedule and not counted
    // (the streams count only the comments named "Viral <n>"), as the reads
    // have their warm-up: the first fan-out after the streams connect runs
    // code compiled on first use, and one event of 60 is more of the
    // deliveries than the 1 % above the 99th percentile.
    const warmUp = await writer.comment("tea-cooling", "Warming up the streams", "Writer");
    if (warmUp.statusCode >= 300) throw new Error(`${warmUp.statusCode} ${warmUp.body}`);
    const started = clock() + 1000 / writesPerSecond;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started - clock())));
    const cpuBefore = cpuMs(serverPid);
    const sentAt: number[] = [];
    for (let i = 0; i < writes; i += 1) {
      const due = started + (i * 1000) / writesPerSecond;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - clock())));
      sentAt.push(clock());
      const response = await writer.comment("tea-cooling", `Viral ${i}`, "Writer");
      if (response.statusCode >= 300) throw new Error(`${response.statusCode} ${response.body}`);
    }
    // Let the last event reach every stream.
    streams.child.send({ type: "report", sentAt, timeoutMs: 10_000 } satisfies ReportRequest);
    const result = await streams.next();
    if (result.type !== "report") throw new Error("the streams did not report");
    const cpu = cpuMs(serverPid) - cpuBefore;
    const rss = rssMb(serverPid);
    streams.child.kill();

    if (result.delivered === 0) throw new Error("no comment reached any stream");
    const floor = await fanOutFloor(streamCount, result.frameBytes, writes);
    const expected = writes * streamCount;
    const count = streamCount.toLocaleString("en");
    report(
      `live: ${count} streams on one post, ${writesPerSecond} writes/s for ${seconds} s`,
      `delivered ${result.delivered.toLocaleString("en")} of ${expected.toLocaleString("en")}   p50 ${result.p50.toFixed(1)} ms   p99 ${result.p99.toFixed(1)} ms${result.ended ? `   ${result.ended} streams ENDED` : ""}`,
    );
    report(
      `  the floor: ${result.frameBytes} bytes to each of ${count} loopback sockets`,
      `p99 ${floor.p99.toFixed(1)} ms (writing them all: ${floor.writeLoop.toFixed(1)} ms; no HTTP, nothing parsed)`,
    );
    const readsPercent = (result.reads / Math.max(1, result.delivered)) * 100;
    report(
      "  reads answered meanwhile / server CPU / server RSS",
      `${result.reads} reads (${readsPercent.toFixed(3)}% of deliveries)   ${Math.round(cpu)} ms CPU   ${rss} MB`,
    );
    // CPU time hardly depends on what else the machine runs, so on a busy one
    // these say where a slow delivery came from better than the times above.
    report(
      "  CPU per event: server / streams (floor: writer / readers)",
      `${(cpu / writes).toFixed(1)} ms / ${(result.cpu / writes).toFixed(1)} ms   (${floor.writerCpu.toFixed(1)} ms / ${floor.readerCpu.toFixed(1)} ms)`,
    );
    return [
      atMost(
        "viral: delivery p99 × floor",
        result.p99 / floor.p99,
        targets.deliveryP99PerFloor,
        "×",
      ),
      atLeast(
        `viral: events delivered, of ${expected.toLocaleString("en")}`,
        result.delivered,
        expected,
        "",
      ),
      atMost("viral: reads, % of deliveries", readsPercent, targets.readsPercentOfDeliveries, "%"),
    ];
  } finally {
    streams.child.kill();
  }
}
