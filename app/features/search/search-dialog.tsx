import { Dialog } from "radix-ui";
import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { sitePath } from "../../../contract/html.ts";
import { limits } from "../../../contract/limits.ts";
import { holdsEvery } from "../../../contract/search-words.ts";
import { Icon } from "../../components/ui/icon.tsx";
import { type ExcerptPart, excerptParts } from "./excerpt.ts";
import { loadPagefind, type SearchResultData } from "./pagefind.ts";

/** Results shown at most; a reader refines the words rather than scroll further. */
const maxResults = 8;
/** Pagefind waits this long after the last key before it searches. */
const debounceMs = 150;

type Hit = { url: string; title: string; excerpt: ExcerptPart[] };

type State =
  | { phase: "idle" }
  | { phase: "searching" }
  | { phase: "done"; term: string; hits: Hit[] }
  | { phase: "failed" };

/**
 * One result per page: the page itself, or, when most of the matches sit
 * under one of its headings, that heading's part of the page.
 */
function toHit(data: SearchResultData): Hit {
  const title = data.meta.title ?? sitePath(data.url);
  const best = [...data.sub_results]
    .filter((sub) => sub.url.includes("#"))
    .sort((a, b) => (b.locations?.length ?? 0) - (a.locations?.length ?? 0))[0];
  const pageMatches = data.sub_results.reduce((sum, sub) => sum + (sub.locations?.length ?? 0), 0);
  if (best && (best.locations?.length ?? 0) * 2 > pageMatches) {
    return {
      url: sitePath(best.url),
      title: best.title === title ? title : `${title} › ${best.title}`,
      excerpt: excerptParts(best.excerpt),
    };
  }
  return { url: sitePath(data.url), title, excerpt: excerptParts(data.excerpt) };
}

/**
 * Each place once: the index holds each piece of writing once (on its own
 * page), and two parts of one page may still lead to the same address.
 */
function uniqueHits(hits: Hit[]): Hit[] {
  const seen = new Set<string>();
  return hits.filter((hit) => !seen.has(hit.url) && seen.add(hit.url));
}

function useSearch(term: string): State {
  const [state, setState] = useState<State>({ phase: "idle" });
  useEffect(() => {
    const words = term.trim();
    if (words === "") {
      setState({ phase: "idle" });
      return;
    }
    let current = true;
    setState((previous) => (previous.phase === "done" ? previous : { phase: "searching" }));
    (async () => {
      const pagefind = await loadPagefind();
      const search = await pagefind.debouncedSearch(words, {}, debounceMs);
      // null: a later keystroke superseded this search.
      if (!search || !current) return;
      const data = await Promise.all(
        search.results.slice(0, maxResults).map((result) => result.data()),
      );
      // When no page holds a word, Pagefind tries ever shorter starts of it
      // ("cooking" finds "cookie", "zzz" a lone "z"): only the pages the
      // search page would find are found, so both say "Nothing found" alike.
      const found = data.filter((page) => holdsEvery(words, page.content));
      if (current) setState({ phase: "done", term: words, hits: uniqueHits(found.map(toHit)) });
    })().catch(() => {
      if (current) setState({ phase: "failed" });
    });
    return () => {
      current = false;
    };
  }, [term]);
  return state;
}

function statusText(state: State): string {
  switch (state.phase) {
    case "idle":
      return "Type a word or two: results appear as you type.";
    case "searching":
      return "Searching…";
    case "failed":
      return "Search could not be loaded. Please check your connection and try again.";
    case "done": {
      const { hits, term } = state;
      if (hits.length === 0) return `Nothing found for “${term}”.`;
      return `${hits.length === 1 ? "1 page" : `${hits.length} pages`} found for “${term}”.`;
    }
  }
}

/**
 * The site's search (docs/product.md, "Search"): a dialog that keeps focus
 * inside and closes on Esc, with the results listed as links while the reader
 * types. Arrow keys move between the field and the results; Enter in the field
 * opens the first result.
 */
export type SearchDialogProps = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Words typed before the dialog was ready. */
  initialTerm?: string;
  /** The element that had focus before the search opened. */
  returnFocus: () => HTMLElement | null;
};

