import { useCallback, useEffect, useRef, useState } from "react";
import type { CallOf, Endpoints, Route } from "../../contract/endpoints.ts";
import { ApiError, api } from "../lib/api-client.ts";

/** The console's routes: those of the contract under `/admin`. */
export type ConsoleRoute = Extract<Route, `${string} /admin/${string}`>;
type Args<R extends ConsoleRoute> = keyof CallOf<R> extends never ? [] : [CallOf<R>];

/**
 * One call of the console to `/api/admin`, typed by the contract
 * (contract/console.ts; docs/decisions/012-owner-console.md). A 401 means the
 * session ended (idle for 12 hours, signed out, revoked): the browser goes
 * back to the sign-in page.
 */
export async function consoleApi<R extends ConsoleRoute>(
  route: R,
  ...call: Args<R>
): Promise<Endpoints[R]["response"]> {
  try {
    return await api(route, ...(call as never));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && !route.includes("sign-in")) {
      window.location.assign("/admin/sign-in");
    }
    throw error;
  }
}

export type Loaded<T> =
  | { state: "loading" }
  | { state: "failed"; message: string }
  | { state: "ready"; data: T };

/**
 * The console's reads: its GET routes, and the searches that take what is
 * searched for in a body, out of URLs and request logs.
 */
type ConsoleRead = Extract<ConsoleRoute, `GET ${string}`> | "POST /admin/subscribers/search";

/**
 * Calls the read `route` now, again whenever its call (search, slug) changes,
 * and whenever `reload` is called; the last answer stays shown while reloading.
 */
export function useConsoleData<R extends ConsoleRead>(route: R, ...call: Args<R>) {
  const [loaded, setLoaded] = useState<Loaded<Endpoints[R]["response"]>>({ state: "loading" });
  const latest = useRef(0);
  // The call's parts by value: a new object with the same search is the same call.
  const key = JSON.stringify(call);
  const reload = useCallback(async () => {
    const current = ++latest.current;
    try {
      const data = await consoleApi(route, ...(JSON.parse(key) as Args<R>));
      if (current === latest.current) setLoaded({ state: "ready", data });
    } catch (error) {
      if (current === latest.current)
        setLoaded({ state: "failed", message: (error as Error).message });
    }
  }, [route, key]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { loaded, reload };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
