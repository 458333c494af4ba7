/**
 * Retention that runs by itself: `prune` now and every hour after, a failure
 * logged as `failure` and tried again next hour. Enquiries, bookings, the
 * Fediverse's given-up records and the assistant's questions keep theirs so
 * (each deletes and writes its line of the audit trail in one transaction),
 * as do the server's old records (events, spam, bans…), the owner's old
 * action links and the readers' raw rows (rolled up first).
 */
export function startHourlyRetention(
  prune: () => Promise<unknown>,
  {
    log,
    failure,
    firstAfterMs,
  }: {
    log: { warn(object: unknown, message: string): void };
    failure: string;
    /** The first run this long after the start, not at once (the readers': see their start). */
    firstAfterMs?: number;
  },
): { stop(): void } {
  const run = () => prune().catch((error) => log.warn({ err: error }, failure));
  const first = firstAfterMs === undefined ? undefined : setTimeout(run, firstAfterMs);
  if (first) first.unref();
  else void run();
  const timer = setInterval(run, 60 * 60 * 1000);
  timer.unref();
  return {
    stop: () => {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
