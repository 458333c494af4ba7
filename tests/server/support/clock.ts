/**
 * A clock the test moves: real time plus an offset, so retries and timeouts
 * still run. What the clock would do in an hour, the test does at once.
 */
export function movableClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    /** From now on the clock reads `at` (and runs on from there). */
    set(at: Date) {
      offset = at.getTime() - Date.now();
    },
    advance(ms: number) {
      offset += ms;
    },
  };
}
