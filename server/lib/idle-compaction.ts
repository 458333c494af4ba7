import { performance } from "node:perf_hooks";

/**
 * Gives memory back once the server has gone quiet. V8 grows its heap for
 * the work of the start and of each busy spell, and a quiet process keeps
 * what it grew: V8 compacts only when more allocation asks it to, so an idle
 * server held about 13 MB of garbage and of heap it no longer used, for
 * good (docs/decisions/039-server-bundle.md). When an interval in which the
 * event loop worked is followed by one in which it was nearly idle, this
 * runs one full collection, which takes a few tens of milliseconds on this
 * server's heap. A server that stays busy is never interrupted, and a quiet
 * one compacts once, not again until it has worked.
 *
 * It needs `gc`, which `--expose-gc` gives (`npm start` passes it); without
 * the flag, as under the tests and `npm run dev`, it does nothing.
 */

type Gc = (options: { type: "major"; execution: "async" }) => unknown;

/** Below this share of an interval spent working, the loop counts as quiet. */
const quietUtilization = 0.02;

/** The share of the time since it was last called that the event loop spent working. */
function loopUtilization(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    return utilization;
  };
}

export function compactWhenIdle({
  intervalMs = 2000,
  gc = (globalThis as { gc?: Gc }).gc,
  utilization = loopUtilization(),
}: {
  intervalMs?: number;
  gc?: Gc | undefined;
  /** The loop's work since the last interval, 0 to 1. */
  utilization?: () => number;
} = {}): () => void {
  if (typeof gc !== "function") return () => {};
  // The start was work: the first quiet interval after it compacts.
  let workedSinceCompaction = true;
  const timer = setInterval(() => {
    if (utilization() >= quietUtilization) {
      workedSinceCompaction = true;
    } else if (workedSinceCompaction) {
      workedSinceCompaction = false;
      // A plain full collection. V8's "last-resort" one, which it runs under
      // memory pressure, handed a few more MB back to the system, but the
      // server then read about a tenth slower for as long as it ran
      // (docs/decisions/039-server-bundle.md, amended).
      gc({ type: "major", execution: "async" });
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
