import { contactsIn } from "./contacts.ts";
import { readText } from "./text.ts";

/**
 * The spam classifier (docs/decisions/025-spam-that-learns.md): naive Bayes
 * over the words of a comment, the letters inside its words (so "replicas",
 * "réplica" and an unseen product name ending in "-pills" share evidence), its
 * pairs of words, and how it was written (links, contact details, disguised
 * letters, scripts). Each feature counts once per comment.
 *
 * The counts are plain numbers, so the owner's decisions are added to (and
 * taken from) a trained model as they arrive, without training it again.
 */

export type Label = "spam" | "ham";

/** How the model is stored: counts of comments per label, and per feature. */
export type ModelFile = {
  version: 1;
  /** Weighted number of comments of each label: [spam, ham]. */
  docs: [number, number];
  /** Per feature, the weighted number of comments of each label that have it: [spam, ham]. */
  features: Record<string, [number, number]>;
  /** Scores at or above which a comment is held, and stored as spam. */
  thresholds: { hold: number; spam: number };
  /** What it was trained on, for `admin spam stats`. */
  trainedOn: { spam: number; ham: number; publicSpam: number; publicHam: number };
};

/**
 * A model file's counts per feature, packed for a process that keeps them for
 * as long as it runs (the server's filter): the features' names sorted and
 * joined into one string, where each starts in one typed array, and their two
 * counts in another. Parsed from JSON, the shipped model's 38,570 features were
 * as many keys of one object, each holding an array of two numbers: about 5 MB
 * of the server's heap, against under 1 MB packed. A name is found by binary
 * search, some sixteen comparisons for each of a new comment's features.
 */
class PackedCounts {
  readonly #names: string;
  readonly #starts: Uint32Array;
  readonly #counts: Float64Array;

  constructor(features: Readonly<Record<string, readonly [number, number]>>) {
    const names = Object.keys(features).sort();
    this.#starts = new Uint32Array(names.length + 1);
    this.#counts = new Float64Array(names.length * 2);
    let at = 0;
    names.forEach((name, i) => {
      this.#starts[i] = at;
      at += name.length;
      const [spam, ham] = features[name] ?? [0, 0];
      this.#counts[2 * i] = spam;
      this.#counts[2 * i + 1] = ham;
    });
    this.#starts[names.length] = at;
    this.#names = names.join("");
  }

  /** The name at `i` against `feature`, as `<` orders strings (by UTF-16 code unit). */
  #compare(i: number, feature: string): number {
    const start = this.#starts[i] ?? 0;
    const length = (this.#starts[i + 1] ?? 0) - start;
    const common = Math.min(length, feature.length);
    for (let k = 0; k < common; k++) {
      const difference = this.#names.charCodeAt(start + k) - feature.charCodeAt(k);
      if (difference !== 0) return difference;
    }
    return length - feature.length;
  }

