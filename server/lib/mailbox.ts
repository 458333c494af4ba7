import { createHmac } from "node:crypto";
import { domainToASCII, domainToUnicode } from "node:url";

/** Other names of a provider's domain: their mailboxes are the same. */
const aliases = new Map([["googlemail.com", "gmail.com"]]);

/**
 * The mailbox an address reaches: lower case, without a "+tag", and for a
 * limit (`loose`) without dots in the part before the "@" either (Gmail
 * ignores them, and so do many others). A form's hourly limits per address
 * (an enquiry's acknowledgement, a booked call) count loosely: two people
 * whose addresses differ only so share one limit, which costs them at most an
 * hour's wait for a mail; a stranger's inbox cannot be sent one each. A stop
 * that lasts (reply mails) drops dots only at Gmail, where they never count:
 * elsewhere "a.lice" may be someone else than "alice", and a stranger could
 * stop her mails by stopping their own. A "-tag" (Yahoo's disposable
 * addresses, some self-hosted servers) is kept, even loosely: at most
 * providers "mary-jane" is a mailbox of its own, and Yahoo's are named after
 * a base name that is not the account's address anyway.
 */
export function mailboxOf(email: string, { loose = true } = {}): string {
  const address = plainAddress(email);
  const at = address.lastIndexOf("@");
  const domain = address.slice(at + 1);
  const same = aliases.get(domain) ?? domain;
  const local = address.slice(0, at).split("+")[0]!;
  return `${loose || same === "gmail.com" ? local.replaceAll(".", "") : local}@${same}`;
}

/**
 * The "+tag" of an address, in lower case ("" for a bare "+"), or null when it
 * has none: what `mailboxOf` drops.
 */
export function tagOf(email: string): string | null {
  const address = plainAddress(email);
  const local = address.slice(0, address.lastIndexOf("@"));
  const plus = local.indexOf("+");
  return plus < 0 ? null : local.slice(plus + 1);
}

/*
 * Other spellings of one mailbox, which a bounce report, a provider's webhook
 * or an import may carry though the forms refuse them:
 * - a quoted local part: `"alice"@example.com` is `alice@example.com`, the
 *   quoted form being the same string as the atom (RFC 5322 3.2.4; RFC 5321
 *   4.1.2 asks that no mailbox need it); a backslash quotes the next character;
 * - a trailing dot: `example.com.` is the same name in DNS written in full
 *   (RFC 1034 3.1), which is where the mail goes (RFC 5321 5.1);
 * - a Unicode domain and its punycode: a U-label and its A-label are one
 *   label (RFC 5890 2.3.2.1), and mail to either reaches the same host (RFC
 *   6531); both are folded to the A-label, the form every address the forms
 *   took was in already, in lower case (IDNA's mapping, UTS 46, also folds
 *   a Unicode domain's capitals);
 * - capitals in a Unicode local part: what a local part means is its host's
 *   to say (RFC 5321 2.4); the site folds its case for every
 *   script as it does for ASCII, as providers do, composed first (NFC), so
 *   that "é" typed as one character or as "e" and an accent is one name.
 * Different mailboxes stay apart: a quoted name with a space or a "@" keeps
 * it, and so differs from every unquoted one.
 */

/** The local part as its quoted form reads: without the quotes and the backslashes that quote. */
const unquoted = (local: string): string =>
  local.length >= 2 && local.startsWith('"') && local.endsWith('"')
    ? local.slice(1, -1).replace(/\\(.)/g, "$1")
    : local;

/**
 * The domain's A-label form in lower case, without a trailing dot; as given, in lower case, where
 * IDNA refuses it or it is no name DNS holds: the URL parser would read a %-escape
 * (`gm%61il.com`) or an IPv4 number (`0x7f.1`) as another host.
 */
function domainOf(domain: string): string {
  const bare = domain.endsWith(".") ? domain.slice(0, -1) : domain;
  if (bare.includes("%") || /(^|\.)(0x[0-9a-f]*|[0-9]+)$/i.test(bare)) return bare.toLowerCase();
  return domainToASCII(bare) || bare.toLowerCase();
}

/**
 * `email` with its domain as addresses are kept (its punycode, in lower case),
 * the rest as given: the owner may type a held address as the lists show it,
 * "leser@bücher.example" (`readableAddress`).
 */
export function keptDomain(email: string): string {
  const address = email.trim();
  const at = address.lastIndexOf("@");
  return at < 0 ? address : `${address.slice(0, at)}@${domainOf(address.slice(at + 1))}`;
}

/**
 * `email` as the forms take an address, for a report that spells it otherwise
 * (above): unquoted, its domain without the trailing dot and in punycode, in
 * lower case; the outbox finds the mail it is about by it.
 */
export function plainAddress(email: string): string {
  const address = email.trim();
  const at = address.lastIndexOf("@");
  return `${unquoted(address.slice(0, at)).normalize("NFC")}@${domainOf(address.slice(at + 1))}`.toLowerCase();
}

