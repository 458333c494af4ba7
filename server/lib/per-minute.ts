/**
 * Counts by key (an address, a network, a signing key) in one-minute windows,
 * in this process's memory: each instance counts its own, and a restart starts
 * afresh. At `keysKept` keys the windows that have ended go; should as many
 * still be running, the counts start afresh rather than grow.
 */
export function perMinute(max: number, keysKept = 10_000) {
  const seen = new Map<string, { count: number; since: number }>();
  function windowOf(key: string, now: number) {
    let entry = seen.get(key);
    if (!entry || now - entry.since >= 60_000) {
      if (seen.size >= keysKept) {
        for (const [other, { since }] of seen) if (now - since >= 60_000) seen.delete(other);
        if (seen.size >= keysKept) seen.clear();
      }
      entry = { count: 0, since: now };
      seen.set(key, entry);
    }
    return entry;
  }
  return {
    /** Counts `add` for `key` (0 only asks): whether its minute has passed `max`. */
    over(key: string, add = 1): boolean {
      const entry = windowOf(key, Date.now());
      entry.count += add;
      return entry.count > max;
    },
    /**
     * Takes one of `key`'s `max` this minute, with a way to give it back (a
     * fetch whose request then proved honest), or says in how many seconds
     * one is free.
     */
    take(key: string): { giveBack: () => void } | { retryAfter: number } {
      const now = Date.now();
      const entry = windowOf(key, now);
      if (entry.count >= max) {
        return { retryAfter: Math.max(1, Math.ceil((entry.since + 60_000 - now) / 1000)) };
      }
      entry.count += 1;
      return {
        giveBack: () => {
          entry.count = Math.max(0, entry.count - 1);
        },
      };
    },
  };
}