  /** A feature's counts, [spam, ham]; undefined if the model does not know it. */
  get(feature: string): [number, number] | undefined {
    let low = 0;
    let high = this.#starts.length - 2;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = this.#compare(middle, feature);
      if (order === 0) return [this.#counts[2 * middle] ?? 0, this.#counts[2 * middle + 1] ?? 0];
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  /** Every feature with its counts, as a model file holds them. */
  toRecord(): Record<string, [number, number]> {
    const record: Record<string, [number, number]> = {};
    for (let i = 0; i + 1 < this.#starts.length; i++) {
      const name = this.#names.slice(this.#starts[i], this.#starts[i + 1]);
      record[name] = [this.#counts[2 * i] ?? 0, this.#counts[2 * i + 1] ?? 0];
    }
    return record;
  }
}

/** A model file with its counts packed (`PackedCounts`): what the server's filter keeps. */
export type PackedModel = Omit<ModelFile, "features"> & { features: PackedCounts };

export function packModel(file: ModelFile): PackedModel {
  return { ...file, features: new PackedCounts(file.features) };
}

/** Additive smoothing: a feature seen in no comment of a label still has some chance there. */
const alpha = 1;
/**
 * Added to the number of features a comment has when their evidence is
 * averaged: a comment of three words the model half knows (a thank-you in a
 * language the corpus has little of) stays near the middle, not at an edge.
 */
const shortTextDamping = 10;
/** How much one letter four-gram counts against a whole word. */
const gramWeight = 0.3;
/** No single feature may decide a comment alone. */
const maxEvidence = 4;

function shapeOf(word: string): string {
  if (/^[$₹€£]/.test(word) || /[$₹€£]$/.test(word)) return "#money";
  if (word.endsWith("%")) return "#percent";
  if (/^\p{N}+$/u.test(word)) return word.length >= 6 ? "#long-number" : "#number";
  return word;
}

/** The distinct features of a comment's text. */
export function featuresOf(text: string): string[] {
  const { words, signals } = readText(text);
  const features = new Set<string>();
  for (const signal of signals) features.add(`s:${signal}`);
  const contacts = contactsIn(text);
  for (const contact of contacts) features.add(`c:${contact.kind}`);
  if (contacts.length >= 2) features.add("c:several");
  const tokens = words.map(shapeOf);
  tokens.forEach((token, i) => {
    features.add(`w:${token}`);
    const next = tokens[i + 1];
    if (next !== undefined) features.add(`b:${token} ${next}`);
    if (token.startsWith("#")) return;
    const padded = [...`^${token.slice(0, 24)}$`];
    for (let at = 0; at + 4 <= padded.length; at++) {
      features.add(`g:${padded.slice(at, at + 4).join("")}`);
    }
  });
  const length = words.length;
  features.add(length <= 3 ? "l:short" : length <= 12 ? "l:medium" : "l:long");
  return [...features];
}

/** The registrable part of a host: "shop.glowpeak-deals.co.in" → "glowpeak-deals.co.in". */
function siteOf(host: string): string {
  const labels = host.toLowerCase().split(".").filter(Boolean);
  const keep =
    labels.length >= 3 && /^(?:co|com|net|org|ac|gov)$/.test(labels.at(-2) ?? "") ? 3 : 2;
  return labels.slice(-keep).join(".");
}

function hostOf(contact: string): string {
  return contact
    .replace(/^[a-z]+:\/\//i, "")
    .replace(/^[^@/]*@/, "")
    .replace(/^www\./i, "")
    .split(/[/?#:]/)[0]!;
}

/** The product names (long words) and sites a comment names. */
export function termsOf(text: string): { words: string[]; sites: string[] } {
  const words = readText(text).words.filter((word) => /^\p{L}{4,}$/u.test(word));
  const sites = contactsIn(text)
    .filter((contact) => contact.kind === "link" || contact.kind === "email")
    .map((contact) => siteOf(hostOf(contact.text)))
    .filter((site) => site.includes("."));
  return { words: [...new Set(words)], sites: [...new Set(sites)] };
}

/**
 * What the filter keeps of a comment marked as junk once its text is gone
 * (docs/decisions/025-spam-that-learns.md): its features, and the product
 * names and sites it named, without the text or its order.
 */
type SealedExample = { features: string[]; words: string[]; sites: string[] };

export function sealExample(text: string): SealedExample {
  return { features: featuresOf(text).sort(), ...termsOf(text) };
}

export function parseSealedExample(json: string | null): SealedExample | null {
  if (!json) return null;
  try {
    const value = JSON.parse(json) as Partial<SealedExample>;
    const strings = (list: unknown) =>
      Array.isArray(list) && list.every((item) => typeof item === "string");
    return strings(value.features) && strings(value.words) && strings(value.sites)
      ? (value as SealedExample)
      : null;
  } catch {
    return null;
  }
}

/**
 * Whether the score may hold a comment: not a few plain words with no link or
 * contact details ("Hello from a newcomer", "Great post"), which carry too
 * little evidence to make a reader wait, and too little payload to harm one.
 */
export function scoreCounts(text: string): boolean {
  const { words, signals } = readText(text);
  // Disguised letters are a payload of their own.
  return (
    words.length >= 5 ||
    signals.some((s) => !s.startsWith("script:")) ||
    contactsIn(text).length > 0
  );
}

export type SpamModel = ReturnType<typeof createSpamModel>;

export function createSpamModel(file: ModelFile | PackedModel) {
  // Learning changes the counts, never the file they came from: a feature's
  // counts are copied here when it is first learned. Copying all of them up
  // front cost a tenth of a second at every load, which the filter repeats
  // when an owner's decision is taken back (server/moderation/spam/filter.ts).
  const learned = new Map<string, [number, number]>();
  const { features } = file;
  const countOf = (feature: string): [number, number] | undefined =>
    learned.get(feature) ??
    (features instanceof PackedCounts
      ? features.get(feature)
      : Object.hasOwn(features, feature)
        ? features[feature]
        : undefined);
  const docs: [number, number] = [...file.docs];

  function evidence(feature: string): number | null {
    const count = countOf(feature);
    if (!count || count[0] + count[1] <= 0) return null;
    const spam = (count[0] + alpha) / (docs[0] + 2 * alpha);
    const ham = (count[1] + alpha) / (docs[1] + 2 * alpha);
    return Math.max(-maxEvidence, Math.min(maxEvidence, Math.log(spam / ham)));
  }

  return {
    thresholds: file.thresholds,
    trainedOn: file.trainedOn,

    /**
     * The chance, between 0 and 1, that a comment is junk. The evidence of
     * its features is averaged over the square root of their number (plus
     * the damping above), so a long comment is not judged by its length.
     */
    score(features: readonly string[]): number {
      let sum = 0;
      let known = 0;
      for (const feature of features) {
        const value = evidence(feature);
        if (value === null) continue;
        // The letters of one word give several four-grams, which say much the same.
        const weight = feature.startsWith("g:") ? gramWeight : 1;
        sum += value * weight;
        known += weight;
      }
      if (known === 0) return 0.5;
      return 1 / (1 + Math.exp(-sum / Math.sqrt(known + shortTextDamping)));
    },

    /** The strongest evidence for junk among the words of a comment: 0 when none leans that way. */
    strongestWord(features: readonly string[]): number {
      let strongest = 0;
      for (const feature of features) {
        if (!feature.startsWith("w:")) continue;
        strongest = Math.max(strongest, evidence(feature) ?? 0);
      }
      return strongest;
    },

    /** Counts one comment's features under a label, `weight` times; a negative weight takes it back. */
    learn(features: readonly string[], label: Label, weight = 1) {
      docs[label === "spam" ? 0 : 1] += weight;
      this.learnFeatures(features, label, weight);
    },

    /** Counts features under a label without counting a comment: evidence for words only. */
    learnFeatures(features: readonly string[], label: Label, weight = 1) {
      const index = label === "spam" ? 0 : 1;
      for (const feature of features) {
        let count = learned.get(feature);
        if (!count) {
          const [spam, ham] = countOf(feature) ?? [0, 0];
          count = [spam, ham];
          learned.set(feature, count);
        }
        count[index] += weight;
      }
    },

    toFile(): ModelFile {
      return {
        ...file,
        docs: [...docs],
        features: {
          ...(features instanceof PackedCounts ? features.toRecord() : features),
          ...Object.fromEntries(learned),
        },
      };
    },
  };
}
