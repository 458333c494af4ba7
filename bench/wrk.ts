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
 * wrk's Lua script for `method` and, given `rate`, a pace: each request
 * takes the next slot of one schedule, `rate` a second from the first, and
 * waits for it (`delay()`, whole ms, rounded), or goes at once when the
 * requests are behind it. So the rate offered is held whatever the answers'
 * latency (as long as the connections are not all waiting on answers), and
 * a server that falls behind is seen as fewer requests a second, not hidden
 * by a client that slows down with it.
 */
export function wrkScript(method: "GET" | "POST", rate?: number): string {
  const lines = [`wrk.method = "${method}"`];
  if (rate) {
    lines.push(
      'local ffi = require("ffi")',
      "ffi.cdef[[",
      "typedef struct { long tv_sec; long tv_nsec; } pace_timespec;",
      "int clock_gettime(int clock, pace_timespec *now);",
      "]]",
      'local clock = ffi.new("pace_timespec")',
      "local function now_ms()",
      "  ffi.C.clock_gettime(1, clock)",
      "  return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6",
      "end",
      `local interval = ${1000 / rate}`,
      "local due = nil",
      "function delay()",
      "  local now = now_ms()",
      "  due = due or now",
      "  local wait = due - now",
      "  due = due + interval",
      "  if wait < 0.5 then return 0 end",
      "  return math.floor(wait + 0.5)",
      "end",
    );
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Requests to `url` by wrk (GETs, or `method` with no body): one thread,
 * `connections` connections, for `seconds`, with `headers`, as fast as the
 * server answers or, with `rate`, offered at that many a second
 * (`wrkScript`); its output as numbers, and as printed (for a failure's report).
 */
export async function wrk(
  url: string,
  {
    connections,
    seconds,
    headers = {},
    method = "GET",
    rate,
  }: {
    connections: number;
    seconds: number;
    headers?: Record<string, string>;
    method?: "GET" | "POST";
    rate?: number;
  },
): Promise<WrkRun & { stdout: string }> {
  // wrk sets a method other than GET, and paces its requests, only from a Lua script.
  const scripts = method === "GET" && !rate ? null : mkdtempSync(path.join(os.tmpdir(), "wrk-"));
  const script = scripts && path.join(scripts, "request.lua");
  if (script) writeFileSync(script, wrkScript(method, rate));
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
