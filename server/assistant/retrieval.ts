import path from "node:path";
import MiniSearch, { type Options, type SearchResult } from "minisearch";
import {
  askingAboutTheFirstCall,
  askingAboutTheSite,
  askingForHelp,
  askingForWriting,
  askingTheirStory,
  askingToReach,
  askingWhoTheyAre,
  helpOnly,
  leaning,
  shapeOf,
  toYou,
} from "./asking.ts";
import {
  coverageMin,
  furtherShare,
  fuzzyTermsMax,
  homeWeight,
  judgedMax,
  offeringWeight,
  otherPageShare,
  pairsRanked,
  pairWeight,
  scoreMin,
  seldomShare,
  serviceCoverageMin,
} from "./bounds.ts";
import type { Passage, ServiceRef } from "./passages.ts";
import { quoteOf } from "./quote.ts";
import { passageReader, wordsOf } from "./reading.ts";
import { processTerm, spelt, termsOf, tokenizeWithAbbreviations } from "./terms.ts";

/**
 * Finding the answer to a question among the site's passages (docs/product.md,
 * "Chat with Me"): a ranked keyword search (MiniSearch's BM25) over each
 * passage's page title, heading and text, with the words read as
 * `terms.ts` reads them. The best passage is the answer, quoted down to the
 * sentences that hold the question's words; up to two passages of other pages
 * are further sources. A question whose words the best passage mostly lacks is
 * not known: the assistant says so rather than quote something near.
 */

type Doc = { id: number; title: string; heading: string; text: string };

const indexOptions: Options<Doc> = {
  fields: ["title", "heading", "text"],
  idField: "id",
  tokenize: tokenizeWithAbbreviations,
  processTerm,
  searchOptions: { boost: { title: 2, heading: 1.5 } },
};

export type AssistantIndex = {
  passages: Passage[];
  find(question: string, previous?: string): Finding;
};

export type Finding =
  | {
      known: false;
      /** A question of how to reach the engineer: the enquiry form and a call are its answer. */
      contact?: true;
      /** ...of what a first call is: its terms, where the site takes bookings. */
      firstCall?: true;
    }
  | {
      known: true;
      /** The passage that answers, and the sentences of it that do. */
      best: Passage;
      quote: string;
      /** The best passage's page first, then up to two more pages. */
      sources: Passage[];
      /** The service the answer is about: its card and what to do next go with it. */
      service: ServiceRef | null;
      /**
       * The service's summary is the answer (what it is, its price, its length): a
       * question about the engineer's help asked in general terms, or one that the
       * service's opening passage answers. Otherwise the quote is.
       */
      summary: boolean;
    };

/**
 * Where the build writes the passages and their index: beside the pages, not
 * among them (the server reads it; it is not served).
 */
export const assistantIndexFile = (buildDir: string) => path.join(buildDir, "assistant-index.json");

/** The index and its passages as the build writes them (scripts/build.ts). */
export function serializeIndex(passages: Passage[]): string {
  const search = new MiniSearch<Doc>(indexOptions);
  search.addAll(passages.map(docOf));
  return JSON.stringify({ passages, index: search });
}

const docOf = (passage: Passage): Doc => ({
  id: passage.id,
  title: passage.title,
  heading: passage.heading ?? "",
  text: passage.text,
});

