import { stem as porter2 } from "porter2";
import { remembered } from "../lib/remembered.ts";

/**
 * How the assistant reads words, the same for the passages it indexes and the
 * questions it is asked: lower case, accents dropped, common words left out,
 * English endings taken off ("cooling", "cools" and "cooled" are one word),
 * and the engineering abbreviations the site uses written out, so that "EV"
 * finds "electric vehicle" and "design FMEA" finds "DFMEA".
 */

const stopWords = new Set(
  `a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing done down during each even ever few for from further
get gets got had has have having he her here hers him his how i if in into is it its itself just let me
more most much my no nor not now of off on once only or other our ours out over own please same she should
so some such tell than that the their them then there these they this those through to too under until up
upon us very was we were what when where which while who whom why will with would you your yours
explain know want wondering anyone someone something thing things way ways really actually
better best good clear hard big small step steps right new use using used make makes made
website websites site sites page pages article articles blog blogs become becomes became becoming
need needs needed today tomorrow yesterday now
inside outside around without within across along via`.split(/\s+/),
);

/** Abbreviations and their words, both ways: each side is indexed and searched as the other too. */
const synonyms: [string, string][] = [
  ["ev", "electric vehicle"],
  ["bev", "battery electric vehicle"],
  ["fc", "fuel cell"],
  ["fcev", "fuel cell electric vehicle"],
  ["pem", "proton exchange membrane"],
  ["pemfc", "proton exchange membrane fuel cell"],
  ["dfmea", "design fmea"],
  ["pfmea", "process fmea"],
  ["fmea", "failure mode effect analysis"],
  ["ice", "internal combustion engine"],
  ["ic", "internal combustion"],
  ["egr", "exhaust gas recirculation"],
  ["doc", "diesel oxidation catalyst"],
  ["dpf", "diesel particulate filter"],
  ["scr", "selective catalytic reduction"],
  ["nox", "nitrogen oxide"],
  ["gdt", "geometric dimensioning tolerancing"],
  ["rss", "root sum square"],
  ["gps", "global positioning system"],
  ["wifi", "wireless"],
  ["vba", "visual basic excel macro"],
  ["ai", "artificial intelligence"],
  ["ml", "machine learning"],
  ["llm", "large language model"],
  ["chatgpt", "llm large language model"],
  ["gpt", "llm large language model"],
  ["pde", "partial differential equation"],
  ["pinn", "physics informed neural network"],
  ["cad", "computer aided design"],
  ["cfd", "computational fluid dynamics"],
  ["fea", "finite element analysis"],
  ["crdi", "common rail fuel injection"],
  ["bs", "bharat stage"],
  ["voicebot", "voice bot"],
  ["chatbot", "chat bot"],
];

/**
 * Forms Porter2 does not join to their word, each read as that word, looked
 * up as written and as stemmed ("clogged" is "clog", read as "plug").
 */
const irregular = new Map([
  ["written", "write"],
  ["wrote", "write"],
  ["built", "build"],
  ["taught", "teach"],
  ["thought", "think"],
  ["bought", "buy"],
  ["chose", "choose"],
  ["chosen", "choose"],
  ["safety", "safe"],
  ["accuracy", "accurate"],
  // A question of danger is one of safety ("Is hydrogen dangerous in a crash?").
  ["danger", "safe"],
  ["unsafe", "safe"],
  // A filter that clogs is one whose channels are plugged ("Why does a DPF clog?").
  ["clog", "plug"],
  // Who patented a thing is who the reader asks invented it.
  ["patent", "invent"],
]);

/** Words whose ending is no ending: an engineer is not an engine. */
const whole = new Set(["engineer", "engineers", "engineering", "engineered"]);

/**
 * Nouns whose "-er" is part of the word, though what is left is a word of its own:
 * a router is no route, a corner no corn (found among the site's words and its
 * questions'). Only a word's meaning tells them from a leader, who leads: no rule
 * by length does, and no dictionary the project has (decision 097).
 */
const noDoer = new Set(["router", "charter", "corner", "quarter", "master", "proper", "number"]);

/** American "-er" for the British "-re" the site writes ("center" is "centre", not "cent"). */
const britishRe = /^(cent|fib|lit|theat|calib|sab|spect|lust|meag|somb)er(s?)$/;

/** Words kept stemmed and read: the index's hundred thousand words are a few thousand different ones. */
const cacheMax = 50_000;

/**
 * Porter2, Snowball's English stemmer, with the site's own readings: its
 * irregular forms and whole words above, American spellings as its British
 * ones ("optimize" is "optimise"), and a doer or a comparative as its word,
 * which Porter2 leaves (a starter starts, a leader leads, faster is fast), but
 * not an -eer (a career is no care), a doubled letter's (a matter is no mat),
 * one that would leave under four letters (an offer is not "of", power not "pow"),
 * one that would leave a common word (a shoulder is no "should") or a noun of
 * `noDoer`.
 */
const stem = remembered((word: string): string => {
  if (whole.has(word)) return "engineer";
  const british = word
    .replace(/(\p{L}{3})iz(e|es|ed|ing|er|ers|ation|ations)$/u, "$1is$2")
    .replace(britishRe, "$1re$2");
  const stemmed = porter2(irregular.get(british) ?? british);
  const read = irregular.get(stemmed) ?? stemmed;
  const doer =
    read.length >= 6 &&
    /[^e]er$/.test(read) &&
    !/(.)\1er$/.test(read) &&
    !noDoer.has(read) &&
    !stopWords.has(read.slice(0, -2));
  return doer ? read.slice(0, -2) : read;
}, cacheMax);

