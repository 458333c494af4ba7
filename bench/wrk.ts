import { execFile } from "node:child_process";
import { promisify } from "node:util";

/*
 * What `wrk --latency` prints, as numbers: requests a second, the median and
 * 99th percentile latencies in ms, and whether any request failed (a non-2xx
 * or 3xx answer, or a socket error).
 */

export type WrkRun = { reqPerSec: number; p50: number; p99: number; failed: boolean };

/** wrk's "1.58ms", "870.00us", "1.02s", "2.00m" in milliseconds. */
export function wrkMs(text: string | undefined): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text ?? "");
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  const scale = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[match[2] as "us" | "ms" | "s" | "m"];
  return value * scale;
}

export function parseWrk(stdout: string): WrkRun {
  const reqPerSec = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN);
  const failed =
    /Non-2xx or 3xx responses:\s+[1-9]/.test(stdout) ||
    /Socket errors:/.test(stdout) ||
    !Number.isFinite(reqPerSec);
  return {
    reqPerSec,
    p50: wrkMs(/^\s+50%\s+(\S+)/m.exec(stdout)?.[1]),
    p99: wrkMs(/^\s+99%\s+(\S+)/m.exec(stdout)?.[1]),
    failed,
  };
}

const run = promisify(execFile);

/**
 * GETs of `url` by wrk: one thread, `connections` connections, for `seconds`,
 * with `headers`; its output as numbers, and as printed (for a failure's report).
 */
export async function wrk(
  url: string,
  {
    connections,
    seconds,
    headers = {},
  }: { connections: number; seconds: number; headers?: Record<string, string> },
): Promise<WrkRun & { stdout: string }> {
  const { stdout } = await run("wrk", [
    "-t1",
    `-c${connections}`,
    `-d${seconds}s`,
    "--latency",
    ...Object.entries(headers).flatMap(([key, value]) => ["-H", `${key}: ${value}`]),
    url,
  ]);
  return { ...parseWrk(stdout), stdout };
}
