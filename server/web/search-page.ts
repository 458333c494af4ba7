import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { escapeHtml } from "../../contract/html.ts";
import { limits } from "../../contract/limits.ts";
import { searchKeys, searchWordsMax } from "../../contract/search-words.ts";
import { cutWhole } from "../../contract/text.ts";
import { countByAddress, networkFactor } from "../lib/address-limit.ts";
import { representation, sendRepresentation } from "../lib/representation.ts";
import { bytesOf, cacheControl, type SiteFile } from "./site-files.ts";
import { loadSiteSearch, type SearchHit, type SiteSearch } from "./site-search.ts";

/**
 * `/search`, the search page that works without JavaScript (docs/product.md,
 * "Search"; docs/decisions/033-search-without-javascript.md): the page the
 * build wrote (app/pages/search.astro), its form's field given back the words
 * searched for and the results put where the build left a placeholder. The
 * header's Search link leads here; with JavaScript it opens the dialog.
 *
 * Whatever the reader typed is escaped wherever it appears. Answers to a
 * search are never stored by anyone (`no-store`): a shared cache would keep
 * one reader's words for the next. The bare page is the same for everyone and
 * is revalidated like any other page.
 */
const searchPath = "/search";

/** Results listed at most; a reader adds a word rather than read further. */
const shownMax = 20;
/**
 * Searches one address may make in a minute. A search costs up to a few
 * milliseconds of the one process's time, tens of page reads: a person
 * searches a few times a minute, a flood is cut short.
 */
export const searchesPerMinute = 60;
/**
 * Searches one IPv6 network (its /48) may make in a minute, from all its
 * addresses: each of its 65,536 /64s counts as one address above, so without
 * it one network (or a home's /56) could keep the process busy searching.
 */
export const searchesPerMinutePerNetwork = searchesPerMinute * networkFactor;

const resultsHole = '<ewe-fragment data-part="search-results"></ewe-fragment>';
/** The field of the page's form, whose value the server fills in. */
const termsField = / data-search-terms(?:="")?/;

/** What a search comes to: its status, the words for the field, the HTML for the placeholder. */
type Outcome = { status: 200 | 400; words: string; html: string };

const alert = (text: string) => `<p class="search-message" role="alert">${escapeHtml(text)}</p>`;
const message = (text: string, html = "") =>
  `<p class="search-message">${escapeHtml(text)}${html}</p>`;
const quoted = (words: string) => `“${words}”`;

function resultHtml(hit: SearchHit): string {
  const excerpt = hit.excerpt
    .map(({ text, match }) => (match ? `<mark>${escapeHtml(text)}</mark>` : escapeHtml(text)))
    .join(" ");
  return `<li class="search-result">
<h2 class="search-result-title"><a href="${escapeHtml(hit.href)}">${escapeHtml(hit.title)}</a></h2>
${hit.section ? `<p class="search-result-section">${escapeHtml(hit.section)}</p>` : ""}
<p class="search-result-excerpt">${hit.clipped.before ? "… " : ""}${excerpt}${hit.clipped.after ? " …" : ""}</p>
</li>`;
}

