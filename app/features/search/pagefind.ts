/**
 * The search index Pagefind writes at build time (scripts/search-index.ts),
 * loaded from the site itself the first time a reader opens the search. Its
 * script is not part of any bundle: the address is resolved only at run time.
 */

/** What the dialog uses of Pagefind's browser API. */
export type SearchResultData = {
  url: string;
  /** The page's whole text. */
  content: string;
  excerpt: string;
  meta: { title?: string };
  sub_results: { title: string; url: string; excerpt: string; locations?: number[] }[];
};

type Pagefind = {
  options(options: Record<string, unknown>): Promise<void>;
  init(): Promise<void>;
  debouncedSearch(
    term: string,
    options?: Record<string, unknown>,
    debounceMs?: number,
  ): Promise<{ results: { id: string; data(): Promise<SearchResultData> }[] } | null>;
};

const bundleUrl = "/pagefind/pagefind.js";
let loading: Promise<Pagefind> | null = null;

export function loadPagefind(): Promise<Pagefind> {
  loading ??= (async () => {
    const pagefind = (await import(/* @vite-ignore */ bundleUrl)) as Pagefind;
    await pagefind.options({ excerptLength: 24 });
    await pagefind.init();
    return pagefind;
  })().catch((error: unknown) => {
    // A failed load (offline, a deploy in progress) may be retried on the next open.
    loading = null;
    throw error;
  });
  return loading;
}
