/**
 * Retention that runs by itself: each clean-up `add`ed runs at the start (or
 * `firstAfterMs` after it) and every hour after, a failure logged as its
 * `failure` and tried again next hour. Enquiries, bookings, the Fediverse's
 * given-up records and the assistant's questions keep theirs so (each deletes
 * and writes its line of the audit trail in one transaction), as do the
 * server's old records (events, spam, bans…), the owner's old action links
 * and the readers' raw rows (rolled up first).
 *
 * The clean-ups run one after another from one timer, never two at once: run
 * together, a dozen of them took every connection of the pool at each start
 * and at the top of each hour, from readers' requests.
 */
export type HourlyRetention = {
  add(
    prune: () => Promise<unknown>,
    options: {
      failure: string;
      /** The first run this long after the start, not at once (the readers': see their start). */
      firstAfterMs?: number;
    },
  ): void;
  /**
   * Starts no clean-up after this; the one under way finishes first (each is
   * one transaction, or parts that are each whole), before the store closes.
   */
  stop(): Promise<void>;
};

export function startHourlyRetention(
  log: { warn(object: unknown, message: string): void },
  everyMs = 60 * 60 * 1000,
): HourlyRetention {
  const cleanUps: { prune: () => Promise<unknown>; failure: string; due: number }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  /** Each clean-up due, the longest overdue first, one at a time; a failure does not stop the next. */
  const runDue = async () => {
    for (const cleanUp of cleanUps.toSorted((a, b) => a.due - b.due)) {
      if (stopped) return;
      if (cleanUp.due > Date.now()) continue;
      cleanUp.due = Date.now() + everyMs;
      try {
        await cleanUp.prune();
      } catch (error) {
        log.warn({ err: error }, cleanUp.failure);
      }
    }
  };
  /** The one timer, set for the clean-up due soonest; none while one runs or once stopped. */
  const schedule = () => {
    clearTimeout(timer);
    timer = undefined;
    if (stopped || running || cleanUps.length === 0) return;
    const next = Math.min(...cleanUps.map((cleanUp) => cleanUp.due));
    timer = setTimeout(
      () => {
        timer = undefined;
        running = runDue().finally(() => {
          running = undefined;
          schedule();
        });
      },
      Math.max(0, next - Date.now()),
    );
    timer.unref();
  };

  return {
    add(prune, { failure, firstAfterMs = 0 }) {
      cleanUps.push({ prune, failure, due: Date.now() + firstAfterMs });
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
