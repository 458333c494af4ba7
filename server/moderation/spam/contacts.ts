import { hostOf, isReference, linksIn } from "../content-rules.ts";
import { onSite, siteLists } from "../site-lists.ts";

/**
 * Links and contact details in a comment, disguised ones included
 * (docs/decisions/025-spam-that-learns.md): what a browser the site does not
 * trust yet cannot publish without the owner's approval. Spam needs a way
 * back to its sender, so it writes one in any spelling a filter might miss:
 * "name [at] host [dot] com", "example dot com", "Telegram: fxqueen",
 * "nine eight seven six…". Readers rarely put any of this in a comment.
 */

type ContactKind = "link" | "email" | "phone" | "handle";
type Contact = { kind: ContactKind; text: string };

const tld = "[a-z]{2,12}";

/** "[at]", "(dot)", "name at host dot com": the address as it was meant. */
function undisguise(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/(?<!\s)\s*[[({<]\s*(?:at|@)\s*[\])}>]\s*/giu, "@")
    .replace(/(?<!\s)\s*[[({<]\s*(?:dot|\.)\s*[\])}>]\s*/giu, ".")
    .replace(new RegExp(`(?<=[\\p{L}\\p{N}])\\s+dot\\s+(?=${tld}\\b)`, "giu"), ".")
    .replace(/(?<=[\p{L}\p{N}])\s*\.\s+(?=(?:com|net|org|in|io|co)\b)/gu, ".")
    .replace(
      new RegExp(
        `(?<![\\p{L}\\p{N}._%+-])([\\p{L}\\p{N}._%+-]+)\\s+at\\s+([\\p{L}\\p{N}-]+\\.${tld})\\b`,
        "giu",
      ),
      "$1@$2",
    );
}

const email =
  /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/giu;

const messenger =
  "telegram|tg|whats\\s?app|signal|viber|we\\s?chat|weixin|kik|snap(?:chat)?|insta(?:gram)?|discord|skype|icq|threema|wickr|line\\s+id|session\\s+id";
/** A handle put next to the app it is on: "Telegram: fxqueen", "snapchat - anna_22", "telegram at fx_01". */
const handleAfterApp = new RegExp(
  `\\b(?:${messenger})\\b\\s*(?:(?:id|handle|username|user|channel|group)\\s*)?(?:[:=–-]|\\bat\\b|\\bis\\b)\\s*@?[\\p{L}\\p{N}_][\\p{L}\\p{N}_.-]{2,}`,
  "giu",
);
/** An @handle near an app's name or an invitation to write ("DM me @luxury.deals"). */
const atHandle = /(?<![\p{L}\p{N}._%+-])@[\p{L}\p{N}_][\p{L}\p{N}_.]{2,}/gu;
const nearHandle = new RegExp(
  `\\b(?:${messenger}|dm|pm|inbox|message|text|contact|reach|add|follow|ping|write\\s+to)\\b`,
  "iu",
);

const digitWord = "zero|oh|one|two|three|four|five|six|seven|eight|nine";
const spelledNumber = new RegExp(`(?:\\b(?:${digitWord})\\b[\\s,-]*){8,}`, "giu");
const digitRun = /\+?\(?\d[\d\s().-]{6,24}\d/gu;

function phonesIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(digitRun)) {
    const run = match[0].trim();
    const digits = run.replace(/\D/g, "");
    if (digits.length < 10 || digits.length > 15) continue;
    // A date ("2024-11-23"), a range of years or a decimal figure is not a number to call.
    if (/\d{4}-\d{1,2}-\d{1,2}/.test(run) || /\d\.\d/.test(run)) continue;
    if (/^(?:1[89]|20)\d\d\D+(?:1[89]|20)\d\d$/.test(run)) continue;
    found.push(run);
  }
  for (const match of text.matchAll(spelledNumber)) found.push(match[0].trim());
  return found;
}

/** Every link and contact detail in a comment, each once, as written after undoing disguises. */
export function contactsIn(text: string): Contact[] {
  const plain = undisguise(text);
  const found: Contact[] = [];
  const seen = new Set<string>();
  const add = (kind: ContactKind, value: string) => {
    const key = `${kind}:${value.toLowerCase()}`;
    if (seen.has(key)) return;
    seen.add(key);
    found.push({ kind, text: value });
  };
  const emails = [...plain.matchAll(email)].map((match) => match[0]);
  for (const address of emails) add("email", address);
  const withoutEmails = emails.reduce((rest, address) => rest.replace(address, " "), plain);
  for (const link of linksIn(withoutEmails)) add("link", link);
  for (const match of withoutEmails.matchAll(handleAfterApp)) add("handle", match[0].trim());
  for (const match of withoutEmails.matchAll(atHandle)) {
    const at = match.index ?? 0;
    const around = withoutEmails.slice(Math.max(0, at - 40), at + match[0].length + 40);
    if (nearHandle.test(around)) add("handle", match[0]);
  }
  for (const phone of phonesIn(withoutEmails)) add("phone", phone);
  return found;
}

/**
 * Whether a link goes to a site readers cite (an encyclopaedia, a journal, a
 * university or a government): such a link from a new browser is not held.
 * Video and code sites are left out: a channel or a repository is what a
 * promotion links to.
 */
function citesReference(link: string): boolean {
  const host = hostOf(link);
  return isReference(host) && !/(?:^|\.)(?:youtube\.com|youtu\.be|github\.com)$/.test(host);
}

/** Whether a link goes to a page where readers keep their own work: a repository, a build log, an album. */
function isProjectLink(link: string): boolean {
  return onSite(hostOf(link), siteLists.projectHosts);
}

/**
 * How sure the classifier must be that a comment is a reader's for one link
 * to a project page not to be held: a score this low, and no word that leans
 * to junk more than this (its evidence, a log of odds). Junk that moves its
 * link to such a host is still scored, and `npm run spam:eval` measures how
 * much of it would pass (docs/decisions/025-spam-that-learns.md).
 */
const projectLinkBar = { score: 0.2, word: 2 };

/**
 * The links and contact details a browser the site does not trust yet cannot
 * publish: all but links to sites readers cite, and but one link to a page
 * where readers keep their own work when `judged` (the classifier's score and
 * its strongest word for junk) says the words are a reader's.
 */
export function heldContacts(
  text: string,
  judged: { score: number; strongestWord: number } | null,
): Contact[] {
  const contacts = contactsIn(text).filter(
    (contact) => contact.kind !== "link" || !citesReference(contact.text),
  );
  const [only] = contacts;
  const ownWork =
    contacts.length === 1 &&
    only?.kind === "link" &&
    isProjectLink(only.text) &&
    judged !== null &&
    judged.score < projectLinkBar.score &&
    judged.strongestWord < projectLinkBar.word;
  return ownWork ? [] : contacts;
}

/** The text with its links and contact details taken out: the words the writer wrote around them. */
export function withoutContacts(text: string): string {
  return contactsIn(text).reduce((rest, contact) => rest.replace(contact.text, " "), text);
}
