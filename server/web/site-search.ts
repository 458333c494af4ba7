import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { sitePath } from "../../contract/html.ts";
import {
  finds,
  otherNumber,
  prefixFrom,
  searchKeys,
  searchWordsMax,
} from "../../contract/search-words.ts";

/**
 * The site's search on the server, for readers without JavaScript
 * (docs/decisions/033-search-without-javascript.md). It reads the index the
 * build wrote for the search dialog (scripts/search-index.ts): Pagefind keeps
 * each indexed page's text, title, section and headings in one fragment file,
 * so both searches see the same pages, each piece of writing once, on its own
 * page. The words are put in an inverted index in memory at start-up; a
 * search looks its words up there, without touching the disk.
 */

/** What the server reads of a Pagefind fragment: gzip of this mark and JSON. */
const fragmentMark = "pagefind_dcd";
const fragmentSchema = z.object({
  url: z.string(),
  content: z.string(),
  meta: z.object({ title: z.string().optional(), section: z.string().optional() }),
  anchors: z
    .array(
      z.object({ element: z.string(), id: z.string(), text: z.string(), location: z.number() }),
    )
    .default([]),
});

type Heading = { id: string; text: string; start: number };
type Page = {
  path: string;
  title: string;
  section: string | null;
  /** The page's text, word by word, as the reader sees it. */
  words: string[];
  headings: Heading[];
};
/** Where one word occurs: in which page and at which word of it. */
type Postings = Map<number, number[]>;

export type SearchHit = {
  /** The page, or the part of it under one heading when most matches sit there. */
  href: string;
  title: string;
  section: string | null;
  /** The excerpt's words, each with whether it matched. */
  excerpt: { text: string; match: boolean }[];
  /** Words were left out before and after the excerpt. */
  clipped: { before: boolean; after: boolean };
};

export type SiteSearch = {
  pages: number;
  /** How many pages hold every word, and the best `shown` of them, best first. */
  search(terms: string[], shown: number): { total: number; hits: SearchHit[] };
  /**
   * The words with each that no page holds put right, when a slip of one
   * letter explains it and the words so put right find pages; else null.
   */
  suggest(terms: string[]): string[] | null;
};

/**
 * Words shorter than this are too short to guess a slip in; longer than
 * `slipTo` are no word (a guess at 200 letters took 30 ms, at 30 half one).
 */
const slipFrom = 4;
const slipTo = 30;
const slipLetters = "abcdefghijklmnopqrstuvwxyz0123456789";

/** Words around a match in an excerpt. */
const excerptWords = 30;

function readPages(clientRoot: string): Page[] {
  const folder = path.join(clientRoot, "pagefind", "fragment");
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((file) => file.endsWith(".pf_fragment"))
    .sort()
    .map((file) => {
      const text = gunzipSync(readFileSync(path.join(folder, file))).toString("utf8");
      const parsed = text.startsWith(fragmentMark)
        ? fragmentSchema.safeParse(JSON.parse(text.slice(fragmentMark.length)))
        : null;
      if (!parsed?.success) {
        throw new Error(
          `The search index's ${file} is not a Pagefind fragment this server reads: rebuild the site.`,
        );
      }
      const { url, content, meta, anchors } = parsed.data;
      const pagePath = sitePath(url);
      return {
        path: pagePath,
        title: meta.title ?? pagePath,
        section: meta.section ?? null,
        words: content.split(/\s+/).filter((word) => word !== ""),
        headings: anchors
          .filter((anchor) => /^h[1-6]$/.test(anchor.element))
          .map((anchor) => ({ id: anchor.id, text: anchor.text, start: anchor.location }))
          .sort((a, b) => a.start - b.start),
      };
    });
}

