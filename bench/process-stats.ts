import { readFileSync } from "node:fs";

/** User plus system CPU time of a process, in ms (Linux's /proc, 100 ticks a second). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** A process's resident memory, in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/**
 * A process's resident memory once it has settled: sampled every 250 ms
 * until it has stayed within 1 MB for 5 s (a quiet server gives back what
 * its last busy spell grew 2 to 4 s after it, server/lib/idle-compaction.ts),
 * or after 30 s at most.
 */
export async function settledRssMb(pid: number): Promise<number> {
  const samples: number[] = [];
  const deadline = Date.now() + 30_000;
  for (;;) {
    samples.push(rssMb(pid));
    const recent = samples.slice(-20);
    const steady = recent.length === 20 && Math.max(...recent) - Math.min(...recent) <= 1;
    if (steady || Date.now() > deadline) return recent.at(-1) ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The whole machine's busy CPU time so far (every core, every process), in ms. */
export function machineBusyMs(): number {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/) ?? [];
  // user nice system idle iowait irq softirq steal: all but idle and iowait.
  const busy = ticks
    .slice(0, 8)
    .reduce((sum, tick, i) => (i === 3 || i === 4 ? sum : sum + Number(tick)), 0);
  return (busy * 1000) / 100;
}
