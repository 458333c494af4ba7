import { type ComponentType, useCallback, useEffect, useRef, useState } from "react";
import type { SearchDialogProps } from "./search-dialog.tsx";

/** Where typing a "/" or "k" means text, not a shortcut. */
function isTextEntry(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  if (!(target instanceof HTMLInputElement)) return false;
  return !["button", "checkbox", "radio", "submit", "reset", "range", "color", "file"].includes(
    target.type,
  );
}

/** `/`, or Ctrl+K (Cmd+K on a Mac), outside text fields. */
export function isSearchShortcut(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || event.isComposing || isTextEntry(event.target)) return false;
  if (event.key === "/") return !event.ctrlKey && !event.metaKey && !event.altKey;
  return (
    (event.ctrlKey || event.metaKey) &&
    !event.altKey &&
    !event.shiftKey &&
    event.key.toLowerCase() === "k"
  );
}

/**
 * The header's Search button and keyboard shortcuts (docs/product.md,
 * "Search"). The dialog and Pagefind are fetched only when a reader opens the
 * search, so they cost the reading pages nothing.
 */
export function SearchLauncher() {
  const [open, setOpen] = useState(false);
  const [SearchDialog, setSearchDialog] = useState<ComponentType<SearchDialogProps> | null>(null);
  /** What the reader types while the dialog's code is still on its way. */
  const typedAhead = useRef("");
  /** Where focus goes back to when the search closes. */
  const returnFocus = useRef<HTMLElement | null>(null);
  const button = useRef<HTMLButtonElement>(null);

  const openSearch = useCallback(() => {
    if (document.activeElement instanceof HTMLElement && document.activeElement !== document.body) {
      returnFocus.current = document.activeElement;
    } else {
      returnFocus.current = button.current;
    }
    setOpen(true);
    import("./search-dialog.tsx").then(
      (module) => setSearchDialog(() => module.SearchDialog),
      // The next press tries again; until then the button stays as it is.
      () => setOpen(false),
    );
  }, []);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!isSearchShortcut(event)) return;
      event.preventDefault();
      openSearch();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [openSearch]);

  // The first opening waits for the dialog's code: keys typed meanwhile are
  // kept and become the dialog's first words, so a quick reader loses nothing.
  const loading = open && SearchDialog === null;
  useEffect(() => {
    if (!loading) return;
    typedAhead.current = "";
    const keep = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "Backspace") typedAhead.current = typedAhead.current.slice(0, -1);
      else if (event.key.length === 1) typedAhead.current += event.key;
      else return;
      event.preventDefault();
    };
    window.addEventListener("keydown", keep);
    return () => window.removeEventListener("keydown", keep);
  }, [loading]);

  return (
    <>
      <button
        type="button"
        aria-label="Search"
        aria-haspopup="dialog"
        aria-keyshortcuts="/ Control+K Meta+K"
        title="Search (/ or Ctrl+K)"
        ref={button}
        onClick={openSearch}
        className="icon-button"
      >
        <svg
          aria-hidden="true"
          className="size-5"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth={2}
          strokeLinecap="round"
          strokeLinejoin="round"
        >
          <circle cx="11" cy="11" r="7" />
          <path d="m20 20-4-4" />
        </svg>
      </button>
      {SearchDialog ? (
        <SearchDialog
          open={open}
          onOpenChange={setOpen}
          initialTerm={typedAhead.current}
          returnFocus={() =>
            returnFocus.current?.isConnected ? returnFocus.current : button.current
          }
        />
      ) : null}
    </>
  );
}
