/**
 * Stored text on its way to a terminal (style.md §14). Names, titles and notes come from any
 * integration with a key, so they may hold what a terminal obeys instead of printing: ESC
 * sequences (`\x1b[2J` clears the screen, `\x1b]52;c;…\x07` writes the clipboard), a carriage
 * return or cursor movement that overwrites a line already printed (a balance), C1 controls
 * (U+009B is a one-character CSI), and bidi overrides (U+202E prints the rest of a line
 * backwards). People's output shows each such character visibly, as the escape a programmer
 * would type (`\x1b`, `\u202e`), so nothing is hidden and nothing is obeyed; `--json` keeps every
 * value exactly, only written with JSON's own escapes for them.
 */

/**
 * Every character a terminal may act on instead of showing: the C0 controls, DEL and the C1
 * controls (Unicode's Cc), the bidi embeddings, overrides, isolates and marks, and the line and
 * paragraph separators. Zero-width joiners stay: names in several scripts need them.
 */
const UNSAFE_IN_VALUE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * The same but the line feed, which a printout (and JSON.stringify's indented output) is made
 * of. JSON.stringify escapes every other C0 control itself, so this also finds what it writes raw.
 */
const UNSAFE_IN_TEXT = /(?!\n)[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** `\x1b`, `\x9b`, `\u202e`: a character as the escape a programmer would type. */
function visibleEscape(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A JSON escape (`\u202e`): the same character to a JSON reader, inert on a terminal. */
function jsonEscape(character: string): string {
  return `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
}

/** One stored value (a cell, a name, a label) as a person may see it: controls, line breaks included, shown as escapes. */
export function visibleValue(value: string): string {
  return value.replace(UNSAFE_IN_VALUE, visibleEscape);
}

/**
 * A whole printout for people, as the last step before the terminal: its own line breaks stay,
 * every other control, separator or bidi character is shown as an escape, whatever put it there.
 */
export function visibleText(text: string): string {
  return text.replace(UNSAFE_IN_TEXT, visibleEscape);
}

/** JSON text for a terminal: the same values, with the characters JSON writes raw but a terminal obeys escaped. */
export function inertJson(json: string): string {
  return json.replace(UNSAFE_IN_TEXT, jsonEscape);
}
