import { withoutIgnorableCharacters } from './invisible-text.js';

/**
 * Text as staff may type it, compared without case or accents: `muller` finds `Müller` and
 * `MULLER` alike, in patient search (search-terms.ts) and the names of doctors and services at
 * the desk (src/domain/desk/find-by-name.ts, src/domain/catalog.ts). Unicode compatibility
 * decomposition, accents and other combining marks dropped, lower case, and the letters that do
 * not decompose spelt out (ß → ss, æ → ae, ø → o, ...), and the characters that print as nothing
 * (zero-width, soft hyphen, bidi controls) left out.
 */

const SPELT_OUT: Readonly<Record<string, string>> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };

/**
 * A character outside ASCII. Text in ASCII alone folds to its lower case: it has no
 * decomposition, mark, letter spelt out or character that prints as nothing, and the marks'
 * expression below is not built for it (V8 builds a property class's ranges when it is first used).
 */
const BEYOND_ASCII = /[\u0080-\uffff]/;

/** `text` folded for search: `Müller-Lüdenscheidt` → `muller-ludenscheidt`. */
export function foldForSearch(text: string): string {
  if (!BEYOND_ASCII.test(text)) return text.toLowerCase();
  return withoutIgnorableCharacters(text)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[ßæœøłđðþı]/g, (letter) => SPELT_OUT[letter] ?? letter);
}

/**
 * A doctor's or service's name as the desk compares names (1.3.0: "as the search compares
 * words"): folded, its words (split at white space and commas, as search splits a query) joined
 * by one space, so `dr.  anna BERGER` and `Dr. Anna Berger` are one name.
 */
export function foldName(text: string): string {
  return foldForSearch(text)
    .split(/[\s,]+/u)
    .filter((word) => word !== '')
    .join(' ');
}
