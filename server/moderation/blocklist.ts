import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { foldLeet, foldLookAlikes } from "./fold.ts";

/**
 * The list of blocked words, links and domains (docs/decisions/010-moderation-and-spam.md):
 * the defaults below, plus the owner's file `DATA_DIR/blocklist.txt`, read
 * again whenever it changes on disk. One entry a line:
 *
 *   casino bonus          a word or phrase: whole words, any letter case and
 *                         look-alike spelling ("C@S1NO", "c a s i n o", Cyrillic letters)
 *   example.com           a domain: links to it and to its subdomains
 *   .xyz                  every domain ending so (a top-level domain)
 *   https://example.com/x a link: every link that starts so
 *   !casino               takes a default entry off the list
 *   # …                   a comment
 */

/** Scam and spam vocabulary seen in comment spam, as phrases specific enough not to catch readers. */
const defaultPhrases = [
  // pharmacy
  "viagra",
  "cialis",
  "levitra",
  "kamagra",
  "tramadol",
  "xanax",
  "oxycodone",
  "valium",
  "without prescription",
  "no prescription",
  "online pharmacy",
  "cheap pills",
  "diet pills",
  "weight loss pills",
  "male enhancement",
  "penis",
  "erectile",
  "keto pills",
  "cbd oil",
  "cbd gummies",
  // gambling
  "casino",
  "casinos",
  "online slots",
  "slot machine",
  "slot gacor",
  "slot online",
  "free spins",
  "sportsbook",
  "betting tips",
  "betting site",
  "sports betting",
  "bet now",
  "poker online",
  "roulette",
  "baccarat",
  "togel",
  // money, crypto and recovery scams
  "forex",
  "binary options",
  "trading signals",
  "crypto investment",
  "bitcoin investment",
  "investment platform",
  "guaranteed returns",
  "guaranteed profit",
  "profit weekly",
  "profit daily",
  "double your money",
  "double your bitcoin",
  "double your investment",
  "passive income",
  "earn money",
  "make money online",
  "money online",
  "per day from home",
  "work from home",
  "working from home earning",
  "financial freedom",
  "crypto recovery",
  "recover your lost",
  "recover lost funds",
  "recover lost crypto",
  "recover my lost",
  "recovery expert",
  "funds recovery",
  "hire a hacker",
  "hacker service",
  "ethical hacker",
  "cash app",
  "western union",
  "moneygram",
  "gift card",
  "claim your prize",
  "claim your reward",
  "you have won",
  "congratulations you",
  "lottery",
  "next of kin",
  "wire transfer",
  "usdt",
  "mining pool",
  "payday loan",
  "instant loan",
  "quick loan",
  "loan approval",
  "loan offer",
  "no credit check",
  "credit repair",
  "debt relief",
  // marketing and sales spam
  "seo services",
  "seo service",
  "seo company",
  "seo agency",
  "seo expert",
  "backlinks",
  "backlink",
  "buy followers",
  "followers and likes",
  "instagram followers",
  "youtube views",
  "buy likes",
  "website traffic",
  "guest post",
  "guest posting",
  "link building",
  "digital marketing agency",
  "essay writing",
  "write my essay",
  "assignment help",
  "homework help",
  "replica watches",
  "replica bags",
  "rolex",
  "louis vuitton",
  "ray ban",
  "discount code",
  "promo code",
  "coupon code",
  "limited offer",
  "limited time offer",
  "order now",
  "shop now",
  "click here",
  "click the link",
  "visit my website",
  "visit my site",
  "visit my page",
  "visit our website",
  "visit our site",
  "check out my blog",
  "check out my website",
  "check out my channel",
  "check out my profile",
  "check my profile",
  "my website",
  "my blog",
  "our website",
  "subscribe to my",
  "follow me on",
  "for more visit",
  "for more info visit",
  "for more details visit",
  "visit us at",
  "free followers",
  // a link written so that it does not work, to get past link filters
  "hxxp",
  "hxxps",
  // contact bait
  "whatsapp me",
  "whatsapp us",
  "whatsapp on",
  "telegram me",
  "on telegram",
  "dm me",
  "inbox me",
  "message me on",
  "text me on",
  "contact me on",
  "contact us on",
  "contact him",
  "contact her",
  "helpline number",
  "customer care number",
  "support number",
  "toll free",
  // adult and dating
  "porn",
  "porno",
  "xxx",
  "nude",
  "nudes",
  "sex chat",
  "sex video",
  "escorts",
  "escort service",
  "hot singles",
  "singles in your area",
  "dating site",
  "onlyfans",
  "webcam girls",
  // spells and miracles
  "spell caster",
  "love spell",
  "spell to bring",
  "ex lover back",
  "lost lover",
  "black magic",
  "herbal cure",
  "cure herpes",
  "dr okuta",
];

