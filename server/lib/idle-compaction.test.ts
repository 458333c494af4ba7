import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { compactWhenIdle } from "./idle-compaction.ts";

describe("compacting the heap when the server goes quiet", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A loop that works as `shares` says, one share per interval, then rests. */
  function loop(shares: number[]) {
    let interval = 0;
    return () => shares[interval++] ?? 0;
  }

  it("compacts once in the first quiet interval after the start, and not again while quiet", () => {
    const gc = vi.fn();
    const stop = compactWhenIdle({ intervalMs: 1000, gc, utilization: loop([0.4, 0.3]) });
    vi.advanceTimersByTime(2000);
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(gc).toHaveBeenCalledTimes(1);
    expect(gc).toHaveBeenCalledWith({ type: "major", execution: "async" });
    vi.advanceTimersByTime(10_000);
    expect(gc).toHaveBeenCalledTimes(1);
    stop();
  });

  it("never interrupts a busy server, and compacts again after each busy spell", () => {
    const gc = vi.fn();
    // Quiet, busy for three intervals, a trickle below the threshold, busy, quiet.
    const stop = compactWhenIdle({
      intervalMs: 1000,
      gc,
      utilization: loop([0, 0.5, 0.9, 0.5, 0.01, 0.01, 0.2, 0]),
    });
    vi.advanceTimersByTime(1000);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(3000);
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(2000);
    expect(gc).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(2000);
    expect(gc).toHaveBeenCalledTimes(3);
    stop();
    vi.advanceTimersByTime(10_000);
    expect(gc).toHaveBeenCalledTimes(3);
  });

  it("does nothing where Node gives no gc (without --expose-gc)", () => {
    const stop = compactWhenIdle({ intervalMs: 1000, gc: undefined });
    expect(vi.getTimerCount()).toBe(0);
    stop();
  });
});
