import { describe, expect, it } from "vitest";
import { atLeast, atMost, verdictTable } from "../bench/verdict.ts";
import { parseWrk, wrkMs } from "../bench/wrk.ts";

/* The pieces `npm run bench` judges its runs with (bench/wrk.ts, bench/verdict.ts). */
describe("reading wrk's output", () => {
  const output = `Running 3s test @ http://127.0.0.1:4000/about
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.90ms  412.33us  12.01ms   88.10%
    Req/Sec    26.51k     1.02k   28.10k    70.00%
  Latency Distribution
     50%    1.82ms
     75%    2.01ms
     90%    2.33ms
     99%  870.00us
  79121 requests in 3.00s, 1.31GB read
Requests/sec:  26373.45
Transfer/sec:    446.10MB
`;

  it("gives requests a second and the 50th and 99th percentiles in ms", () => {
    expect(parseWrk(output)).toEqual({ reqPerSec: 26373.45, p50: 1.82, p99: 0.87, failed: false });
  });

  it("counts non-2xx answers and socket errors as failures", () => {
    expect(parseWrk(`${output}  Non-2xx or 3xx responses: 12\n`).failed).toBe(true);
    expect(
      parseWrk(`${output}  Socket errors: connect 0, read 3, write 0, timeout 0\n`).failed,
    ).toBe(true);
    expect(parseWrk("unable to connect to 127.0.0.1:4000 Connection refused").failed).toBe(true);
  });

  it("reads every unit wrk prints", () => {
    expect([wrkMs("870.00us"), wrkMs("1.58ms"), wrkMs("1.02s"), wrkMs("2.00m")]).toEqual([
      0.87, 1.58, 1020, 120_000,
    ]);
    expect(wrkMs("fast")).toBeNaN();
  });
});

describe("the verdict table", () => {
  it("holds each figure to its bound and counts what was missed", () => {
    const table = verdictTable([
      atLeast("/about, × hello world (wrk)", 0.47, 0.4, "×"),
      atMost("/about p99", 12.5, 10, " ms"),
      atMost("start to listening", 480, 500, " ms"),
    ]);
    expect(table).toEqual([
      "/about, × hello world (wrk)     0.47×  ≥ 0.40×   met",
      "/about p99                   12.50 ms  ≤ 10 ms   MISSED",
      "start to listening             480 ms  ≤ 500 ms  met",
      "1 of 3 targets MISSED.",
    ]);
  });

  it("says so when every target is met", () => {
    expect(verdictTable([atMost("idle RSS after seeding", 118, 120, " MB")]).at(-1)).toBe(
      "All targets met.",
    );
  });
});