/*
 * Which labels are shown in Unicode, as browsers decide (Chromium's IDN
 * display policy, in short): a label of one script of those UTS 39
 * recommends, or Latin with Han and one of its Japanese, Chinese or Korean
 * companions, digits and hyphens allowed; and not a Cyrillic label made only
 * of letters that look Latin ("аррӏе") under a TLD that is not Cyrillic.
 * Any other, "gmаil" with a Cyrillic "а", is shown in punycode: an owner must
 * not read a look-alike as the domain it mimics.
 */
const recommended =
  "Arabic Armenian Bengali Bopomofo Cyrillic Devanagari Ethiopic Georgian Greek Gujarati Gurmukhi Han Hangul Hebrew Hiragana Kannada Katakana Khmer Lao Latin Malayalam Myanmar Oriya Sinhala Tamil Telugu Thaana Thai Tibetan";
const scriptSets = [
  ...recommended.split(" "),
  "Latin Han Hiragana Katakana",
  "Latin Han Bopomofo",
  "Latin Han Hangul",
].map(
  (set) =>
    new RegExp(
      `^[${set.replace(/\w+/g, (script) => `\\p{scx=${script}}`).replaceAll(" ", "")}\\p{sc=Inherited}0-9-]+$`,
      "u",
    ),
);
const latinAlike = /^[асԁеһіјӏорԛѕԝхуъьҽпгѵѡ0-9-]+$/u;
const cyrillic = /\p{sc=Cyrillic}/u;
/**
 * Latin letters no language writes a name with, which UTS 39 leaves out of
 * identifiers and browsers show in punycode: phonetic ones ("ɡ", "ɑ"; not the
 * "ə" or "ɛ" of Azerbaijani and African languages), small capitals, clicks
 * ("ǀ" passes for "l"), letter-like symbols; and a mark left over a Latin
 * letter that has no letter of its own, as a dot above "i" or a stroke through "m".
 */
const technicalLatin =
  /[\u0250-\u02ff\u1d00-\u1dbf\u2100-\u218f\u01c0-\u01c3\u2c60-\u2c7f\ua720-\ua7ff\uab30-\uab6f](?<![ɓɔɖɗəɛɣɨɲʉʊʋʒ])|\p{scx=Latin}\p{sc=Inherited}/u;

function shownInUnicode(labels: string[]): boolean {
  const tld = labels.at(-1) ?? "";
  return labels.every(
    (label) =>
      /^\p{ASCII}*$/u.test(label) ||
      (scriptSets.some((set) => set.test(label)) &&
        !technicalLatin.test(label) &&
        !(latinAlike.test(label) && !cyrillic.test(tld))),
  );
}

/**
 * An address or a domain (after its last "@") as the owner would type it: an
 * internationalised domain in Unicode ("bücher.example"), not its punycode,
 * unless it could pass for another (above).
 */
export function readableAddress(address: string): string {
  const at = address.lastIndexOf("@");
  const domain = address.slice(at + 1);
  const ascii = domainToASCII(domain);
  const unicode = domainToUnicode(ascii);
  // A domain in ASCII is left as it was written, capitals and all; one that maps to ASCII
  // ("ℊmail.com", with a script "ℊ") is shown as it maps.
  if (!ascii || (unicode === ascii && /^\p{ASCII}*$/u.test(domain))) return address;
  return `${address.slice(0, at + 1)}${shownInUnicode(unicode.split(".")) ? unicode : ascii}`;
}

/** The domains whose addresses may reach `mailbox` (a `mailboxOf`): its own and its other names. */
export const domainsOf = (mailbox: string): string[] => {
  const domain = mailbox.slice(mailbox.lastIndexOf("@") + 1);
  return [domain, ...[...aliases].filter(([, to]) => to === domain).map(([alias]) => alias)];
};

/** The mailbox's digest a form counts its limit by (`loose`, above), under a key for `purpose` alone. */
export function mailboxDigest(
  secret: string,
  purpose: string,
  { loose = true } = {},
): (email: string) => string {
  const key = createHmac("sha256", secret).update(purpose).digest();
  return (email) =>
    createHmac("sha256", key).update(mailboxOf(email, { loose })).digest("base64url");
}

/** A keyed digest an address is kept under instead of itself. */
export type AddressKey = (email: string) => string;

/**
 * The key suppressed addresses are kept under (server/outbox/suppressions.ts),
 * from the cookie secret: their mailbox, folded as a stop of reply mails folds it.
 */
export const suppressionKey = (secret: string): AddressKey =>
  mailboxDigest(secret, "suppressed addresses", { loose: false });

/**
 * An address as a row that holds it is written (a subscriber's, one left for
 * reply mails): with the digest a suppression of its mailbox is kept under,
 * which the owner's list of suppressions finds it by. Every write of such an
 * address goes through here.
 */
export const heldAddress = (key: AddressKey, email: string) => ({ email, email_hash: key(email) });
