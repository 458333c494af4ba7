import { type ChildProcess, fork } from "node:child_process";
import net from "node:net";
import { clock, percentile } from "./timing.ts";

/*
 * This machine's floor for the viral case: how long one event takes to reach
 * `count` readers when one process writes the same bytes (as many as the
 * server's event, chunk framing included) to `count` loopback sockets with
 * nothing else: no HTTP, no framing, nothing parsed on either side. Laid out
 * as the viral case is: the writer in one process (as the server), every
 * reader in another (as the bench's streams, bench/viral-clients.ts), the
 * bench's own process idle. Each reader notes when the whole event has
 * arrived; the floor is the 99th percentile of those times over every socket
 * and round, from the moment the writer began its round: the same figure as
 * the viral case's delivery p99, measured the same way in the same run, so
 * their ratio says how much the server and an honest client add to the bytes'
 * own trip. The writer's own loop (the time to hand one event to every
 * socket, the figure this floor used to be) is reported beside it.
 */

/** Rounds of one event each are spaced as the viral case's writes (2 a second). */
const roundGapMs = 500;

export type Floor = {
  /** Delivery times' 99th percentile over every socket and round, in ms. */
  p99: number;
  /** The writer's loop, one write per socket: median over the rounds, in ms. */
  writeLoop: number;
  /** CPU time per round, in ms: the writer's, and all the readers' together. */
  writerCpu: number;
  readerCpu: number;
};

type WriterMessage = { port: number } | { starts: number[]; loops: number[]; cpu: number };
type ReaderMessage = "connected" | { arrivals: number[][]; cpu: number };

/** This process's CPU time since `since`, in ms. */
const cpuSince = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};

function next<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) =>
      reject(new Error(`a fan-out floor process exited (${code})`));
    child.once("exit", exited);
    child.once("message", (message) => {
      child.off("exit", exited);
      resolve(message as T);
    });
  });
}

/**
 * The floor for one event of `frameBytes` bytes to `count` sockets, over
 * `rounds` events: as many as the viral case wrote, so that the two 99th
 * percentiles are taken over as many deliveries. Over 10 rounds, a single
 * slow one set the floor's tail: it measured 83 to 127 ms on the same
 * machine from run to run.
 */
export async function fanOutFloor(
  count: number,
  frameBytes: number,
  rounds: number,
): Promise<Floor> {
  const options = { stdio: ["ignore", "inherit", "inherit", "ipc"] as const };
  const writer = fork(
    import.meta.filename,
    ["writer", String(count), String(frameBytes), String(rounds)],
    {
      stdio: [...options.stdio],
    },
  );
  let reader: ChildProcess | undefined;
  try {
    const { port } = (await next<WriterMessage>(writer)) as { port: number };
    reader = fork(
      import.meta.filename,
      ["reader", String(count), String(frameBytes), String(rounds), String(port)],
      {
        stdio: [...options.stdio],
      },
    );
    await next<ReaderMessage>(reader);
    writer.send("go");
    const written = (await next<WriterMessage>(writer)) as {
      starts: number[];
      loops: number[];
      cpu: number;
    };
    const { starts, loops } = written;
    reader.send("report");
    const read = (await next<ReaderMessage>(reader)) as { arrivals: number[][]; cpu: number };
    const { arrivals } = read;
    const times = arrivals.flatMap((round, k) => round.map((t) => t - (starts[k] ?? t)));
    if (times.length !== count * rounds) {
      throw new Error(`the floor's readers got ${times.length} of ${count * rounds} events`);
    }
    return {
      p99: percentile(
        times.sort((a, b) => a - b),
        99,
      ),
      writeLoop: percentile(
        loops.sort((a, b) => a - b),
        50,
      ),
      writerCpu: written.cpu / rounds,
      readerCpu: read.cpu / rounds,
    };
  } finally {
    writer.kill();
    reader?.kill();
  }
}

const [role, countText = "0", bytesText = "0", roundsText = "0", portText = "0"] =
  process.argv.slice(2);
const socketCount = Number(countText);
const bytes = Number(bytesText);
const rounds = Number(roundsText);

if (role === "writer") {
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    socket.on("error", () => {});
    sockets.push(socket);
  });
  server.listen({ port: 0, host: "127.0.0.1", backlog: 1024 }, () => {
    process.send?.({ port: (server.address() as net.AddressInfo).port } satisfies WriterMessage);
  });
  process.once("message", async () => {
    while (sockets.length < socketCount) await new Promise((resolve) => setTimeout(resolve, 20));
    const frame = Buffer.alloc(bytes, "x");
    const starts: number[] = [];
    const loops: number[] = [];
    // Over the whole run, as the server's is: what the kernel does for a
    // write after it returns (acknowledgements) counts too.
    const cpuBefore = process.cpuUsage();
    for (let round = 0; round < rounds; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, roundGapMs));
      const started = clock();
      for (const socket of sockets) socket.write(frame);
      starts.push(started);
      loops.push(clock() - started);
    }
    await new Promise((resolve) => setTimeout(resolve, roundGapMs));
    const cpu = cpuSince(cpuBefore);
    process.send?.({ starts, loops, cpu } satisfies WriterMessage);
  });
}

if (role === "reader") {
  const arrivals: number[][] = Array.from({ length: rounds }, () => []);
  let connected = 0;
  let cpuBefore = process.cpuUsage();
  for (let i = 0; i < socketCount; i += 1) {
    // Bytes are counted, not parsed: a round's event has arrived when its last byte has.
    let received = 0;
    let round = 0;
    const socket = net.connect(Number(portText), "127.0.0.1", () => {
      connected += 1;
      if (connected === socketCount) {
        cpuBefore = process.cpuUsage();
        process.send?.("connected" satisfies ReaderMessage);
      }
    });
    socket.on("data", (chunk) => {
      const now = clock();
      received += chunk.length;
      while (round < rounds && received >= (round + 1) * bytes) {
        arrivals[round]?.push(now);
        round += 1;
      }
    });
    socket.on("error", () => {});
    // Connecting in batches keeps the listen backlog from overflowing.
    if (i % 500 === 499) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  process.once("message", () => {
    const cpu = cpuSince(cpuBefore);
    process.send?.({ arrivals, cpu } satisfies ReaderMessage, () => process.exit(0));
  });
}
