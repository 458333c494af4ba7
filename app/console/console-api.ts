import { hashKey, keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import { flushSync } from "react-dom";
import { toast } from "sonner";
import type { CallOf, Endpoints, Route } from "../../contract/endpoints.ts";
import { ApiError, api } from "../lib/api-client.ts";
import { readAgain } from "../lib/read-again.ts";

/** The console's routes: those of the contract under `/admin`. */
export type ConsoleRoute = Extract<Route, `${string} /admin/${string}`>;
type Args<R extends ConsoleRoute> = keyof CallOf<R> extends never ? [] : [CallOf<R>];

/** The sign-in page, which comes back to this screen once signed in. */
export const signInAgainHref = () =>
  `/admin/sign-in?then=${encodeURIComponent(window.location.pathname.replace(/\/$/, ""))}`;

/**
 * One call of the console to `/api/admin`, typed by the contract
 * (contract/console.ts; docs/decisions/012-owner-console.md). A 401 means the
 * session ended (idle for 12 hours, 30 days old, signed out, revoked): the browser goes
 * back to the sign-in page, and from there to this screen.
 */
export async function consoleApi<R extends ConsoleRoute>(
  route: R,
  ...call: Args<R>
): Promise<Endpoints[R]["response"]> {
  try {
    return await api(route, ...(call as never));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && !route.includes("sign-in")) {
      window.location.assign(signInAgainHref());
    }
    throw error;
  }
}

export type Loaded<T> =
  | { state: "loading" }
  | { state: "failed"; message: string; retry: () => unknown }
  | { state: "ready"; data: T };

/**
 * The console's reads: its GET routes, and the searches that take what is
 * searched for in a body, out of URLs and request logs.
 */
type ConsoleRead =
  | Extract<ConsoleRoute, `GET ${string}`>
  | "POST /admin/subscribers/search"
  | "POST /admin/suppressions/search";

/**
 * Calls the read `route` now, again whenever its call (search, slug) changes,
 * and whenever `reload` is called; the last answer stays shown while reloading.
 * The reads share the console's TanStack Query cache (console-app.tsx), as the
 * reading pages' islands do.
 *
 * `reload` follows a write (a removal, a deletion, a live comment event): a
 * read of the route still on its way may have left before that write
 * committed, and its answer would bring back what the write removed. So every
 * read of the route in flight is abandoned and made again, the one a search
 * typed meanwhile started included, never joined; `reload` resolves once the
 * new answer has arrived (docs/architecture.md, "Live updates").
 *
 * An answer that takes the focused element off the page (a search's that
 * lands late, a live event's) gives the focus where useBusy would, once no
 * write runs.
 */
export function useConsoleData<R extends ConsoleRead>(route: R, ...call: Args<R>) {
  const queryClient = useQueryClient();
  const query = useQuery({
    // TanStack compares keys by value: a new object with the same search is the same call.
    queryKey: [route, ...call],
    queryFn: () => consoleApi(route, ...call),
    placeholderData: keepPreviousData,
  });
  const reload = useCallback(
    () => readAgain(queryClient, { queryKey: [route] }),
    [queryClient, route],
  );
  // Where the focus is before React changes the page, read as an answer lands,
  // as the focus moves and after each change, never while rendering (React may
  // render again, or at a moment the focus is elsewhere).
  const focused = useRef<Places>([]);
  const hash = hashKey([route, ...call]);
  useEffect(() => {
    const record = () => {
      focused.current = placesOf(pressedButton());
    };
    const stop = queryClient.getQueryCache().subscribe((event) => {
      const landed = event.type === "updated" && event.action.type === "success";
      if (landed && event.query.queryHash === hash) record();
    });
    // Focus that leaves for the page (clicked away) is read where it lands, a task later:
    // after a change that took it (a row removed or moved) has given it back below.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const left = () => {
      timer = setTimeout(record);
    };
    document.addEventListener("focusin", record);
    document.addEventListener("focusout", left);
    return () => {
      stop();
      clearTimeout(timer);
      document.removeEventListener("focusin", record);
      document.removeEventListener("focusout", left);
    };
  }, [queryClient, hash]);
  useLayoutEffect(() => {
    if (query.data === undefined) return;
    afterWrites(focused.current);
    focused.current = placesOf(pressedButton());
  }, [query.data]);
  const loaded: Loaded<Endpoints[R]["response"]> = query.isError
    ? { state: "failed", message: errorMessage(query.error), retry: query.refetch }
    : query.data === undefined
      ? { state: "loading" }
      : { state: "ready", data: query.data };
  return { loaded, reload, data: query.data };
}

/**
 * What went wrong, in words the owner can act on: the browser's own words
 * for a request that got no answer ("Failed to fetch") say neither.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError && error.code === "network_error") {
    return "The site did not answer: check your connection, then try again.";
  }
  return error instanceof Error ? error.message : String(error);
}

/** A call of the console as data: a route and what it sends, for a button to make. */
export type Call = { [R in ConsoleRoute]: [R, ...Args<R>] }[ConsoleRoute];

/**
 * A write of the console (a function, or a `Call`): `done` (or what it makes
 * of the answer) is toasted when it succeeds, then `after` runs (a reload); a
 * failure is toasted instead, or for a form given to `refused` (useRefusal).
 */
export async function act<T>(
  work: (() => Promise<T>) | Call,
  done: string | ((answer: T) => string),
  after?: (answer: T) => unknown,
  refused: (error: unknown) => void = (error) => toast.error(errorMessage(error)),
): Promise<void> {
  try {
    const answer = (await (typeof work === "function"
      ? work()
      : consoleApi(...(work as [ConsoleRoute])))) as T;
    toast.success(typeof done === "string" ? done : done(answer));
    await after?.(answer);
  } catch (error) {
    refused(error);
  }
}