export function SearchDialog({
  open,
  onOpenChange,
  initialTerm = "",
  returnFocus,
}: SearchDialogProps) {
  const [term, setTerm] = useState(initialTerm);
  const state = useSearch(term);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const hits = state.phase === "done" ? state.hits : [];

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const links = [...(list.current?.querySelectorAll("a") ?? [])];
    if (links.length === 0) return;
    const stops: HTMLElement[] = [input.current!, ...links];
    const at = stops.indexOf(document.activeElement as HTMLElement);
    const next =
      event.key === "ArrowDown" ? Math.min(at + 1, stops.length - 1) : Math.max(at - 1, 0);
    event.preventDefault();
    stops[next]?.focus();
  }

  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 animate-fade-in bg-black/60 backdrop-blur-sm" />
        <Dialog.Content
          aria-describedby="search-status"
          onOpenAutoFocus={(event) => {
            event.preventDefault();
            input.current?.focus();
          }}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            returnFocus()?.focus();
          }}
          onKeyDown={onKeyDown}
          className="fixed top-[8vh] left-1/2 z-50 flex max-h-[84vh] w-[min(94vw,40rem)] -translate-x-1/2 animate-fade-in flex-col rounded-2xl border border-line bg-panel text-slate-200 shadow-2xl shadow-black/60"
        >
          <div className="flex items-center justify-between gap-4 px-5 pt-5">
            <Dialog.Title className="text-lg font-semibold text-slate-100">
              Search this site
            </Dialog.Title>
            <Dialog.Close
              aria-label="Close search"
              className="-mr-2 grid size-9 place-items-center rounded-lg text-slate-400 hover:bg-white/10"
            >
              <Icon name="x" />
            </Dialog.Close>
          </div>
          <form
            className="px-5 pt-3"
            onSubmit={(event) => {
              event.preventDefault();
              const first = hits[0];
              if (first) window.location.assign(first.url);
            }}
          >
            <input
              ref={input}
              type="search"
              data-search-field
              aria-label="Search the site"
              placeholder="Engines, pressure cooker, DFMEA…"
              autoComplete="off"
              spellCheck={false}
              enterKeyHint="go"
              maxLength={limits.searchTermsMax}
              value={term}
              onChange={(event) => setTerm(event.target.value)}
              className="w-full rounded-lg border border-line bg-ink px-3 py-2 text-slate-100 placeholder:text-slate-400"
            />
          </form>
          <p
            id="search-status"
            role="status"
            className="px-5 pt-3 text-sm text-slate-400 [overflow-wrap:anywhere]"
          >
            {statusText(state)}
          </p>
          {hits.length > 0 ? (
            <ul ref={list} aria-label="Search results" className="mt-2 overflow-y-auto px-3 pb-4">
              {hits.map((hit) => (
                <li key={hit.url}>
                  <a
                    href={hit.url}
                    className="block rounded-lg px-2 py-2 hover:bg-white/5 focus:bg-white/5"
                  >
                    <span className="block font-medium text-accent">{hit.title}</span>
                    <span className="mt-1 block text-sm text-slate-300">
                      {hit.excerpt.map((part, index) =>
                        part.match ? (
                          // biome-ignore lint/suspicious/noArrayIndexKey: parts never reorder
                          <mark key={index} className="rounded bg-accent/25 px-0.5 text-slate-50">
                            {part.text}
                          </mark>
                        ) : (
                          part.text
                        ),
                      )}
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          ) : state.phase === "done" ? (
            // A way on from nothing found: the search page suggests the words
            // with a slip put right (server/web/search-page.ts).
            <p className="px-5 pt-2 pb-4 text-sm text-slate-400 [overflow-wrap:anywhere]">
              <a
                href={`/search?q=${encodeURIComponent(state.term)}`}
                className="text-accent underline underline-offset-4"
              >
                Search for “{state.term}” on the search page
              </a>
              , which suggests other spellings.
            </p>
          ) : (
            <div className="pb-4" />
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
