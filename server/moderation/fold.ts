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
const homoglyphs: Record<string, string> = {
  // Cyrillic
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  і: "i",
  ї: "i",
  ј: "j",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ɡ: "g",
  ɑ: "a",
  ı: "i",
  ȷ: "j",
  // Greek
  α: "a",
  β: "b",
  γ: "y",
  ε: "e",
  η: "n",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ω: "w",
  ς: "c",
  // Small capitals and other Latin look-alikes NFKC keeps
  ᴀ: "a",
  ʙ: "b",
  ᴄ: "c",
  ᴅ: "d",
  ᴇ: "e",
  ɢ: "g",
  ʜ: "h",
  ɪ: "i",
  ᴊ: "j",
  ᴋ: "k",
  ʟ: "l",
  ᴍ: "m",
  ɴ: "n",
  ᴏ: "o",
  ᴘ: "p",
  ʀ: "r",
  ꜱ: "s",
  ᴛ: "t",
  ᴜ: "u",
  ᴠ: "v",
  ᴡ: "w",
  ʏ: "y",
  ᴢ: "z",
  ø: "o",
  ł: "l",
  đ: "d",
  ħ: "h",
  ß: "ss",
};

/** Digits and signs written for letters ("v1agra", "c@sino", "pa$$word"). */
const leet: Record<string, string> = {
  "0": "o",
  "1": "l",
  "!": "l",
  "|": "l",
  "3": "e",
  "4": "a",
  "@": "a",
  "5": "s",
  $: "s",
  "7": "t",
  "8": "b",
  "9": "g",
};

const invisible = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;
const marks = /\p{M}/gu;

/** Lower case, compatibility forms, no accents or invisible characters, Latin look-alikes as Latin. */
export function foldLookAlikes(text: string): string {
  const plain = text.normalize("NFKC").replace(invisible, "").normalize("NFD").replace(marks, "");
  let folded = "";
  for (const char of plain.toLowerCase()) folded += homoglyphs[char] ?? char;
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
export function nameKey(name: string): string {
  return foldLeet(foldLookAlikes(name))
    .replace(/[^\p{L}\p{N}]/gu, "")
    .replace(/rn/g, "m")
    .replace(/vv/g, "w");
}
