import { type ComponentType, type MouseEvent, useCallback, useRef, useState } from "react";
import type { SearchDialogProps } from "./search-dialog.tsx";

/**
 * The header's Search control (docs/product.md, "Search"): a link to the
 * search page, which works without JavaScript, upgraded to open the search
 * dialog when scripts run. The dialog and Pagefind are fetched only when a
 * reader opens the search, so they cost the reading pages nothing.
 *
 * The keyboard shortcuts live in search-shortcuts.astro, which also marks the
 * link as opening a dialog as soon as the page has a script (before this
 * island hydrates) and clicks it; the island directive holds that click and
 * replays it here. The script keeps what the reader types meanwhile in the
 * link's `data-typed`, which the dialog starts with. Those attributes are the
 * script's, not React's: hence `suppressHydrationWarning`.
 */
export function SearchLauncher() {
  const [open, setOpen] = useState(false);
  const [SearchDialog, setSearchDialog] = useState<ComponentType<SearchDialogProps> | null>(null);
  /** Where focus goes back to when the search closes. */
  const returnFocus = useRef<HTMLElement | null>(null);
  const link = useRef<HTMLAnchorElement>(null);

  const openSearch = useCallback((event: MouseEvent<HTMLAnchorElement>) => {
    // A click with a modifier opens the search page, in a new tab or window.
    if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) {
      return;
    }
    event.preventDefault();
    const focused = document.activeElement;
    returnFocus.current =
      focused instanceof HTMLElement && focused !== document.body ? focused : link.current;
    setOpen(true);
    import("./search-dialog.tsx").then(
      (module) => setSearchDialog(() => module.SearchDialog),
      // The dialog cannot load (offline, a deploy under way): the page can.
      () => {
        setOpen(false);
        window.location.assign(link.current?.href ?? "/search");
      },
    );
  }, []);

  return (
    <>
      <a
        ref={link}
        href="/search"
        data-search-launcher
        onClick={openSearch}
        className="icon-button"
        suppressHydrationWarning
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
        <span className="sr-only">Search</span>
      </a>
      {SearchDialog ? (
        <SearchDialog
          open={open}
          onOpenChange={setOpen}
          initialTerm={link.current?.dataset.typed ?? ""}
          returnFocus={() =>
            returnFocus.current?.isConnected ? returnFocus.current : link.current
          }
        />
      ) : null}
    </>
  );
}
