import { setImmediate as nextTurn } from "node:timers/promises";
import { cutWhole } from "../../contract/text.ts";
import { onFirstUse } from "../lib/on-first-use.ts";
import { unattributed } from "./day-figures.ts";

/**
 * What a view says about where its reader came from, without storing who
 * they are: the source from the referrer or the link's utm_ parameters, the
 * country from the browser's time zone (no address lookup), the device class
 * from the user agent (which is then forgotten).
 */

type Origin = { source: string; medium: string; campaign: string };

/** Host names (or their last labels) of search engines, by the name the owner sees. */
const searchEngines: [RegExp, string][] = [
  [/(^|\.)google\.[a-z.]+$/, "Google"],
  [/(^|\.)bing\.com$/, "Bing"],
  [/(^|\.)duckduckgo\.com$/, "DuckDuckGo"],
  [/(^|\.)search\.yahoo\.[a-z.]+$/, "Yahoo"],
  [/(^|\.)ecosia\.org$/, "Ecosia"],
  [/(^|\.)qwant\.com$/, "Qwant"],
  [/(^|\.)yandex\.[a-z.]+$/, "Yandex"],
  [/(^|\.)baidu\.com$/, "Baidu"],
  [/(^|\.)search\.brave\.com$/, "Brave Search"],
  [/(^|\.)startpage\.com$/, "Startpage"],
  [/(^|\.)kagi\.com$/, "Kagi"],
  [/(^|\.)perplexity\.ai$/, "Perplexity"],
  [/(^|\.)chatgpt\.com$/, "ChatGPT"],
];

const social: [RegExp, string][] = [
  [/(^|\.)linkedin\.com$|(^|\.)lnkd\.in$/, "LinkedIn"],
  [/(^|\.)(twitter\.com|x\.com|t\.co)$/, "X (Twitter)"],
  [/(^|\.)facebook\.com$|(^|\.)fb\.me$/, "Facebook"],
  [/(^|\.)reddit\.com$/, "Reddit"],
  [/(^|\.)news\.ycombinator\.com$/, "Hacker News"],
  [/(^|\.)bsky\.app$/, "Bluesky"],
  [/(^|\.)github\.com$/, "GitHub"],
  [/(^|\.)youtube\.com$/, "YouTube"],
];

/**
 * Mastodon servers: the large ones by name, and the names people give theirs.
 * Links from a Mastodon app carry no referrer and count as direct.
 */
const mastodon =
  /(^|\.)(mastodon\.[a-z.]+|mstdn\.[a-z.]+|[a-z0-9-]*\.social|fosstodon\.org|hachyderm\.io|infosec\.exchange|techhub\.social|mas\.to|toot\.[a-z.]+|sigmoid\.social|scholar\.social|universeodon\.com|ioc\.exchange|c\.im|mathstodon\.xyz|masto\.ai)$|^(mastodon|mstdn|masto|toot)\./;
/** Other Fediverse software, by the names its servers usually carry. */
const fediverse =
  /(^|\.)(pixelfed\.[a-z.]+|lemmy\.[a-z.]+|kbin\.[a-z.]+|mbin\.[a-z.]+|misskey\.[a-z.]+|pleroma\.[a-z.]+|akkoma\.[a-z.]+|firefish\.[a-z.]+|sharkey\.[a-z.]+|friendica\.[a-z.]+|writefreely\.[a-z.]+|threads\.net|peertube\.[a-z.]+|tube\.[a-z.]+)$|^(lemmy|pixelfed|misskey|pleroma|akkoma|kbin|mbin|friendica|peertube)\./;
/**
 * Web mail: a link followed from a mail. The site's own mails are most of them, and their
 * links to its pages say so themselves (utm_source=newsletter or mail); the others are "Mail".
 */
const webMail =
  /^(mail\.google\.com|outlook\.live\.com|outlook\.office\.com|outlook\.office365\.com|mail\.yahoo\.com|mail\.proton\.me|app\.fastmail\.com|mail\.zoho\.[a-z.]+)$/;

const utmLength = 60;

/**
 * An e-mail address, as a mailing tool writes a subscriber's into its links
 * (`%40` too, and the full-width `＠`, which NFKC makes `@`).
 */
const emailAddress = /[^\s@](@|%40)[^\s@]+\.[^\s@]/i;

/**
 * Whether a value carries an e-mail address, also under percent-escapes
 * applied more than once (`%2540`: a link wrapped by one tracker after another).
 */
function carriesEmail(text: string): boolean {
  let value = text;
  for (let round = 0; round < 4; round++) {
    if (emailAddress.test(value)) return true;
    if (!value.includes("%")) return false;
    try {
      const decoded = decodeURIComponent(value).normalize("NFKC");
      if (decoded === value) return false;
      value = decoded;
    } catch {
      // A stray `%`: the escapes that are there are undone one by one.
      value = value.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
    }
  }
  return emailAddress.test(value);
}

/**
 * A utm_ value as the owner reads it: trimmed, at most 60 characters,
 * printable text only; none at all when it carries an e-mail address.
 */
