import { foldLookAlikes, pairs } from "../fold.ts";

/**
 * What the spam classifier reads of a comment (docs/decisions/025-spam-that-learns.md):
 * the text folded so that disguises compare equal to the plain words, and the
 * disguises themselves as signals. "ᴄᴀꜱɪɴᴏ", "𝐜𝐚𝐬𝐢𝐧𝐨", "c a s i n o", "C.A.S.I.N.O",
 * "c4s1n0" and "cаsino" with a Cyrillic а all read "casino"; that the writer
 * disguised it is a feature of its own, which ordinary readers rarely have.
 */

/** Digits and signs written for letters, inside a word that also has letters ("v1agra", "h@ck"). */
const leet = pairs("0o 1i 3e 4a 5s 7t 8b @a $s");

const scripts: [string, RegExp][] = [
  ["cyrillic", /\p{Script=Cyrillic}/u],
  ["greek", /\p{Script=Greek}/u],
  ["devanagari", /\p{Script=Devanagari}/u],
  ["han", /\p{Script=Han}/u],
  ["hiragana", /[\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ["hangul", /\p{Script=Hangul}/u],
  ["arabic", /\p{Script=Arabic}/u],
  ["thai", /\p{Script=Thai}/u],
  ["tamil", /[\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}]/u],
  ["bengali", /[\p{Script=Bengali}\p{Script=Gujarati}\p{Script=Gurmukhi}\p{Script=Oriya}]/u],
];

/** Styled letters NFKC turns into plain ones: mathematical alphanumerics, full-width, circled. */
const styled = /[\u{1D400}-\u{1D7FF}\uFF01-\uFF5E\u24B6-\u24E9\u{1F130}-\u{1F189}]/u;
/** Small capitals and other Latin look-alikes that NFKC keeps. */
const smallCaps = /[ᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢ]/u;
const latin = /\p{Script=Latin}/u;
const unspaced = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const letter = /\p{L}/u;

/** A word written a letter at a time with dots or dashes: "v.i.a.g.r.a", "e-a-r-n". */
const dottedWord = /^(?:\p{L}[.\-_*]){2,}\p{L}[.\-_*]?$/u;

/** Runs of three or more one-letter words joined: "v i a g r a n o w" reads "viagranow". */
function joinSpacedLetters(words: string[]): { words: string[]; joined: boolean } {
  const out: string[] = [];
  let run: string[] = [];
  let joined = false;
  const flush = () => {
    if (run.length >= 3) {
      out.push(run.join(""));
      joined = true;
    } else out.push(...run);
    run = [];
  };
  for (const word of words) {
    if ([...word].length === 1 && letter.test(word)) run.push(word);
    else {
      flush();
      out.push(word);
    }
  }
  flush();
  return { words: out, joined };
}

/**
 * A word with letters and digits or signs standing for letters, read as
 * letters: "v1agra" → "viagra". Numbers, and words like "4x4" or "co2" with
 * one letter, stay as written.
 */
function unleet(word: string): string | null {
  if (!/[0-9@$]/.test(word)) return null;
  const letters = word.replace(/[^\p{L}]/gu, "").length;
  if (letters < 2 || letters === word.length) return null;
  let out = "";
  for (const char of word) out += leet[char] ?? char;
  return /^\p{L}+$/u.test(out) ? out : null;
}

type ReadText = {
  /** The words, folded, disguises undone. */
  words: string[];
  /** Signals about how the text was written, as feature names. */
  signals: string[];
};

/** Lower case, look-alikes folded, disguises undone: the words a comment says. */
export function readText(text: string): ReadText {
  const signals = new Set<string>();
  if (styled.test(text)) signals.add("styled");
  if (smallCaps.test(text)) signals.add("small-caps");
  for (const [name, pattern] of scripts) if (pattern.test(text)) signals.add(`script:${name}`);
  const raw = text.normalize("NFKC").split(/[\s,;:!?()[\]{}"'«»“”‘’<>|/\\]+/u);
  const words: string[] = [];
  for (const token of raw) {
    if (token === "") continue;
    // A word that mixes Latin with Cyrillic or Greek letters is a disguise:
    // the look-alikes become Latin ("cаsino"); words of one script stay as they are.
    const mixed = latin.test(token) && /[\p{Script=Cyrillic}\p{Script=Greek}]/u.test(token);
    if (mixed) signals.add("mixed-script");
    let word = mixed || smallCaps.test(token) ? foldLookAlikes(token) : token.toLowerCase();
    word = word.replace(/[\u0300-\u036f]/g, "");
    if (dottedWord.test(word)) {
      word = word.replace(/[.\-_*]/g, "");
      signals.add("spaced");
    }
    const plain = unleet(word);
    if (plain) {
      signals.add("leet");
      word = plain;
    }
    for (const part of word.split(/[^\p{L}\p{N}\p{M}$₹€£%]+/u)) {
      if (part === "") continue;
      // Chinese, Japanese and Korean are written without spaces: their pairs of characters stand for words.
      if (unspaced.test(part) && [...part].length > 2) {
        const chars = [...part];
        for (let at = 0; at + 2 <= chars.length; at++) words.push(chars.slice(at, at + 2).join(""));
      } else words.push(part);
    }
  }
  const { words: joinedWords, joined } = joinSpacedLetters(words);
  if (joined) signals.add("spaced");
  return { words: joinedWords, signals: [...signals] };
}
