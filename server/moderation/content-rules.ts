import { type BlocklistEntries, bareLink, wordsOf } from "./blocklist.ts";
import { foldLeet, foldLookAlikes } from "./fold.ts";
import { onSite, siteLists } from "./site-lists.ts";

/**
 * What a comment's text must not be (docs/decisions/010-moderation-and-spam.md).
 * Each refusal says what to change: a person who trips one can fix the
 * comment; a bot learns nothing docs/moderation.md does not say.
 */
export type ContentRefusal = {
  code: "too_many_links" | "blocked_content";
  message: string;
};

const messages = {
  markup:
    "Links written as HTML or BBCode are not accepted. Write a link as [its text](https://…), or paste the address on its own.",
  lookAlike:
    "This comment links to an address written with look-alike letters or imitating a well-known site; it was not posted.",
  blockedLink:
    "This comment links to a site this blog does not accept (link shorteners and addresses common in spam); it was not posted.",
  blockedWords:
    "This comment contains words this blog blocks because spam uses them; please rephrase it.",
  contact:
    "For readers' safety, comments cannot carry phone numbers or email addresses; please leave them out.",
  linkDrop:
    "A short compliment with a link to another site is how link spam looks, so it was not posted. Say what the link adds, or leave it out.",
  stuffing:
    "This reads like a list of keywords rather than a comment; please write it in sentences.",
} as const;

/** Top-level domains a bare address ("example.com", no http://) is recognised by. */
const bareTlds = siteLists.bareTlds.join("|");

const schemeLink = /\b(?:https?|hxxps?|ftp):\/\/[^\s<>"'`{}|\\^]+/giu;
const wwwLink = /\bwww\.[^\s<>"'`{}|\\^]+/giu;
const bareDomain = new RegExp(
  `(?<![\\p{L}\\p{N}@._-])(?:[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]{0,61}[\\p{L}\\p{N}])?\\.)+(?:${bareTlds})(?![\\p{L}\\p{N}-])(?:[/?#][^\\s<>"'\`]*)?`,
  "giu",
);

/** "example dot com", "example[.]com", "example (dot) com": spam spelling a link so it is not one. */
function undisguise(text: string): string {
  return text
    .replace(/(?<!\s)\s*[[({]\s*(?:dot|\.)\s*[\])}]\s*/giu, ".")
    .replace(new RegExp(`(?<!\\s)\\s+dot\\s+(?=(?:${bareTlds})\\b)`, "giu"), ".");
}

const htmlAnchor = /<\s*a\b[^<>]*\bhref\s*=/i;
const bbcodeLink = /\[\s*(?:url|img)\b[^[\]]*\]|\[\s*link\s*=/i;
const markdownReference = /^[^\S\n\r\u2028\u2029]*\[[^\]\n]+\]:\s*(?:[a-z]+:\/\/|www\.)/im;

/** Degrees that read as a bare address: B.Tech, M.Tech, B.Com, M.Com. */
const degree = /^[BM]\.(?:Tech|Com)$/i;

/** The links in a comment, as written (scheme, www. or bare domain), each once. */
export function linksIn(text: string): string[] {
  const plain = undisguise(text);
  const found = new Set<string>();
  let rest = plain;
  for (const pattern of [schemeLink, wwwLink, bareDomain]) {
    for (const match of rest.matchAll(pattern)) found.add(match[0].replace(/[.,;:!?)\]]+$/u, ""));
    rest = rest.replace(pattern, " ");
  }
  return [...found].filter((link) => !degree.test(link));
}