/** The words as the page shows them back: one line, without control characters. */
function shownWords(raw: string): string {
  return raw
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export function searchPage(
  app: FastifyInstance,
  { root, files }: { root: string; files: Map<string, SiteFile> },
) {
  const file = files.get(`${searchPath}/index.html`);
  const template = file && bytesOf(file)?.toString("utf8");
  if (template === undefined) return;
  const [before, after, ...extra] = template.split(resultsHole);
  if (after === undefined || extra.length > 0 || !termsField.test(before ?? "")) {
    throw new Error(
      `${root}${searchPath}/index.html has not one search results placeholder and one search field: rebuild the site.`,
    );
  }
  // The inverted index of every page's words is built at the first search,
  // not at start: it was a sixth of the start's CPU time, and its memory
  // serves searches only (docs/decisions/038-start-and-idle.md).
  let index: SiteSearch | undefined;
  const siteSearch = () => {
    index ??= loadSiteSearch(root);
    return index;
  };

  // The words lead the page's title too, so that a tab, the history and a screen
  // reader arriving on the answer say which search it is. Each put in by a function:
  // a string's replace reads "$`" in them as the page before, "$'" as the page after.
  const page = (words: string, results: string) =>
    `${(before ?? "")
      .replace("<title>", (title) => (words ? `${title}${escapeHtml(quoted(words))}: ` : title))
      .replace(termsField, (field) => ` value="${escapeHtml(words)}"${field}`)}${results}${after}`;
  const promptText = "Type a word or two, then press Search.";
  const prompt = message(promptText);
  /** The page before any search: the same for every reader. */
  const bare = representation(page("", prompt));

  /** The words the field can hold, as its `maxlength` counts them, characters whole. */
  const fitting = (words: string) => cutWhole(words, limits.searchTermsMax);

  function outcome(q: unknown): Outcome {
    if (Array.isArray(q)) {
      return {
        status: 400,
        words: "",
        html: alert("That address asks for several searches at once. Search for one thing."),
      };
    }
    const words = shownWords(typeof q === "string" ? q : "");
    if (words.length > limits.searchTermsMax) {
      return {
        status: 400,
        words: fitting(words),
        html: alert(
          `A search can be at most ${limits.searchTermsMax} characters long, and this one has ${words.length}. The field holds its first ${limits.searchTermsMax} characters: shorten the search if need be, then press Search.`,
        ),
      };
    }
    const terms = [...new Set(searchKeys(words))];
    if (terms.length === 0) {
      return {
        status: 200,
        words,
        html:
          words === ""
            ? prompt
            : message(`${quoted(words)} has no words to look for. ${promptText}`),
      };
    }
    const { total, hits } = siteSearch().search(terms, shownMax);
    // A way on from nothing found: the same words with a slip put right, to follow.
    const better = total === 0 ? siteSearch().suggest(terms)?.join(" ") : undefined;
    const suggestion = better
      ? ` Did you mean <a href="${escapeHtml(`${searchPath}?q=${encodeURIComponent(better)}`)}">${escapeHtml(quoted(better))}</a>?`
      : "";
    const notes = [
      total === 0
        ? `Nothing found for ${quoted(words)}. Try other words, or fewer.`
        : `${total === 1 ? "1 page" : `${total} pages`} found for ${quoted(words)}.`,
      ...(total > shownMax
        ? [`Here are the ${shownMax} that match best: add a word to narrow it down.`]
        : []),
      ...(terms.length > searchWordsMax
        ? [`Only the first ${searchWordsMax} words were looked for.`]
        : []),
    ];
    const list =
      hits.length === 0
        ? ""
        : `<ol class="search-results" aria-label="Search results">${hits.map(resultHtml).join("")}</ol>`;
    return { status: 200, words, html: `${message(notes.join(" "), suggestion)}${list}` };
  }

  const count = countByAddress(app, {
    name: "search",
    max: searchesPerMinute,
    timeWindow: 60_000,
  });
  /** The search's refusal when its address or its network has searched enough this minute. */
  async function refusal(request: FastifyRequest) {
    const refused = await count(request);
    if (!refused) return null;
    const { from, retryAfter } = refused;
    const max = from === "your network" ? searchesPerMinutePerNetwork : searchesPerMinute;
    return {
      wait: retryAfter,
      html: alert(
        `That is more than ${max} searches in a minute from ${from}. Wait a moment, then press Search again.`,
      ),
    };
  }

  async function serve(request: FastifyRequest, reply: FastifyReply) {
    const { q } = request.query as { q?: unknown };
    reply.type("text/html; charset=utf-8").header("x-robots-tag", "noindex");
    if (q === undefined) {
      reply.header("cache-control", cacheControl.revalidate);
      return sendRepresentation(request, reply, bare);
    }
    reply.header("cache-control", "no-store");
    const refused = await refusal(request);
    if (refused) {
      return reply
        .code(429)
        .header("retry-after", String(refused.wait))
        .send(page(fitting(shownWords(String(q))), refused.html));
    }
    const answer = outcome(q);
    reply.code(answer.status);
    const html = page(answer.words, answer.html);
    return sendRepresentation(request, reply, representation(html, { once: true }));
  }

  // Every address the built page has: its file's own too, or that would be sent unfilled.
  for (const address of [searchPath, `${searchPath}/`, `${searchPath}/index.html`]) {
    app.get(address, serve);
  }
}