// Accents are folded off Latin, Greek and Cyrillic letters ("café" → "cafe"); in other
// scripts a mark is part of the letter (Devanagari's and Malayalam's vowel signs), so kept.
const folded = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{M}+/gu, "$1")
    .normalize("NFC")
    .replace(/[’']/g, "")
    .replace(/&/g, "");
const normalise = (text: string) => folded(text).toLowerCase();

/**
 * Abbreviations that are words too, read as abbreviations only in capitals: "ICE"
 * is the internal combustion engine, "ice" is ice ("one wheel on ice").
 */
const wordsToo = new Set(["ice", "doc"]);
const capitals = (word: string) => wordsToo.has(word.toLowerCase()) && word === word.toUpperCase();

/**
 * A text's words before any is left out or shortened ("Wi-Fi" → "wifi", "start-up" → "startup",
 * "GD&T" → "gdt"), without "stands for" ("What does DFMEA stand for?" asks what it is). A
 * phrasal verb that is a noun too is one word however written, and "back up" is not "back"
 * ("back up a phone", "a backup"). An abbreviation that is a word too keeps its capitals.
 */
function tokenize(text: string): string[] {
  return folded(text)
    .replace(/\b(wi)-(fi)\b/gi, "$1$2")
    .replace(/\b(stack|start|set)-(ups?)\b/gi, "$1$2")
    .replace(/\b(back)(?:s|ed|ing)?[- ](ups?)\b/gi, "$1$2")
    .replace(/\bstands? for\b/gi, " ")
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((word) => word !== "")
    .map((word) => (capitals(word) ? word.toUpperCase() : word.toLowerCase()));
}

const expansions = new Map<string, string[]>();
for (const [short, long] of synonyms) {
  expansions.set(wordsToo.has(short) ? short.toUpperCase() : short, long.split(" "));
}

/**
 * A word as indexed and searched: null for a common word, else its stem and those its
 * abbreviation stands for (one that is a word too only in capitals, and as itself).
 */
export const processTerm = remembered((term: string): string[] | null => {
  const read = capitals(term) ? folded(term) : normalise(term);
  if (stopWords.has(read) || read.length < 2) return null;
  // An abbreviation's plural is the abbreviation ("LLMs", "DPFs").
  const single = read.replace(/s$/, "");
  const word = !expansions.has(read) && expansions.has(single) ? single : read;
  const expanded = expansions.get(word);
  const out = [capitals(word) ? word : stem(word)];
  if (expanded) out.push(...expanded.filter((w) => !stopWords.has(w)).map(stem));
  return [...new Set(out)];
}, cacheMax);

/** The long forms by their first word's stem. */
const phrasesByFirst = new Map<string, { short: string; stems: string[] }[]>();
for (const [short, long] of synonyms) {
  const stems = long.split(" ").map(stem);
  if (stems.length < 2) continue;
  const first = stems[0] as string;
  phrasesByFirst.set(first, [...(phrasesByFirst.get(first) ?? []), { short, stems }]);
}

/** Units a figure is written with, whose one or two letters alone say nothing ("800 V"). */
const units = new Set("v kv w kw kwh wh a ah hz khz mhz ghz bar nm mm cm km kg rpm".split(" "));

/**
 * A text's words as MiniSearch takes them (before `processTerm`), with the
 * abbreviation of every long form it spells out added ("fuel cell" adds "fc"),
 * and every figure with its unit as one word ("800 V" adds "800v").
 */
export function tokenizeWithAbbreviations(text: string): string[] {
  const words = tokenize(text);
  const stems = words.map(stem);
  const added = new Set<string>();
  stems.forEach((first, at) => {
    for (const { short, stems: long } of phrasesByFirst.get(first) ?? []) {
      if (long.every((w, offset) => stems[at + offset] === w)) {
        added.add(wordsToo.has(short) ? short.toUpperCase() : short);
      }
    }
    const unit = words[at + 1];
    if (/^\d+$/.test(first) && unit && units.has(unit)) added.add(`${first}${unit}`);
  });
  return [...words, ...added];
}

/** Every indexed word of a text, each once. */
export function termsOf(text: string): Set<string> {
  return new Set(tokenizeWithAbbreviations(text).flatMap((word) => processTerm(word) ?? []));
}

/**
 * Of an abbreviation's long form, the words a question names: all of it, or its last
 * two, which say what it is ("language models" are large language models; "a slow
 * computer" names no computer aided design).
 */
function phraseNamed(long: string[], asked: Set<string>): string[] {
  if (long.every((term) => asked.has(term))) return long;
  const last = long.slice(-2);
  return long.length > 2 && last.every((term) => asked.has(term)) ? last : [];
}

/**
 * Of the terms of a question a passage matched, those it holds as the question
 * means them: not one held only inside an abbreviation whose phrase the
 * question does not name, whole or by its last two words (CAD is "computer aided
 * design", but a passage on CAD is not about "a slow computer"). `words`: the passage's words as indexed, each
 * its own stem first; `asked`: the question's terms.
 */
export function spelt(matched: string[], words: string[][], asked: Set<string>): Set<string> {
  const own = new Set(words.map((terms) => terms[0]));
  return new Set(
    matched.filter(
      (term) =>
        own.has(term) ||
        !words.some((terms) => terms.includes(term)) || // matched as a misspelling
        words.some((terms) => phraseNamed(terms.slice(1), asked).includes(term)),
    ),
  );
}
