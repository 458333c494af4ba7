import { z } from "zod";

/**
 * Character rules for user-entered text. Control and format characters (bidi
 * overrides, zero-width characters, NUL…) let one visitor disguise text shown to
 * others, and lone surrogates cannot be stored as UTF-8, so they are refused.
 * Text must also show something, and must not be shaped to break the page:
 * marks stacked by the hundred on one letter ("zalgo"), or screens of blank lines.
 */
const hidden = /[\p{Cc}\p{Cf}\p{Cs}\u2028\u2029]/gu;
const controlOrDirection = /[^\P{Cc}\t\n\r]|[\p{Bidi_Control}\p{Cs}]/gu;

/**
 * A character that shows something: not a space, a control or format character,
 * an invisible one (Default_Ignorable_Code_Point: zero-width characters, the Hangul
 * fillers U+115F, U+1160, U+3164, U+FFA0…), a mark with nothing to sit on, or the
 * blank braille pattern U+2800.
 */
const visible = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{C}\p{M}\u2800]/u;

/**
 * Combining marks in a row on one character. Real writing needs a few
 * (Vietnamese tones, Hebrew points with cantillation, Tibetan stacks, an emoji
 * keycap); "zalgo" text stacks hundreds and spills over the lines around it.
 */
export const marksPerCharacterMax = 5;
const tooManyMarks = new RegExp(`\\p{M}{${marksPerCharacterMax + 1}}`, "u");
/** The marks past the first few on one character. */
const excessMarks = new RegExp(`(\\p{M}{${marksPerCharacterMax}})\\p{M}+`, "gu");

/** Blank lines in a row in a comment; a line of invisible characters counts as blank. */
export const blankLinesInARowMax = 2;

/**
 * `value`'s first `units` UTF-16 code units (what `maxlength` and `.length` count), but
 * never half of a character made of two (an emoji), which would show as "�".
 */
export function cutWhole(value: string, units: number): string {
  const cut = value.slice(0, units);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

export function hasVisibleCharacter(value: string): boolean {
  return visible.test(value);
}

export function hasFewMarksPerCharacter(value: string): boolean {
  return !tooManyMarks.test(value);
}

/** Text from elsewhere with at most `marksPerCharacterMax` marks on one character, the rest dropped. */
export const withFewMarksPerCharacter = (value: string): string => value.replace(excessMarks, "$1");

export function hasFewBlankLinesInARow(value: string): boolean {
  let run = 0;
  for (const line of value.split(/\r\n|\r|\n/)) {
    run = hasVisibleCharacter(line) ? 0 : run + 1;
    if (run > blankLinesInARowMax) return false;
  }
  return true;
}

/** No control, format or line-separator character: a name is one line of plain text. */
export const hasNoHiddenCharacters = (value: string): boolean => value.search(hidden) < 0;

/** Text from elsewhere as such a line: tabs and line breaks become spaces, the others go. */
export const withoutHiddenCharacters = (value: string): string =>
  value
    .replace(hidden, (c) => (/[\t-\r\u0085\u2028\u2029]/.test(c) ? " " : ""))
    .replace(/\s+/g, " ")
    .trim();

/**
 * Comments may span lines and carry emoji (which need zero-width joiners), so
 * only C0/C1 controls other than tab and newlines, and bidi controls, are refused.
 */
export const hasNoControlOrDirectionCharacters = (value: string): boolean =>
  value.search(controlOrDirection) < 0;

/** Text from elsewhere as a comment takes it, and without \r (a form's CRLF is its only use). */
export const withoutControlOrDirectionCharacters = (value: string): string =>
  value.replace(controlOrDirection, "").replaceAll("\r", "");

/** A lone "\r", or a control or direction character as `controlOrDirection` finds them. */
const obeyedByTerminals = new RegExp(`\\r(?!\\n)|${controlOrDirection.source}`, "gu");

/**
 * Text for a terminal, which obeys what it prints: ESC [ rewrites lines or sets the
 * window's title, a lone "\r" goes back over the line. Each such character, a C1 control
 * or a bidi control becomes its escape ("\u001b"), shown rather than obeyed; tabs and
 * line breaks ("\r\n" too) stay. JSON reads the escape as the character it stands for.
 */
export const withControlsShown = (value: string): string =>
  value.replace(obeyedByTerminals, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/**
 * Line breaks as "\n" alone: a form's "\r\n", and a lone "\r", which a terminal prints as a
 * return to the line's start, so that what follows hides what came before.
 */
export const withLineFeeds = (value: string): string => value.replace(/\r\n?/g, "\n");

/**
 * What the owner types to find something (a search, a filter, an address):
 * no stored text holds a control character, and PostgreSQL's text cannot hold
 * a NUL at all, so the query would fail rather than find nothing.
 */
export const searchText = (max: number) =>
  z
    .string()
    .max(max)
    .refine(hasNoControlOrDirectionCharacters, "Search for text without control characters.");