export function hostOf(link: string): string {
  return bareLink(link.replace(/^hxxp/i, "http"))
    .split(/[/?#]/)[0]!
    .replace(/:\d+$/, "")
    .replace(/^[^@]*@/, "")
    .replace(/\.$/, "");
}

/** Sites whose names phishing imitates. */
const brands = siteLists.brands.map((brand) => ({ brand, key: foldLeet(brand) }));

/**
 * A host that is not written in plain ASCII letters (Punycode included), or
 * that carries a brand's name, in look-alike spelling or among other words,
 * without being that brand's own domain ("paypal.com", "en.wikipedia.org",
 * "amazon.co.uk" are; "paypa1.com", "google.com-login.top" are not).
 */
export function imitates(host: string): boolean {
  if (!/^[a-z0-9.-]+$/.test(host) || host.split(".").some((label) => label.startsWith("xn--"))) {
    return true;
  }
  const labels = host.split(".");
  const folded = foldLeet(host);
  for (const { brand, key } of brands) {
    if (!folded.includes(key)) continue;
    const at = labels.indexOf(brand);
    const own = at >= 0 && labels.slice(at + 1).every((label) => label.length <= 3);
    if (!own) return true;
  }
  return false;
}

export function blockedLink(link: string, host: string, list: BlocklistEntries): boolean {
  const bare = bareLink(link.replace(/^hxxp/i, "http"));
  return (
    list.domains.some((domain) => host === domain || host.endsWith(`.${domain}`)) ||
    list.suffixes.some((suffix) => host.endsWith(suffix)) ||
    list.links.some((prefix) => bare.startsWith(prefix))
  );
}

/**
 * Sites readers cite: a link to one of them is never taken for link spam.
 * Entries match the domain and its subdomains; ".gov" and the like, any
 * domain ending so.
 */
const referenceSites = siteLists.referenceSites;

export function isReference(host: string): boolean {
  return onSite(host, referenceSites);
}

/** Praise that says nothing about the post: what link spam wraps its link in. */
const emptyPraise =
  /\b(?:nice|great|good|awesome|amazing|wonderful|excellent|informative|helpful|useful|interesting|fantastic|superb|brilliant)\s+(?:post|article|blog|content|write-?up|information|info|read|site|work|share|sharing|stuff)\b|\bthanks?\s+(?:you\s+)?for\s+(?:sharing|the\s+(?:post|article|info))|\bkeep\s+(?:it\s+up|up\s+the\s+good\s+work|posting)|\bvery\s+(?:informative|helpful|useful)|\bwell\s+written/iu;

/** Few words beyond the links themselves: a compliment, not a discussion. */
function isLinkDrop(text: string, hosts: string[]): boolean {
  if (!hosts.some((host) => !isReference(host))) return false;
  if (!emptyPraise.test(text)) return false;
  let rest = undisguise(text);
  for (const pattern of [schemeLink, wwwLink, bareDomain]) rest = rest.replace(pattern, " ");
  return contentWords(rest).length <= 15;
}

/** Runs of single letters joined: "c a s i n o" and "c.a.s.i.n.o" read "casino". */
function squashSpelledOut(words: string): string {
  return words.replace(/(?:(?<= )\p{L} ){3,}/gu, (run) => `${run.replace(/ /g, "")} `);
}

/**
 * The runs of single letters in words, joined: "v i a g r a n o w" gives
 * "viagranow". A blocked word spelled out and run into the next one is found
 * inside such a run, where no reader's words are.
 */
function spelledOutRuns(words: string): string[] {
  return [...words.matchAll(/(?:(?<= )\p{L} ){3,}/gu)].map((match) => match[0].replace(/ /g, ""));
}

/**
 * Letters joined across what splits a word without ending it: a hyphen, an
 * underscore or a line break ("ca-si-no", "ca_si_no", "cas↵ino" read "casino").
 */
const betweenLetters = /(?<=\p{L})[-_‐‑–—\s]+(?=\p{L})/gu;
const splitsInside = /[-_‐‑–—\n]/;
const joinedWords = (folded: string) =>
  folded.replace(betweenLetters, (run) => (splitsInside.test(run) ? "" : run));

export function hasBlockedWords(text: string, list: BlocklistEntries): boolean {
  const folded = foldLookAlikes(text);
  const plain = wordsOf(folded);
  const joined = wordsOf(joinedWords(folded));
  const squashed = squashSpelledOut(plain);
  const leet = wordsOf(foldLeet(folded));
  const leetSquashed = squashSpelledOut(leet);
  const runs = spelledOutRuns(plain);
  const leetRuns = spelledOutRuns(leet);
  return list.phrases.some((phrase) => {
    if (
      plain.includes(phrase.plain) ||
      joined.includes(phrase.plain) ||
      squashed.includes(phrase.plain) ||
      leet.includes(phrase.leet) ||
      leetSquashed.includes(phrase.leet)
    ) {
      return true;
    }
    const compact = phrase.plain.replace(/ /g, "");
    const compactLeet = phrase.leet.replace(/ /g, "");
    return (
      compact.length >= 4 &&
      (runs.some((run) => run.includes(compact)) ||
        leetRuns.some((run) => run.includes(compactLeet)))
    );
  });
}

const email =
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+\s*(?:@|\(at\)|\[at\])\s*[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/iu;
/** Words that put a number up as something to call. */
const contactWord =
  /\b(?:call|calls|calling|phone|tel|telephone|whats\s?app|wa|contact|helpline|hotline|care|dial|text|sms|mobile|cell|reach|support|telegram|viber|signal)\b/iu;
const digitRun = /\+?\(?\d[\d\s().-]{6,22}\d/gu;

function hasPhoneNumber(text: string): boolean {
  for (const match of text.matchAll(digitRun)) {
    const run = match[0];
    const digits = run.replace(/\D/g, "");
    if (digits.length < 8 || digits.length > 15) continue;
    // A date and time ("2024-11-23 10:30") is not a phone number.
    if (/\d{4}-\d{1,2}-\d{1,2}/.test(run)) continue;
    const groups = run.split(/[\s().-]+/).filter(Boolean).length;
    if (run.startsWith("+") && digits.length >= 9) return true;
    // "1-800-123-4567", "(888) 555 0199": a number written in groups as phones are.
    if (digits.length >= 10 && groups >= 3 && !/\d\.\d/.test(run)) return true;
    const before = text.slice(Math.max(0, (match.index ?? 0) - 40), match.index);
    if (digits.length >= 10 && contactWord.test(before)) return true;
  }
  return false;
}

const stopWords = new Set(
  "the a an and or but of to in on at for with is are was were be been it this that these those i you he she we they my your our their its as by from not no so if then than too very can could would should will just do does did have has had what why how when where which who whom there here about into over under more most some any all".split(
    " ",
  ),
);

/** The words of a text that say something: folded, longer than a letter, no stop words. */
function contentWords(text: string): string[] {
  return wordsOf(foldLookAlikes(text))
    .trim()
    .split(" ")
    .filter((word) => word.length > 1 && !stopWords.has(word));
}

/** The same few words over and over, or a row of hashtags: text written for search engines. */
export function isKeywordStuffing(text: string): boolean {
  if ((text.match(/(?:^|\s)#[\p{L}\p{N}_]+/gu) ?? []).length >= 5) return true;
  const content = contentWords(text);
  if (content.length < 8) return false;
  const counts = new Map<string, number>();
  for (const word of content) counts.set(word, (counts.get(word) ?? 0) + 1);
  const top = Math.max(...counts.values());
  if (top >= 4 && top / content.length >= 0.2) return true;
  return content.length >= 12 && counts.size / content.length < 0.4;
}

/** The first rule a comment's text breaks, or null. */
export function checkContent(
  text: string,
  { maxLinks, blocklist }: { maxLinks: number; blocklist: BlocklistEntries },
): ContentRefusal | null {
  if (htmlAnchor.test(text) || bbcodeLink.test(text) || markdownReference.test(text)) {
    return { code: "blocked_content", message: messages.markup };
  }
  const links = linksIn(text);
  if (links.length > maxLinks) {
    return {
      code: "too_many_links",
      message:
        maxLinks === 0
          ? "Comments cannot carry links."
          : `A comment can carry at most ${maxLinks} link${maxLinks === 1 ? "" : "s"}; this one has ${links.length}.`,
    };
  }
  for (const link of links) {
    const host = hostOf(link);
    if (imitates(host)) return { code: "blocked_content", message: messages.lookAlike };
    if (blockedLink(link, host, blocklist)) {
      return { code: "blocked_content", message: messages.blockedLink };
    }
  }
  if (isLinkDrop(text, links.map(hostOf))) {
    return { code: "blocked_content", message: messages.linkDrop };
  }
  if (hasBlockedWords(text, blocklist)) {
    return { code: "blocked_content", message: messages.blockedWords };
  }
  if (email.test(text) || hasPhoneNumber(text)) {
    return { code: "blocked_content", message: messages.contact };
  }
  if (isKeywordStuffing(text)) return { code: "blocked_content", message: messages.stuffing };
  return null;
}

/**
 * Why a name a reader typed breaks the text rules, or null: it shows under every
 * comment, in the owner's mails and in reply mails to other readers, so a link,
 * contact details or a blocked word in it would pass where a comment's would not.
 */
export function checkName(name: string, blocklist: BlocklistEntries): string | null {
  if (linksIn(name).length > 0 || htmlAnchor.test(name) || bbcodeLink.test(name)) {
    return "Names cannot hold a link or a web address; please choose another name.";
  }
  if (email.test(name) || hasPhoneNumber(name)) {
    return "Names cannot hold phone numbers or email addresses; please choose another name.";
  }
  if (hasBlockedWords(name, blocklist)) {
    return "This name contains words this blog blocks because spam uses them; please choose another name.";
  }
  return null;
}
