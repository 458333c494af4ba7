import { useSyncExternalStore } from "react";

/** Also read before the first paint by the page's head script (app/layouts/page.astro). */
export const storageKey = "ewe:display-name";
const listeners = new Set<() => void>();

// Used only when the browser refuses storage (private mode, quota).
let unstored = "";

/** The display name the visitor chose, remembered in this browser (docs/product.md, "Reacting and commenting"). */
export function getDisplayName(): string {
  try {
    return localStorage.getItem(storageKey) ?? "";
  } catch {
    return unstored;
  }
}

export function setDisplayName(name: string) {
  try {
    localStorage.setItem(storageKey, name);
  } catch {
    unstored = name;
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === storageKey) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

export function useDisplayName(): string {
  return useSyncExternalStore(subscribe, getDisplayName, () => "");
}
