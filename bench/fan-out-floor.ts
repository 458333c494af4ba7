import { fork } from "node:child_process";
import net from "node:net";
import { performance } from "node:perf_hooks";

/*
 * This machine's floor for the viral case: how long one process takes to hand
 * one event (a comment's frame, about 300 bytes) to each of `count` loopback
 * sockets, with no HTTP, no framing and nothing parsed on either side. The
 * server's fan-out cannot be faster than this; bench/run.ts prints it beside
 * the delivery times. Run as a child process (the writer), so the readers in
 * the bench's own process do not share its event loop, as in the real case.
 */

const frameBytes = 300;
const rounds = 5;

type Report = { ms: number[] };

/** The median time, in ms, to write one frame to each of `count` sockets. */
export async function fanOutFloor(count: number): Promise<number> {
  const writer = fork(import.meta.filename, ["writer", String(count)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      writer.once("message", (message) => resolve(Number(message)));
      writer.once("exit", (code) => reject(new Error(`the fan-out writer exited (${code})`)));
    });
    const readers: net.Socket[] = [];
    for (let i = 0; i < count; i += 1) {
      const socket = net.connect(port, "127.0.0.1");
      socket.on("data", () => {});
      socket.on("error", () => {});
      readers.push(socket);
      // Connecting in batches keeps the listen backlog from overflowing.
      if (i % 500 === 499) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const report = await new Promise<Report>((resolve, reject) => {
      writer.once("message", (message) => resolve(message as Report));
      writer.once("exit", (code) => reject(new Error(`the fan-out writer exited (${code})`)));
    });
    for (const socket of readers) socket.destroy();
    const sorted = [...report.ms].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  } finally {
    writer.kill();
  }
}

if (process.argv[2] === "writer") {
  const count = Number(process.argv[3]);
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    sockets.push(socket);
  });
  server.listen({ port: 0, host: "127.0.0.1", backlog: 1024 }, async () => {
    process.send?.((server.address() as net.AddressInfo).port);
    while (sockets.length < count) await new Promise((resolve) => setTimeout(resolve, 20));
    const frame = Buffer.alloc(frameBytes, "x");
    const ms: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = performance.now();
      for (const socket of sockets) socket.write(frame);
      ms.push(performance.now() - started);
    }
    process.send?.({ ms } satisfies Report, () => process.exit(0));
  });
}