function cleanTag(value: string | null | undefined): string {
  const text = (value ?? "").normalize("NFKC");
  if (carriesEmail(text)) return "";
  const shown = text.replace(/[\p{C}\p{Z}]+/gu, " ").trim();
  return cutWhole(shown, utmLength).trim();
}

/**
 * The source a utm_source names: the names the site knows are spelt as it spells them.
 * "Newsletter" is what an edition's links carry (server/newsletter/clicks.ts), and only that;
 * "mail" what the site's other mails' links carry (markedLink, server/outbox/mail-layout.ts).
 */
function namedSource(tag: string): string {
  const key = tag.toLowerCase();
  if (key === "newsletter") return "Newsletter";
  if (key === "email" || key === "mail") return "Mail";
  if (key === "linkedin") return "LinkedIn";
  if (key === "mastodon") return "Mastodon";
  if (key === "fediverse") return "Fediverse";
  return tag;
}

/** A referrer's host name, or null when it has none or it is this site's own. */
function referrerHost(referrer: string, siteHost: string): string | null {
  if (!referrer) return null;
  let host: string;
  try {
    const url = new URL(referrer);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    host = url.hostname.toLowerCase().replace(/^www\./, "");
  } catch {
    return null;
  }
  return host === siteHost.replace(/^www\./, "") ? null : host;
}

/**
 * Where a view came from. utm_source wins (the owner or an edition put it on
 * the link); otherwise the referrer's host, named when it is a search engine,
 * a social network, a Fediverse server or web mail ("Mail": the newsletter is
 * only what an edition marks); "Direct" without one.
 */
export function originOf(
  { referrer, query }: { referrer: string; query: string },
  siteHost: string,
): Origin {
  const params = new URLSearchParams(query.slice(0, 1000));
  // A name the screen gives conversions of no counted visit would hide one among them.
  const source = cleanTag(params.get("utm_source"));
  const tagged = source.toLowerCase() === unattributed ? "" : source;
  const medium = cleanTag(params.get("utm_medium")).toLowerCase();
  const campaign = cleanTag(params.get("utm_campaign"));
  if (tagged) return { source: namedSource(tagged), medium, campaign };
  const host = referrerHost(referrer, siteHost);
  if (!host) return { source: "Direct", medium, campaign };
  // Before the search engines: Gmail's is mail.google.com, no search.
  if (webMail.test(host)) return { source: "Mail", medium: medium || "email", campaign };
  for (const [pattern, name] of searchEngines) {
    if (pattern.test(host)) return { source: name, medium: medium || "search", campaign };
  }
  for (const [pattern, name] of social) {
    if (pattern.test(host)) return { source: name, medium: medium || "social", campaign };
  }
  if (mastodon.test(host)) return { source: "Mastodon", medium: medium || "social", campaign };
  if (fediverse.test(host)) return { source: "Fediverse", medium: medium || "social", campaign };
  return { source: host.slice(0, utmLength), medium: medium || "referral", campaign };
}

type Device = "mobile" | "tablet" | "desktop";

/** The device class from a user agent, by the tokens browsers put there. */
export function deviceOf(userAgent: string): Device {
  if (/iPad|Tablet|PlayBook|Silk|Kindle|Android(?!.*Mobile)/.test(userAgent)) return "tablet";
  if (/Mobi|iPhone|iPod|Android|Windows Phone|Opera Mini/.test(userAgent)) return "mobile";
  return "desktop";
}

const canonicalZone = (zone: string): string | null => {
  try {
    return new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
};

/**
 * Every IANA time zone Node's ICU knows, by the country that uses it (the
 * regions' zones from Intl.Locale), made on first use a letter's regions at a
 * time with the event loop let go between them: made at once, it took ICU
 * 0.3 to 1.3 s on this machine, and the first reader's view held every request
 * back while it did.
 */
const zoneCountries = onFirstUse(async () => {
  const map = new Map<string, string>();
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  for (const a of letters) {
    await nextTurn();
    for (const b of letters) {
      const region = `${a}${b}`;
      const locale = new Intl.Locale(`und-${region}`);
      // An alias (UK for GB) names the same zones as its country: skip it.
      if (locale.region !== region) continue;
      const zones = (locale as Intl.Locale & { getTimeZones?(): string[] }).getTimeZones?.();
      for (const zone of zones ?? []) {
        const canonical = canonicalZone(zone);
        if (canonical && !map.has(canonical)) map.set(canonical, region);
      }
    }
  }
  return map;
});

/** Answers already given, by the name as sent: a few hundred zones are in use. */
const answered = new Map<string, string>();

/** The country (ISO 3166 code) of a time zone's name as the browser gives it; "" when unknown. */
export async function countryOf(timeZone: string): Promise<string> {
  if (!timeZone || timeZone.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(timeZone)) return "";
  const known = answered.get(timeZone);
  if (known !== undefined) return known;
  const canonical = canonicalZone(timeZone);
  const country = canonical ? ((await zoneCountries()).get(canonical) ?? "") : "";
  if (answered.size >= 2000) answered.clear();
  answered.set(timeZone, country);
  return country;
}