/**
 * Whether a write of some controls is running, and `busyWhile(write, to)`,
 * which marks it so while `write` (an `act`, its reload included) runs: the
 * controls are disabled then, and the pressed one (a confirmation's: its
 * dialog's button) drops the focus to the page. Once it has run, and no
 * other write runs, the focus goes as `refocus` says, from the pressed button.
 */
export function useBusy() {
  const [busy, setBusy] = useState(false);
  async function busyWhile(write: () => Promise<unknown>, to?: () => Element | null) {
    const pressed = pressedButton();
    const places = placesOf(pressed);
    writes.pressed.push(pressed);
    try {
      setBusy(true);
      await write();
      flushSync(() => setBusy(false));
      // The reload's answer reaches the view a task after it arrived (TanStack's notifyManager).
      await new Promise((resolve) => setTimeout(resolve));
    } finally {
      writes.pressed.splice(writes.pressed.indexOf(pressed), 1);
    }
    afterWrites(places, to);
  }
  return [busy, busyWhile] as const;
}

/**
 * The buttons of the writes running (useBusy), and the refocusing waiting for
 * them: while a write runs, the button it disabled is still there and takes
 * the focus back when it ends, so an answer that lands meanwhile (or a write
 * of the same button that ends before) must not hand the focus to its
 * neighbour. Focus from anywhere else is given back at once.
 */
const writes = {
  pressed: [] as (Element | null)[],
  waiting: [] as Parameters<typeof refocus>[],
};

/** `refocus(places, to)` now, or once no write of the button they start at runs, before those that waited. */
function afterWrites(places: Places, to?: () => Element | null) {
  writes.waiting.unshift([places, to]);
  const held = ([each]: Parameters<typeof refocus>) =>
    each[0] !== undefined && writes.pressed.includes(each[0].node);
  const ready = writes.waiting.filter((waiting) => !held(waiting));
  writes.waiting = writes.waiting.filter(held);
  for (const [each, other] of ready) refocus(each, other);
}

/**
 * If the focus has fallen to the page, gives it back to the element `places`
 * were taken of (placesOf); gone or disabled, to what `to` gives (a reply just
 * posted), else to the element that took its place, else to its nearest
 * neighbour left (the next, else the one before), and so on outwards: the
 * next item of a list whose item went, or what replaced the list (its empty
 * line). An item that came into a list meanwhile (a live event, a search's
 * answer) takes the place of one that went only when none of the others is left.
 */
function refocus(places: Places, to?: () => Element | null) {
  if (document.activeElement !== document.body) return;
  for (const each of [places[0]?.node, to?.()]) {
    const target = each?.isConnected && focusIn(each);
    if (target) return target.focus();
  }
  for (const [at, { node, parent, others, before }] of places.entries()) {
    if (at > 0 && node.isConnected) return;
    const came = [...parent.children].filter((each) => !before.has(each));
    const item = node.matches("li, tr");
    for (const each of item ? [...others, ...came] : [...came, ...others]) {
      const target = each.isConnected && focusIn(each);
      if (target) return target.focus();
    }
  }
}

/** The focused element, or the button that opened the dialog it is in. */
function pressedButton(): Element | null {
  const active = document.activeElement;
  const dialog = active?.closest("[role=alertdialog], [role=dialog]");
  return dialog ? document.querySelector(`[aria-controls="${dialog.id}"]`) : active;
}

type Places = ReturnType<typeof placesOf>;

/** `node` and each of its ancestors, each with its parent, its siblings (the next first, then the ones before) and all its parent's children. */
function placesOf(node: Element | null) {
  const places = [];
  for (let parent = node?.parentElement; node && parent && node !== document.body; ) {
    const around = [...parent.children];
    const at = around.indexOf(node);
    const others = [...around.slice(at + 1), ...around.slice(0, at).reverse()];
    places.push({ node, parent, others, before: new Set(around) });
    [node, parent] = [parent, parent.parentElement];
  }
  return places;
}

/** What in `element` takes the focus: itself if it can, else its first button, else its first control, else its first element that can. */
function focusIn(element: Element): HTMLElement | null {
  const selectors = [
    "button:not(:disabled)",
    "a[href], input:not(:disabled), select:not(:disabled), textarea:not(:disabled)",
    "[tabindex]",
  ];
  const found = element.matches(selectors.join(", "))
    ? element
    : selectors.map((selector) => element.querySelector(selector)).find(Boolean);
  return found instanceof HTMLElement ? found : null;
}

/** What is typed in a search, once it has rested for a quarter of a second. */
export function useSettled(typed: string): string {
  const [settled, setSettled] = useState(typed);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(typed), 250);
    return () => clearTimeout(timer);
  }, [typed]);
  return settled;
}

/**
 * A form's fields as the server saved them, but each field (or field of a
 * group of them) edited since `sent` was sent as it is `now`: an answer that
 * lands after the owner typed on keeps what they typed.
 */
export function keepEdits<T extends object>(saved: T, sent: T, now: T): T {
  const fields = Object.entries(saved).map(([key, value]) => {
    const [was, is] = [sent[key as keyof T], now[key as keyof T]];
    if (value && typeof value === "object" && !Array.isArray(value)) {
      return [key, keepEdits(value, was as object, is as object)];
    }
    return [key, is === was ? value : is];
  });
  return Object.fromEntries(fields) as T;
}