export function loadIndex(json: string): AssistantIndex {
  const { passages, index } = JSON.parse(json) as { passages: Passage[]; index: unknown };
  const search = MiniSearch.loadJSON<Doc>(JSON.stringify(index), indexOptions);
  const services = new Set(passages.filter((p) => p.service).map((p) => p.id));
  // What the engineer offers and who they are: answers to a question put to them.
  const theirs = new Set(passages.filter((p) => p.service || p.page === "/about").map((p) => p.id));
  const home = new Set(passages.filter((p) => p.page === "/").map((p) => p.id));
  // The first passage of About (its header), and of each service (its summary and terms).
  const aboutOpening = passages.find((passage) => passage.page === "/about");
  // About's part on the site itself ("Why this site"), where the owner wrote one.
  const aboutTheSite = passages.find(
    (passage) =>
      passage.page === "/about" && /\b(site|website|blog)\b/i.test(passage.heading ?? ""),
  );
  const openings = new Map<string, Passage>();
  for (const passage of passages) {
    if (passage.service && !openings.has(passage.service.id)) {
      openings.set(passage.service.id, passage);
    }
  }

  const reading = passageReader(passages);
  const passageWords = reading.words;

  function ranked(
    query: string,
    asked: Set<string>,
    onlyServices: boolean,
    pairs: [string[], string[]][],
  ): SearchResult[] {
    const results = search.search(query, {
      fuzzy: (term, at) => (term.length >= 7 && at < fuzzyTermsMax ? 0.15 : false),
      maxFuzzy: 2,
      prefix: false,
      // The words of the question itself weigh more than those it leans on.
      boostTerm: (term) => (asked.has(term) ? 1 : 0.45),
      ...(onlyServices ? { filter: (result: SearchResult) => services.has(result.id) } : {}),
    });
    const ofYou = toYou.test(query) && !askingForWriting.test(query);
    // Words asked side by side ("pumping loss") weigh more where they stand side by side,
    // a service's passages less when the question is not put to the engineer, and
    // the home page's less than the pieces it points to:
    // the best few passages ranked again with that.
    const head = results.slice(0, pairsRanked).map((result) => ({
      ...result,
      score:
        result.score *
        (1 + pairWeight * reading.pairsHeld(pairs, result.id)) *
        (ofYou || !theirs.has(result.id) ? 1 : offeringWeight) *
        (home.has(result.id) ? homeWeight : 1),
    }));
    return [...head.sort((a, b) => b.score - a.score), ...results.slice(pairsRanked)];
  }

  // How many passages hold each word: its rarity.
  const holding = new Map<string, number>();
  for (const passage of passages) {
    for (const term of termsOf(`${passage.title} ${passage.heading ?? ""} ${passage.text}`)) {
      holding.set(term, (holding.get(term) ?? 0) + 1);
    }
  }
  const rarity = (terms: string[]) =>
    Math.max(
      ...terms.map((term) => Math.log(1 + passages.length / (1 + (holding.get(term) ?? 0)))),
    );
  /** A word the site uses, but seldom: a question's subject, where it is asked. */
  const seldom = (terms: string[]) =>
    terms.some((term) => {
      const count = holding.get(term) ?? 0;
      return count > 0 && count <= passages.length * seldomShare;
    });
  /** Whether the passage holds a word it matched more than in passing. */
  const dwellsOn = (top: SearchResult, terms = top.terms) => reading.dwellsOn(top.id, terms);

  /**
   * A short question may lean on the one before ("silk?") or start a subject of its
   * own ("What is a DPF?" after one about pressure cookers): asked as a follow-up
   * first, and when that finds nothing, on its own. One that says it leans ("and
   * for silk?") is only ever a follow-up.
   */
  function find(question: string, previous?: string): Finding {
    if (askingAboutTheFirstCall.test(question)) {
      return { known: false, contact: true, firstCall: true };
    }
    if (askingToReach.test(question)) return { known: false, contact: true };
    if (askingWhoTheyAre.test(question)) return fromAbout(question, false);
    if (askingAboutTheSite.test(question)) return fromAbout(question, true, aboutTheSite);
    if (askingTheirStory.test(question)) return fromAbout(question, true);
    const finding = findAfter(question, previous);
    if (finding.known || !previous || leaning.test(question)) return finding;
    return findAfter(question);
  }

  /**
   * About's first passage, or (`searched`) the one that holds most of the question's
   * words, or the part `chosen` for it.
   */
  function fromAbout(question: string, searched: boolean, chosen?: Passage): Finding {
    if (!aboutOpening) return { known: false };
    const asked = new Set(wordsOf(question).flat());
    const top =
      searched && !chosen
        ? search.search(question, {
            prefix: false,
            filter: (result) => passages[result.id]?.page === "/about",
          })[0]
        : undefined;
    const best = chosen ?? (top ? (passages[top.id] as Passage) : aboutOpening);
    return {
      known: true,
      best,
      quote: quoteOf(best.text, asked, new Set()),
      sources: [best],
      service: null,
      summary: false,
    };
  }

  /**
   * Whether a service's summary answers: asked about in general terms (its price,
   * its length), by its opening passage, or by words its opening passage holds
   * every one of ("what is DFMEA?"), rather than by a part of its page alone.
   */
  function summarised(service: ServiceRef | null, best: Passage, askedWords: string[][]) {
    if (service === null) return false;
    if (best.heading === null) return true;
    if (askedWords.some(helpOnly)) return true;
    const opening = openings.get(service.id);
    if (!opening) return false;
    const held = new Set(passageWords(opening.id).flat());
    return askedWords.every((terms) => terms.some((term) => held.has(term)));
  }

  function findAfter(question: string, previous?: string): Finding {
    const askedWords = wordsOf(question);
    const asked = new Set(askedWords.flat());
    const follows = Boolean(previous) && (leaning.test(question) || askedWords.length <= 2);
    const beforeWords = follows && previous ? wordsOf(previous) : [];
    const before = new Set(beforeWords.flat());
    if (asked.size === 0) return { known: false };
    const query = follows ? `${question} ${previous}` : question;
    const topic = beforeWords.filter((terms) => !terms.some((t) => asked.has(t)));
    const forHelp = askingForHelp.test(question) || (follows && askingForHelp.test(previous ?? ""));
    // What the question names, asks about whole or asks to do without, and the names it
    // gives (asking.ts); a follow-up's words lean on the one before, so it names nothing alone.
    const { named, thing, owned, working, lacking, why, names } = shapeOf(
      topic.length > 0 ? "" : question,
    );
    const ownTerms = new Set(owned.flat());
    const askedOrBefore = new Set([...asked, ...before]);

    // The first of the best passages that answers: one that scores enough and holds
    // enough of the question's words ("How accurate is GPS?" is answered by GPS's
    // passage on accuracy, not by the three that say "GPS" more often). A follow-up
    // is judged by its best alone: further down, some passage holds a word of each
    // ("What is a DPF?" after the pressure cooker: an injection passage's "pressure").
    const judge = (results: SearchResult[], enough = coverageMin, forService = false) => {
      const judged = results.slice(0, topic.length > 0 ? 1 : judgedMax);
      const top = judged.find(
        (result) => result.score >= scoreMin && answers(result, enough, forService),
      );
      if (!top) return null;
      const page = passages[top.id]?.page;
      const lead = judged.find((result) => passages[result.id]?.page !== page);
      return forService || !lead || lead.score * otherPageShare <= top.score ? top : null;
    };

    const answers = (top: SearchResult, enough: number, forService: boolean) => {
      const found = spelt(top.queryTerms, passageWords(top.id), askedOrBefore);
      const holds = (terms: string[]) => terms.some((term) => found.has(term));
      // The share of `words` held, each weighed by its rarity.
      const share = (words: string[][]) => {
        let all = 0;
        let held = 0;
        for (const terms of words) {
          const weight = rarity(terms);
          all += weight;
          if (holds(terms)) held += weight;
        }
        return all > 0 ? held / all : 0;
      };
      // A word of the subject, not only of asking for help ("price", "cost").
      const subject = (words: string[][]) => words.filter((terms) => !helpOnly(terms));
      const asks = subject(askedWords);
      // A follow-up asking only that ("how much does it cost?") is about the service
      // the question before it named.
      if (asks.length === 0) return forService && share(subject(topic)) >= enough;
      // A name the question gives is what it asks about ("…in Japanese?", "…in German?").
      if (!asks.some(holds) || !names.every(holds)) return false;
      // A follow-up keeps to its topic: some word of the question it leans on is there too.
      if (topic.length > 0 && !topic.some(holds)) return false;
      // A service's passage answers the asking itself (its price, its length): of a
      // question about the engineer's help, only the words of its subject count.
      if (share(forService ? asks : askedWords) < enough) return false;
      if (forService) return true;
      // "What is X?" asks for X whole, "How do I V X?" for V and X, "Why does my X…?"
      // for the reader's X where the site seldom names it: a passage that lacks a word
      // of it the site uses is about something else ("What is the speed of light in
      // glass?": GPS's speed of light; "How long should I boil an egg?": Garuda's eggs;
      // "Why does my phone get hot?": an EV battery's heat). A word the site never uses
      // may be said otherwise, and is weighed in the share above.
      const lacks = (terms: string[]) => !holds(terms) && terms.some((term) => holding.has(term));
      if (named.some(lacks) || owned.some((terms) => seldom(terms) && lacks(terms))) return false;
      // ...and enough of the thing X, a word the site never uses weighing most: "How do
      // I make a pie chart?" asks for a pie chart, not a chart (V may be said otherwise:
      // a quarrel resolved is one settled).
      if (thing.length > 0 && share(thing) < enough) return false;
      // ...and something of the reader's X: not X alone ("Why does my laptop get hot?":
      // Wi-Fi's laptop).
      if (
        owned.length > 0 &&
        !asks.some((terms) => holds(terms) && !terms.some((term) => ownTerms.has(term)))
      ) {
        return false;
      }
      // "How do I V without X?" is not answered by a passage on X that never says
      // "without" ("How do I cook rice without a pressure cooker?": the cooker's rice).
      const onLacking = lacking.filter((terms) => terms.some((term) => holding.has(term)));
      if (onLacking.length > 0 && reading.onAndNotWithout(top.id, onLacking)) return false;
      // "How does X work?" asks for X explained: each word of X in the passage's title or
      // heading, in two of its sentences or defined where it is named, not named once in
      // passing ("How do magnets work?": a motor's permanent magnets); the thing itself,
      // X's last word, in its title or heading or defined, not only named twice ("How does
      // an electric car charger work?": an EV's energy "from the charger").
      const explains = (terms: string[], thing = false) =>
        !terms.some((term) => holding.has(term)) ||
        reading.about(top.id, terms) ||
        reading.defines(top.id, terms) ||
        (!thing && dwellsOn(top, terms));
      if (!working.every((terms, at) => explains(terms, at === working.length - 1))) return false;
      // "Why does X…?" asks about X: where the site seldom names X, a passage that names
      // it once, in passing, and lacks a word of the question the site seldom or never
      // uses does not answer ("Why does ice make roads slippery?": a wheel on ice; "Why
      // do golf balls have dimples?" is answered where golf is named, "Why does dal take
      // longer…?" where it "takes forever").
      const rare = (terms: string[]) => seldom(terms) || !terms.some((term) => holding.has(term));
      if (
        why.some((terms) => seldom(terms) && holds(terms) && !explains(terms)) &&
        asks.some((terms) => !holds(terms) && rare(terms))
      ) {
        return false;
      }
      // A passage that names a word of the question once, in passing, does not answer
      // it when the question's subject is another word the site seldom uses, which
      // this passage lacks ("What is the capital of France?": the differential's
      // patent in France; "Which laptop should I buy?": Wi-Fi's laptop), unless it
      // holds all the question names ("How do I repair a relationship…with a colleague?").
      return (
        dwellsOn(top) ||
        (named.length > 0 && named.every(holds)) ||
        !asks.some((terms) => !holds(terms) && seldom(terms))
      );
    };

    const pairs = askedWords
      .slice(1)
      .map((terms, at): [string[], string[]] => [askedWords[at] as string[], terms]);
    let results = forHelp ? ranked(query, asked, true, pairs) : [];
    let top = judge(results, serviceCoverageMin, true);
    const service = top ? (passages[top.id]?.service ?? null) : null;
    if (!top) {
      results = ranked(query, asked, false, pairs);
      top = judge(results);
    }
    if (!top) return { known: false };
    const best = passages[top.id] as Passage;
    const sources = [best];
    // Further pages hold enough of the question too: not those that only scored on a
    // common word of it above the answer ("work" of "Do you work with startups?").
    const forService = service !== null;
    for (const result of results) {
      if (sources.length >= 3 || result.score < top.score * furtherShare) break;
      if (result === top) continue;
      if (!answers(result, forService ? serviceCoverageMin : coverageMin, forService)) continue;
      const passage = passages[result.id] as Passage;
      if (!sources.some((source) => source.page === passage.page)) sources.push(passage);
    }
    return {
      known: true,
      best,
      quote: quoteOf(best.text, asked, before),
      sources,
      service: service ?? best.service,
      summary: summarised(service ?? best.service, best, askedWords),
    };
  }

  return { passages, find };
}
