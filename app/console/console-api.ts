import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, request } from "../lib/api-client.ts";

/**
 * The console's calls to `/api/admin` (docs/decisions/012-owner-console.md).
 * A 401 means the session ended (idle for 12 hours, signed out, revoked):
 * the browser goes back to the sign-in page.
 */
export async function consoleApi<T>(method: string, path: string, body?: unknown): Promise<T> {
  try {
    return await request<T>(method, `/admin${path}`, body);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && !path.startsWith("/sign-in")) {
      window.location.assign("/admin/sign-in");
    }
    throw error;
  }
}

export type Loaded<T> =
  | { state: "loading" }
  | { state: "failed"; message: string }
  | { state: "ready"; data: T };

/** GETs `path` now and whenever `reload` is called; the last answer stays shown while reloading. */
export function useConsoleData<T>(path: string) {
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: "loading" });
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const call = ++latest.current;
    try {
      const data = await consoleApi<T>("GET", path);
      if (call === latest.current) setLoaded({ state: "ready", data });
    } catch (error) {
      if (call === latest.current)
        setLoaded({ state: "failed", message: (error as Error).message });
    }
  }, [path]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { loaded, reload };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