/** URL shorteners hide where a link leads; spam uses them to dodge domain lists. */
const defaultDomains = [
  "bit.ly",
  "bitly.com",
  "tinyurl.com",
  "t.co",
  "goo.gl",
  "ow.ly",
  "is.gd",
  "v.gd",
  "buff.ly",
  "cutt.ly",
  "rebrand.ly",
  "shorturl.at",
  "rb.gy",
  "tiny.cc",
  "bl.ink",
  "s.id",
  "t.ly",
  "lnkd.in",
  "shorte.st",
  "adf.ly",
  "bc.vc",
  "soo.gd",
  "clck.ru",
  "short.io",
  "tr.im",
  "t.me",
  "wa.me",
  "linktr.ee",
  "qrco.de",
  "urlz.fr",
  "x.gd",
  "2u.pm",
  "surl.li",
  "tinyu.rl",
  "u.to",
];

/** Top-level domains that spam uses far more than anyone else. */
const defaultSuffixes = [
  ".xyz",
  ".top",
  ".click",
  ".loan",
  ".loans",
  ".win",
  ".bid",
  ".icu",
  ".buzz",
  ".monster",
  ".rest",
  ".cfd",
  ".sbs",
  ".cyou",
  ".quest",
  ".work",
  ".casino",
  ".bet",
  ".poker",
  ".porn",
  ".sex",
  ".xxx",
  ".adult",
  ".tk",
  ".ml",
  ".ga",
  ".cf",
  ".gq",
  ".pw",
  ".su",
  ".zip",
  ".mov",
  ".kim",
  ".men",
  ".date",
  ".review",
  ".stream",
  ".download",
  ".racing",
  ".party",
  ".trade",
  ".webcam",
  ".accountant",
  ".faith",
  ".gdn",
  ".country",
  ".cam",
  ".hair",
  ".beauty",
  ".makeup",
  ".skin",
];

export type BlocklistEntries = {
  /** Folded phrases, as " word word " with spaces around, in three spellings. */
  phrases: { plain: string; leet: string }[];
  domains: string[];
  suffixes: string[];
  links: string[];
};

/** Words of folded text, separated by single spaces, with a space at each end. */
export function wordsOf(folded: string): string {
  return ` ${folded.replace(/[^\p{L}\p{N}]+/gu, " ").trim()} `;
}

/** A link without its scheme and "www.", lower case: how link entries compare. */
export function bareLink(link: string): string {
  return link
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, "")
    .replace(/^www\./, "");
}

function phraseOf(entry: string) {
  const plain = wordsOf(foldLookAlikes(entry));
  return { plain, leet: wordsOf(foldLeet(foldLookAlikes(entry))) };
}

function parse(lines: string[]): { add: string[]; remove: Set<string> } {
  const add: string[] = [];
  const remove = new Set<string>();
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("!")) remove.add(line.slice(1).trim().toLowerCase());
    else add.push(line);
  }
  return { add, remove };
}

function build(entries: string[]): BlocklistEntries {
  const result: BlocklistEntries = { phrases: [], domains: [], suffixes: [], links: [] };
  for (const entry of entries) {
    const lower = entry.toLowerCase();
    if (lower.includes("://")) result.links.push(bareLink(lower));
    else if (/^\.[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(lower)) result.suffixes.push(lower);
    else if (
      /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(lower) &&
      /[a-z]/.test(lower.split(".").pop() ?? "")
    ) {
      result.domains.push(lower.replace(/^www\./, ""));
    } else if (wordsOf(foldLookAlikes(entry)).trim() !== "") result.phrases.push(phraseOf(entry));
  }
  return result;
}

export const defaultBlocklist: readonly string[] = [
  ...defaultPhrases,
  ...defaultDomains,
  ...defaultSuffixes,
];

const fileHeader = `# Blocked words, links and domains for comments (README, "Spam defences").
# The site also blocks a built-in list (see the README); this file adds to it
# and is read again whenever it changes, without a restart. One entry a line:
#
#   casino bonus            a word or phrase (whole words, any case or look-alike spelling)
#   example.com             a domain: links to it and its subdomains
#   .xyz                    every domain ending so
#   https://example.com/x   every link that starts so
#   !casino                 takes an entry off the built-in list
#   # a comment
`;

/**
 * The defaults and the owner's file. Reading costs one stat() per comment;
 * the file is parsed again only when its modification time or size changes.
 * A file that cannot be read keeps the last list that could (and the
 * defaults), so a half-saved edit never opens the gates.
 */
export function createBlocklist(dataDir: string, log?: { warn(obj: object, msg: string): void }) {
  const file = path.resolve(dataDir, "blocklist.txt");
  try {
    writeFileSync(file, fileHeader, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      log?.warn({ err: error, file }, "the blocklist file could not be created");
    }
  }
  let stamp = "";
  let current = build([...defaultBlocklist]);

  function load() {
    let next: string;
    try {
      const stats = statSync(file);
      next = `${stats.mtimeMs}:${stats.size}`;
      if (next === stamp) return;
      const { add, remove } = parse(readFileSync(file, "utf8").split(/\r?\n/));
      current = build([
        ...defaultBlocklist.filter((entry) => !remove.has(entry.toLowerCase())),
        ...add,
      ]);
      stamp = next;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        if (stamp !== "missing") current = build([...defaultBlocklist]);
        stamp = "missing";
        return;
      }
      log?.warn(
        { err: error, file },
        "the blocklist file could not be read; keeping the last list",
      );
    }
  }

  return {
    file,
    entries(): BlocklistEntries {
      load();
      return current;
    },
  };
}

export type Blocklist = ReturnType<typeof createBlocklist>;
