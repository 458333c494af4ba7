import type { QueryClient, QueryFilters } from "@tanstack/react-query";

/**
 * Reads the cached answers `filters` match again, starting now; resolves once
 * the answers in use have arrived (or failed). A read already in flight may
 * have left before a write the caller knows of: it is abandoned, never joined
 * (docs/architecture.md, "Live updates"). TanStack would join a first read that
 * has no answer yet even when asked to cancel a running one, so such a read is
 * cancelled before the new one starts. Answers no screen shows now are only
 * marked stale: they are read again when shown. Another call's read that
 * abandons this one is waited for in its place.
 */
export async function readAgain(queryClient: QueryClient, filters: QueryFilters): Promise<void> {
  await Promise.all(
    queryClient
      .getQueryCache()
      .findAll(filters)
      .map(async (query) => {
        const exact = { queryKey: query.queryKey, exact: true };
        if (query.state.fetchStatus !== "idle" && query.state.data === undefined) {
          await queryClient.cancelQueries(exact);
        }
        await queryClient.invalidateQueries(exact, { cancelRefetch: true });
        // A later read may have abandoned this one: the answer is the one that replaced it.
        while (query.state.fetchStatus === "fetching") await query.fetch().catch(() => undefined);
      }),
  );
}
