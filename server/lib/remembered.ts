/**
 * `compute`, its answers kept by argument up to `max` of them (then all are
 * forgotten and worked out again): for a pure function asked the same few
 * values over and over. Held in memory only.
 */
export function remembered<K, V>(compute: (key: K) => V, max: number): (key: K) => V {
  const known = new Map<K, V>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined) {
      value = compute(key);
      if (known.size >= max) known.clear();
      known.set(key, value);
    }
    return value;
  };
}
