/**
 * A module (or a costly table) that only some requests need, made when the
 * first of them arrives and kept: the server then starts without it, and a
 * process that never needs it never loads it (docs/benchmarks.md, "Start and
 * idle"). A failed import is tried again on the next call rather than kept.
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}
