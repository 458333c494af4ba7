/**
 * Milliseconds on the machine's monotonic clock, which every process reads
 * alike (performance.now() counts from each process's own start): the bench
 * notes when it sent a write in one process and its streams when it arrived
 * in another.
 */
export const clock = () => Number(process.hrtime.bigint()) / 1e6;

/** The `p`th percentile of ascending `sorted`, NaN when it is empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return (
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
  );
}

/** The middle of `values` (the upper one of an even count), NaN when there are none. */
export function median(values: readonly number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}
