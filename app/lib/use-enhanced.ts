import {
  type RefObject,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";

/**
 * Server-rendered markup is built to work without JavaScript (native
 * <details>, every tab panel shown). Once an island has hydrated on that
 * markup, `read` takes what the reader already did to it (a card opened
 * before hydration, the focused element) and the island switches to its
 * scripted widgets. That switch runs as a task of its own after hydration, so
 * neither blocks the page for long on a slow phone. Until then this returns
 * null, so the hydration render matches the server's HTML exactly.
 */
export function useEnhanced<T>(
  root: RefObject<HTMLElement | null>,
  read: (root: HTMLElement) => T,
) {
  const [state, setState] = useState<T | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: read once, on the markup hydrated
  useEffect(() => {
    const next = setTimeout(() => {
      if (root.current) setState(read(root.current));
    }, 0);
    return () => clearTimeout(next);
  }, []);
  return state;
}

/** The item named by the URL's #fragment, if it is one of `ids`. */
export function linkedId(ids: readonly string[]): string | null {
  const target = decodeURIComponent(window.location.hash.replace(/^#/, ""));
  return ids.includes(target) ? target : null;
}

const noSubscription = () => () => {};

/**
 * False in the server's HTML and during hydration, true after: for controls
 * that must work without JavaScript (an enabled submit button) but behave
 * differently once scripted.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

/**
 * Tabs holding linked items: when the URL's #fragment names an item (on load
 * or later), show the tab it sits in. Runs before paint, so the item's card
 * can scroll into view in the same frame.
 */
export function useTabOfLinkedItem(tabOf: Record<string, string>, show: (tab: string) => void) {
  const latest = useRef({ tabOf, show });
  latest.current = { tabOf, show };
  useLayoutEffect(() => {
    const sync = () => {
      const { tabOf, show } = latest.current;
      const id = linkedId(Object.keys(tabOf));
      const tab = id ? tabOf[id] : undefined;
      if (tab) show(tab);
    };
    sync();
    window.addEventListener("hashchange", sync);
    return () => window.removeEventListener("hashchange", sync);
  }, []);
}
