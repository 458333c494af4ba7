import { type ComponentType, useCallback, useRef, useState } from "react";
import type { SearchDialogProps } from "./search-dialog.tsx";

/**
 * The header's Search button (docs/product.md, "Search"). The dialog and
 * Pagefind are fetched only when a reader opens the search, so they cost the
 * reading pages nothing. The keyboard shortcuts live in search-shortcuts.astro,
 * which clicks this button; it also keeps what the reader types meanwhile in
 * the button's `data-typed`, which the dialog starts with.
 */
export function SearchLauncher() {
  const [open, setOpen] = useState(false);
  const [SearchDialog, setSearchDialog] = useState<ComponentType<SearchDialogProps> | null>(null);
  /** Where focus goes back to when the search closes. */
  const returnFocus = useRef<HTMLElement | null>(null);
  const button = useRef<HTMLButtonElement>(null);

  const openSearch = useCallback(() => {
    const focused = document.activeElement;
    returnFocus.current =
      focused instanceof HTMLElement && focused !== document.body ? focused : button.current;
    setOpen(true);
    import("./search-dialog.tsx").then(
      (module) => setSearchDialog(() => module.SearchDialog),
      // The next press tries again; until then the button stays as it is.
      () => setOpen(false),
    );
  }, []);

  return (
    <>
      <button
        ref={button}
        type="button"
        data-search-button
        aria-label="Search"
        aria-haspopup="dialog"
        aria-keyshortcuts="/ Control+K Meta+K"
        title="Search (/ or Ctrl+K)"
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
          initialTerm={button.current?.dataset.typed ?? ""}
          returnFocus={() =>
            returnFocus.current?.isConnected ? returnFocus.current : button.current
          }
        />
      ) : null}
    </>
  );
}
