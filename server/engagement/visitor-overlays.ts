/**
 * What each visitor owns of an item (their comments, those only they see, their
 * reactions), kept in memory per visitor so that a returning reader's read
 * costs no database query (docs/architecture.md, "Reads").
 *
 * Bounded: at most `visitors` visitors, the least recently seen forgotten
 * first, each with at most `itemsPerVisitor` items, so a flood of new cookies
 * costs a fixed amount of memory. An item's overlays are forgotten whenever
 * it changes (`changed`, on every event about it, every instance hearing
 * every event); a visitor's, when they write (`forget`, on the instance that
 * took the write, before it answers).
 */
export function createVisitorOverlays({
  visitors = 10_000,
  itemsPerVisitor = 32,
}: {
  visitors?: number;
  itemsPerVisitor?: number;
} = {}) {
  type Entry = { generation: number; value: Promise<unknown> };
  // Maps keep insertion order: the first visitor (and item) is the least recently used.
  const byVisitor = new Map<string, Map<string, Entry>>();
  // Bumped on each change of an item: an overlay read before it is stale.
  const generations = new Map<string, number>();

  function overlaysOf(visitorId: string): Map<string, Entry> {
    let overlays = byVisitor.get(visitorId);
    if (overlays) {
      byVisitor.delete(visitorId);
    } else {
      overlays = new Map();
      if (byVisitor.size >= visitors) byVisitor.delete(byVisitor.keys().next().value as string);
    }
    byVisitor.set(visitorId, overlays);
    return overlays;
  }

  return {
    /**
     * The visitor's overlay of `part` of the item `topic`, from memory, or from
     * `load` (whose result is kept unless `keep` is false).
     */
    get<T>(
      visitorId: string,
      part: string,
      topic: string,
      load: () => Promise<T>,
      keep = true,
    ): Promise<T> {
      if (!keep) return load();
      const overlays = overlaysOf(visitorId);
      const key = `${part} ${topic}`;
      const generation = generations.get(topic) ?? 0;
      const kept = overlays.get(key);
      if (kept?.generation === generation) return kept.value as Promise<T>;
      const value = load();
      const entry = { generation, value };
      overlays.delete(key);
      overlays.set(key, entry);
      if (overlays.size > itemsPerVisitor) overlays.delete(overlays.keys().next().value as string);
      value.catch(() => {
        if (overlays.get(key) === entry) overlays.delete(key);
      });
      return value;
    },

    /**
     * The visitor's overlay of `part` of `topic` as kept now, if it still stands:
     * the same object until the item changes or the visitor writes. Asking
     * neither loads it nor counts as the visitor being seen.
     */
    kept(visitorId: string, part: string, topic: string): unknown {
      const kept = byVisitor.get(visitorId)?.get(`${part} ${topic}`);
      return kept?.generation === (generations.get(topic) ?? 0) ? kept : undefined;
    },

    /** Something about the item changed: every visitor's overlay of it is stale. */
    changed(topic: string) {
      generations.set(topic, (generations.get(topic) ?? 0) + 1);
    },

    /** The visitor wrote: whatever this instance kept of theirs is stale. */
    forget(visitorId: string) {
      byVisitor.delete(visitorId);
    },

    clear() {
      byVisitor.clear();
    },

    /** How many visitors have overlays kept (for tests of the bound). */
    get size() {
      return byVisitor.size;
    },
  };
}
