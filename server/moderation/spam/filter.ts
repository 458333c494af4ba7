import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { shownText } from "../../comments/markdown.ts";
import { contactsIn, heldContacts, withoutContacts } from "./contacts.ts";
import {
  createSpamModel,
  featuresOf,
  type ModelFile,
  type PackedModel,
  packModel,
  parseSealedExample,
  type SpamModel,
  scoreCounts,
  termsOf,
} from "./model.ts";
import type { ExampleSource, Screening, SpamStore, StoredExample } from "./store.ts";

/**
 * The spam filter a new comment meets once the rules let it through
 * (docs/decisions/025-spam-that-learns.md; docs/moderation.md, "The spam filter"):
 *
 * - the classifier's score: high, the comment is stored as spam, silently, as
 *   the honeypot does; middle, it waits for the owner;
 * - a product name or site the owner marked as spam three times, absent from
 *   the corpus: the comment waits for the owner;
 * - a link or contact details from a browser the site does not trust yet
 *   (HOLD_LINKS_FROM_NEW): the comment waits for the owner.
 *
 * The model is read from its file on the first comment, not at start-up, and
 * the owner's decisions (kept in the database, shared by every instance) are
 * added to it as they arrive: each comment first asks the database whether
 * there are new ones, a query on an index.
 */

export const defaultSpamModelFile = path.resolve(
  import.meta.dirname,
  "../../../build/spam-model.json",
);

/** How much one of the owner's decisions weighs against a comment of the corpus. */
const weights: Record<ExampleSource, number> = {
  approve: 3,
  publish: 3,
  spam: 3,
  ban: 3,
};

/** Marks of the owner that teach a new product name or site. */
const learnedAfter = 3;
/** Published link-free comments after which a browser is trusted. */
const trustedAfter = 3;

type Log = { warn(obj: object, msg: string): void };

/**
 * Model files read in this process, by path, with the size and time of the
 * version read: every filter of the process shares one parse until the file
 * changes. A model never changes its file (model.ts), and parsing its 0.75 MB
 * was a quarter of the CPU of an app that judged one comment, which each app
 * of the server tests paid again. Its counts are kept packed (`PackedCounts`).
 */
const readFiles = new Map<string, { version: string; file: PackedModel }>();

async function readModelFile(modelFile: string): Promise<PackedModel> {
  const { size, mtimeMs } = await stat(modelFile);
  const version = `${size}:${mtimeMs}`;
  const read = readFiles.get(modelFile);
  if (read?.version === version) return read.file;
  const file = packModel(JSON.parse(await readFile(modelFile, "utf8")) as ModelFile);
  readFiles.set(modelFile, { version, file });
  return file;
}

export type SpamFilter = ReturnType<typeof createSpamFilter>;

