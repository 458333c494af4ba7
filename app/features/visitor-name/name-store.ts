import { useSyncExternalStore } from "react";

const storageKey = "ewe:display-name";
const listeners = new Set<() => void>();

function read(): string {
  try {
    return localStorage.getItem(storageKey) ?? "";
  } catch {
    return "";
  }
}

let current: string | null = null;

/** The display name the visitor chose, remembered in this browser (DESIGN: Identity). */
export function getDisplayName(): string {
  current ??= read();
  return current;
}

export function setDisplayName(name: string) {
  current = name;
  try {
    localStorage.setItem(storageKey, name);
  } catch {
    // Private mode or storage full: the name still lives for this visit.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key !== storageKey) return;
    current = event.newValue ?? "";
    listener();
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
