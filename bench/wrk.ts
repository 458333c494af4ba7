import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
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
 * Requests to `url` by wrk (GETs, or `method` with no body): one thread,
 * `connections` connections, for `seconds`, with `headers`; its output as
 * numbers, and as printed (for a failure's report).
 */
export async function wrk(
  url: string,
  {
    connections,
    seconds,
    headers = {},
    method = "GET",
  }: {
    connections: number;
    seconds: number;
    headers?: Record<string, string>;
    method?: "GET" | "POST";
  },
): Promise<WrkRun & { stdout: string }> {
  // wrk sets a method other than GET only from a Lua script.
  const scripts = method === "GET" ? null : mkdtempSync(path.join(os.tmpdir(), "wrk-"));
  const script = scripts && path.join(scripts, "method.lua");
  if (script) writeFileSync(script, `wrk.method = "${method}"\n`);
  try {
    const { stdout } = await run("wrk", [
      "-t1",
      `-c${connections}`,
      `-d${seconds}s`,
      "--latency",
      ...(script ? ["-s", script] : []),
      ...Object.entries(headers).flatMap(([key, value]) => ["-H", `${key}: ${value}`]),
      url,
    ]);
    return { ...parseWrk(stdout), stdout };
  } finally {
    if (scripts) rmSync(scripts, { recursive: true, force: true });
  }
}