export function loadSiteSearch(clientRoot: string): SiteSearch {
  const pages = readPages(clientRoot);
  const index = new Map<string, Postings>();
  const titleKeys = pages.map((page) => new Set(searchKeys(page.title)));
  pages.forEach((page, pageIndex) => {
    page.words.forEach((word, at) => {
      for (const key of searchKeys(word)) {
        const postings = index.get(key) ?? new Map<number, number[]>();
        index.set(key, postings);
        const positions = postings.get(pageIndex);
        if (positions) positions.push(at);
        else postings.set(pageIndex, [at]);
      }
    });
  });
  /** Every word in order, so those that start with a search word sit together. */
  const keys = [...index.keys()].sort();
  const averageLength = pages.reduce((sum, page) => sum + page.words.length, 0) / pages.length;

  /** The index's words a search word finds: itself, the longer ones it begins, and its other number. */
  function keysFor(term: string): string[] {
    if (term.length < prefixFrom) return index.has(term) ? [term] : [];
    const other = otherNumber(term);
    const found = other !== null && index.has(other) ? [other] : [];
    let low = 0;
    let high = keys.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((keys[middle] ?? "") < term) low = middle + 1;
      else high = middle;
    }
    for (let at = low; at < keys.length && keys[at]?.startsWith(term); at += 1) {
      if (keys[at] !== other) found.push(keys[at] ?? "");
    }
    return found;
  }

  /** Where in each page a search word occurs, over all the words it finds. */
  function occurrences(term: string): Postings {
    const merged: Postings = new Map();
    for (const key of keysFor(term)) {
      for (const [page, positions] of index.get(key) ?? []) {
        const known = merged.get(page);
        if (known) known.push(...positions);
        else merged.set(page, [...positions]);
      }
    }
    return merged;
  }

  function search(terms: string[], shown: number) {
    const words = [...new Set(terms)].slice(0, searchWordsMax);
    if (words.length === 0 || pages.length === 0) return { total: 0, hits: [] };
    const found = words.map(occurrences);
    // A page is found when it holds every word; ranked by BM25, its title counting extra.
    const candidates = [...(found[0]?.keys() ?? [])].filter((page) =>
      found.every((postings) => postings.has(page)),
    );
    const scored = candidates.map((pageIndex) => {
      const page = pages[pageIndex] as Page;
      const norm = 1.2 * (0.25 + (0.75 * page.words.length) / averageLength);
      let score = 0;
      found.forEach((postings, term) => {
        const frequency = postings.get(pageIndex)?.length ?? 0;
        const rarity = Math.log(1 + (pages.length - postings.size + 0.5) / (postings.size + 0.5));
        score += (rarity * frequency * 2.2) / (frequency + norm);
        const word = words[term] ?? "";
        if ([...(titleKeys[pageIndex] ?? [])].some((key) => finds(word, key))) score += rarity;
      });
      return { pageIndex, page, score };
    });
    scored.sort((a, b) => b.score - a.score || a.page.path.localeCompare(b.page.path));
    // Only the results shown get their excerpt.
    const hits = scored.slice(0, shown).map(({ pageIndex, page }) => {
      const positions = found.flatMap((postings) => postings.get(pageIndex) ?? []);
      return hitOf(
        page,
        [...new Set(positions)].sort((a, b) => a - b),
      );
    });
    return { total: scored.length, hits };
  }

  /**
   * The index's word one slip away from a search word (a letter added,
   * dropped or changed, or two swapped) that most pages hold; null when none.
   */
  function nearest(term: string): string | null {
    if (term.length < slipFrom || term.length > slipTo) return null;
    const near = new Set<string>();
    for (let at = 0; at <= term.length; at += 1) {
      const head = term.slice(0, at);
      const tail = term.slice(at);
      if (tail) near.add(head + tail.slice(1));
      if (tail.length > 1) near.add(`${head}${tail[1]}${tail[0]}${tail.slice(2)}`);
      for (const letter of slipLetters) {
        near.add(head + letter + tail);
        if (tail) near.add(head + letter + tail.slice(1));
      }
    }
    let best: string | null = null;
    let most = 0;
    for (const word of near) {
      const held = index.get(word)?.size ?? 0;
      if (held > most) [best, most] = [word, held];
    }
    return best;
  }

  function suggest(terms: string[]): string[] | null {
    const words = [...new Set(terms)].slice(0, searchWordsMax);
    const better = words.map((term) => (keysFor(term).length > 0 ? term : (nearest(term) ?? term)));
    const changed = better.some((word, at) => word !== words[at]);
    return changed && search(better, 0).total > 0 ? better : null;
  }

  return { pages: pages.length, search, suggest };
}

/**
 * One result per page: the page itself or, when most of its matches sit under
 * one of its headings, that heading's part of the page (as the dialog does,
 * app/features/search/search-dialog.tsx), with an excerpt around the first
 * match there.
 */
function hitOf(page: Page, positions: number[]): SearchHit {
  const under = (at: number) => page.headings.findLast((heading) => heading.start <= at);
  const counts = new Map<Heading, number>();
  for (const at of positions) {
    const heading = under(at);
    if (heading) counts.set(heading, (counts.get(heading) ?? 0) + 1);
  }
  const [best, most = 0] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? [];
  const part = best && most * 2 > positions.length ? best : null;
  const first = (part ? positions.find((at) => under(at) === part) : positions[0]) ?? 0;
  const start = Math.max(part?.start ?? 0, first - Math.floor(excerptWords / 4));
  const end = Math.min(page.words.length, start + excerptWords);
  const matched = new Set(positions);
  return {
    href: part ? `${page.path}#${part.id}` : page.path,
    title: part && part.text !== page.title ? `${page.title} › ${part.text}` : page.title,
    section: page.section,
    excerpt: page.words
      .slice(start, end)
      .map((text, offset) => ({ text, match: matched.has(start + offset) })),
    clipped: { before: start > 0, after: end < page.words.length },
  };
}
