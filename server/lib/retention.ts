/**
 * Retention that runs by itself: `prune` now and every hour after, each
 * run's count of deleted rows handed to `removed` (for the audit trail) when
 * there were any, a failure logged as `failure` and tried again next hour.
 * Enquiries, bookings and the assistant's questions each keep theirs so.
 */
export function startHourlyRetention(
  prune: () => Promise<number>,
  {
    log,
    failure,
    removed,
  }: {
    log: { warn(object: unknown, message: string): void };
    failure: string;
    removed: (count: number) => Promise<void>;
  },
): { stop(): void } {
  const run = () =>
    prune()
      .then((count) => (count > 0 ? removed(count) : undefined))
      .catch((error) => log.warn({ err: error }, failure));
  void run();
  const timer = setInterval(run, 60 * 60 * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
