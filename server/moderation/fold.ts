/**
 * Folding text so that look-alikes compare equal (docs/decisions/010-moderation-and-spam.md):
 * the owner's reserved name, blocked words and domains must not be dodged by
 * writing "Раvаn" with Cyrillic letters, "P A V A N", "pa\u200bvan" or "ᴘᴀᴠᴀɴ".
 *
 * NFKC first (full-width and styled letters, ligatures), then accents and
 * invisible characters go, then the common Cyrillic and Greek homoglyphs of
 * Latin letters (after Unicode's confusables list, the letters that matter in
 * practice) become those letters.
 */
const homoglyphs = pairs(
  // Cyrillic
  "аa вb еe ёe кk мm нh оo рp сc тt уy хx ѕs іi їi јj ԁd ԛq ԝw ɡg ɑa ıi ȷj",
  // Greek
  "αa βb γy εe ηn ιi κk νv οo ρp τt υu χx ωw ςc",
  // Small capitals and other Latin look-alikes NFKC keeps
  "ᴀa ʙb ᴄc ᴅd ᴇe ɢg ʜh ɪi ᴊj ᴋk ʟl ᴍm ɴn ᴏo ᴘp ʀr ꜱs ᴛt ᴜu ᴠv ᴡw ʏy ᴢz øo łl đd ħh ßss",
);

/** A table written as pairs: the first letter of each reads as the rest ("аa": а is a). */
export function pairs(...lists: string[]): Record<string, string> {
  return Object.fromEntries(
    lists
      .join(" ")
      .split(" ")
      .map(([char = "", ...latin]) => [char, latin.join("")]),
  );
}

/**
 * Letters that look like a Latin letter in one case only, read before
 * anything is lowered: Greek capitals ("Ν" is N, while "ν" reads v) and
 * Cherokee letters, whose lower case forms Unicode added later.
 */
const capitals = pairs(
  // Greek capitals
  "Αa Βb Εe Ζz Ηh Ιi Κk Μm Νn Οo Ρp Τt Υy Χx",
  // Cherokee (after Unicode's confusables list)
  "Ꭰd Ꭱr Ꭲt Ꭴo Ꭵi Ꭹy Ꭺa Ꭻj Ꭼe Ꭿa Ꮁr Ꮃw Ꮇm Ꮋh Ꮍy Ꮎo Ꮐg Ꮒh",
  "Ꮓz Ꮖi Ꮟb Ꮢr Ꮤw Ꮥs Ꮩv Ꮪs Ꮮl Ꮯc Ꮲp Ꮶk Ꮷd Ꮻo Ᏸb Ᏺh Ᏻg Ᏼb",
);
for (const [letter, latin] of Object.entries(capitals)) {
  const lower = letter.toLowerCase();
  if (lower !== letter && /\p{Script=Cherokee}/u.test(letter)) capitals[lower] = latin;
}

/** Regional indicator symbols (🇦 … 🇿), which flags are made of, read as letters. */
const regionalA = 0x1f1e6;

function latinOf(char: string): string {
  const mapped = capitals[char];
  if (mapped) return mapped;
  const code = char.codePointAt(0) ?? 0;
  if (code >= regionalA && code < regionalA + 26) return String.fromCharCode(97 + code - regionalA);
  const lower = char.toLowerCase();
  return homoglyphs[lower] ?? lower;
}

/** Digits and signs written for letters ("v1agra", "c@sino", "pa$$word"). */
const leet = pairs("0o 1l !l |l 3e 4a @a 5s $s 7t 8b 9g");

const invisible = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;
const marks = /\p{M}/gu;

/** Lower case, compatibility forms, no accents or invisible characters, Latin look-alikes as Latin. */
export function foldLookAlikes(text: string): string {
  const plain = text.normalize("NFKC").replace(invisible, "").normalize("NFD").replace(marks, "");
  let folded = "";
  for (const char of plain) folded += latinOf(char);
  return folded;
}

/**
 * As `foldLookAlikes`, then digits and signs used as letters become those
 * letters, and "i" and "l" (which "1" and "|" stand for) one letter.
 */
export function foldLeet(folded: string): string {
  let out = "";
  for (const char of folded) out += leet[char] ?? char;
  return out.replace(/i/g, "l");
}

/** The letters of a name alone, folded: "J0hn  Smith.", "ＪＯＨＮ SMITH" and "john-smith" are one. */
function nameKey(name: string): string {
  return foldLeet(foldLookAlikes(name))
    .replace(/[^\p{L}\p{N}]/gu, "")
    .replace(/rn/g, "m")
    .replace(/vv/g, "w");
}

/** A name's words, folded as `nameKey` folds the whole. */
function nameWords(name: string): string[] {
  return foldLeet(foldLookAlikes(name))
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "")
    .map((word) => word.replace(/rn/g, "m").replace(/vv/g, "w"));
}

/**
 * Whether `name` passes itself off as `reserved` (the owner's name): the same
 * letters in any spelling `nameKey` folds, or with more around them ("Ravi
 * Kumar (author)", "RaviKumar official"), or with the names after the first cut to
 * initials ("Ravi K."). The owner's first name alone, another name that
 * merely starts alike ("Ravi Kumari"), or "R. Kumar" (a common name), is
 * someone else's.
 */
export function claimsName(name: string, reserved: string): boolean {
  const key = nameKey(reserved);
  if (key === "") return false;
  if (nameKey(name) === key) return true;
  const words = nameWords(name);
  const owner = nameWords(reserved);
  for (let start = 0; start < words.length; start++) {
    // A run of whole words spelling the name, split or joined any way.
    let run = "";
    for (let end = start; end < words.length && run.length < key.length; end++) {
      run += words[end];
      if (run.replace(/rn/g, "m").replace(/vv/g, "w") === key) return true;
    }
    // The first name whole, the names after it whole or as initials.
    const candidate = words.slice(start, start + owner.length);
    if (owner.length < 2 || candidate.length < owner.length || candidate[0] !== owner[0]) continue;
    if (candidate.every((word, i) => word === owner[i] || word === owner[i]?.[0])) return true;
  }
  return false;
}

/** The words a badge or a role says beside a name: the "Author" label on the owner's comments. */
const badgeWords = new Set(
  ["author", "owner", "admin", "administrator", "moderator"].map(foldWord),
);

function foldWord(word: string): string {
  return foldLeet(foldLookAlikes(word)).replace(/rn/g, "m").replace(/vv/g, "w");
}

/**
 * Whether `name` carries a word that reads as the label only the owner's
 * comments have ("Sam Author", "Sam (аuthor)", "Site Owner"): on the page
 * and to a screen reader, such a name is the owner's name and badge.
 */
export const claimsBadge = (name: string): boolean =>
  nameWords(name).some((word) => badgeWords.has(word));