export function createSpamFilter({
  store,
  modelFile = defaultSpamModelFile,
  holdLinksFromNew,
  log,
}: {
  store: SpamStore;
  modelFile?: string;
  holdLinksFromNew: boolean;
  log?: Log;
}) {
  let base: PackedModel | null | undefined;
  let model: SpamModel | null = null;
  let loading: Promise<void> | null = null;
  let seen = { count: 0, lastId: 0 };
  // Terms of the owner's spam marks absent from the corpus, and in how many marks each is.
  let spamTerms = new Map<string, number>();
  let hamTerms = new Set<string>();

  async function loadBase(): Promise<PackedModel | null> {
    try {
      return await readModelFile(modelFile);
    } catch (error) {
      log?.warn(
        { err: error, file: modelFile },
        "the spam model could not be read (npm run build writes it): comments are judged by the rules and links alone",
      );
      return null;
    }
  }

  function inCorpus(word: string): boolean {
    return base?.features.get(`w:${word}`) !== undefined;
  }

  function apply(example: StoredExample) {
    // A comment marked as junk and since deleted or edited by its writer
    // teaches by what was kept of it; every other example, by its text.
    const sealed = example.content === "" ? parseSealedExample(example.features) : null;
    if (example.content === "" && !sealed) return;
    model?.learn(
      sealed?.features ?? featuresOf(example.content),
      example.label,
      weights[example.source],
    );
    const { words, sites } = sealed ?? termsOf(example.content);
    const terms = [
      ...words.filter((word) => !inCorpus(word)).map((word) => `word:${word}`),
      ...sites
        .filter((site) => !inCorpus(site.split(".")[0] ?? site))
        .map((site) => `site:${site}`),
    ];
    if (example.label === "ham") for (const term of terms) hamTerms.add(term);
    else if (example.source === "spam" || example.source === "ban") {
      for (const term of terms) spamTerms.set(term, (spamTerms.get(term) ?? 0) + 1);
    }
  }

  /** Brings this instance's model up to the owner's latest decisions. */
  async function sync() {
    if (base === undefined) base = await loadBase();
    const stamp = await store.examplesStamp();
    if (stamp.count === seen.count && stamp.lastId === seen.lastId && (model || !base)) return;
    let fresh = await store.examplesAfter(seen.lastId);
    if (seen.count + fresh.length !== stamp.count || (base && !model)) {
      // Some were taken back (a writer deleted their comment): start again from the file.
      model = base ? createSpamModel(base) : null;
      spamTerms = new Map();
      hamTerms = new Set();
      seen = { count: 0, lastId: 0 };
      fresh = await store.examplesAfter(0);
    }
    for (const example of fresh) apply(example);
    seen = { count: seen.count + fresh.length, lastId: fresh.at(-1)?.id ?? seen.lastId };
  }

  async function ready() {
    // One load at a time: comments arriving together wait for the same one.
    loading ??= sync().finally(() => {
      loading = null;
    });
    await loading;
  }

  function learnedTermsIn(text: string): string[] {
    const { words, sites } = termsOf(text);
    return [...words.map((word) => `word:${word}`), ...sites.map((site) => `site:${site}`)].filter(
      (term) => (spamTerms.get(term) ?? 0) >= learnedAfter && !hamTerms.has(term),
    );
  }

  async function trusted(visitorId: string | null): Promise<boolean> {
    if (visitorId === null) return false;
    if (await store.ownerApproved(visitorId)) return true;
    const texts = await store.publishedTexts(visitorId, 20);
    return texts.filter((text) => contactsIn(text).length === 0).length >= trustedAfter;
  }

  return {
    /**
     * What becomes of a new comment that passed the rules, by the filter alone,
     * read as the page shows it (character references and escapes resolved).
     */
    async screen(input: { content: string; visitorId: string | null }): Promise<Screening> {
      await ready();
      const content = shownText(input.content);
      const features = model ? featuresOf(content) : [];
      const score = model && scoreCounts(content) ? model.score(features) : null;
      const rounded = score === null ? null : Math.round(score * 1000) / 1000;
      const thresholds = base?.thresholds;
      if (score !== null && thresholds && score >= thresholds.spam) {
        return { outcome: "spam", reason: "score", score: rounded };
      }
      if (learnedTermsIn(content).length > 0) {
        return { outcome: "pending", reason: "learned", score: rounded };
      }
      if (score !== null && thresholds && score >= thresholds.hold) {
        return { outcome: "pending", reason: "score", score: rounded };
      }
      // The words the writer wrote: the host a link is on says nothing of them.
      const judged =
        model && score !== null
          ? {
              score,
              strongestWord: model.strongestWord(featuresOf(withoutContacts(content))),
            }
          : null;
      if (holdLinksFromNew && heldContacts(content, judged).length > 0) {
        if (!(await trusted(input.visitorId))) {
          return { outcome: "pending", reason: "stranger-link", score: rounded };
        }
      }
      return { outcome: "published", reason: null, score: rounded };
    },

    /**
     * Whether the classifier takes `text` for junk beyond doubt (at or above
     * its spam threshold), judged on its words alone: links and contact
     * details are taken out first, since an enquiry rightly carries them.
     * False when no model could be read.
     */
    async isJunk(text: string): Promise<boolean> {
      await ready();
      const words = withoutContacts(text);
      if (!model || !base || !scoreCounts(words)) return false;
      return model.score(featuresOf(words)) >= base.thresholds.spam;
    },

    /** Keeps what the filter made of a new comment. */
    record(commentId: number, screening: Screening): Promise<void> {
      return store.recordScreening(commentId, screening);
    },

    /** Why a comment was held or stored as spam, in the owner's words. */
    async explain(source: string, screening: Screening | undefined): Promise<string> {
      if (!screening?.reason) return "";
      const content = shownText(source);
      switch (screening.reason) {
        case "score":
          // The model is read on first use: a restarted server explains before it screens.
          await ready();
          return `The classifier scored it ${screening.score?.toFixed(2)} (held from ${base?.thresholds.hold ?? "?"}, spam from ${base?.thresholds.spam ?? "?"})`;
        case "learned": {
          await ready();
          const terms = learnedTermsIn(content).map((term) => term.split(":")[1]);
          return `It names ${terms.length > 0 ? terms.join(", ") : "a term"}, which you marked as spam ${learnedAfter} times or more`;
        }
        case "stranger-link": {
          const first = heldContacts(content, null)[0];
          return `A link or contact details from a browser not yet trusted${first ? `: ${first.text}` : ""}`;
        }
        case "honeypot":
          return "It filled in the form's hidden field, as programs do";
        case "moderation":
          return "The moderation setting holds it for your approval";
      }
    },

    /** Why each of these held or spam comments is there, by id (none for comments older than the filter). */
    async reasons(comments: { id: number; content: string }[]): Promise<Map<number, string>> {
      const screenings = await store.screeningOf(comments.map((c) => c.id));
      const reasons = new Map<number, string>();
      for (const comment of comments) {
        const why = await this.explain(comment.content, screenings.get(comment.id));
        if (why) reasons.set(comment.id, why);
      }
      return reasons;
    },

    /** The model's figures for `admin spam stats`, loading it if no comment has yet. */
    async describe(): Promise<{
      loaded: boolean;
      trainedOn: ModelFile["trainedOn"] | null;
      thresholds: ModelFile["thresholds"] | null;
      ownerExamples: number;
      learnedTerms: string[];
    }> {
      await ready();
      return {
        loaded: model !== null,
        trainedOn: base?.trainedOn ?? null,
        thresholds: base?.thresholds ?? null,
        ownerExamples: seen.count,
        learnedTerms: [...spamTerms]
          .filter(([term, count]) => count >= learnedAfter && !hamTerms.has(term))
          .map(([term]) => term.split(":")[1] ?? term),
      };
    },
  };
}
