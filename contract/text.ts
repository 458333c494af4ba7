/**
 * Character rules for user-entered text. Control and format characters (bidi
 * overrides, zero-width characters, NUL…) let one visitor disguise text shown to
 * others, and lone surrogates cannot be stored as UTF-8, so they are refused.
 */
const controlOrFormat = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
const controlExceptLineBreaksAndTabs = /[^\P{Cc}\t\n\r]/u;
const bidiControls = /[\u202a-\u202e\u2066-\u2069]/;

/** A display name may hold any visible character, spaces included, but not only spaces. */
export function isAcceptableName(value: string): boolean {
  return value.isWellFormed() && !controlOrFormat.test(value) && value.trim() !== "";
}

/**
 * Comments may span lines and carry emoji (which need zero-width joiners), so
 * only C0/C1 controls other than tab and newlines, and bidi controls, are refused.
 */
export function isAcceptableComment(value: string): boolean {
  return (
    value.isWellFormed() && !controlExceptLineBreaksAndTabs.test(value) && !bidiControls.test(value)
  );
}
