import { foldForSearch } from './folded-text.js';
import { withoutIgnorableCharacters } from './invisible-text.js';
import { patientSeqOf } from './human-numbers.js';

/**
 * What a patient is found by (GET /patients?q, clinic-api-1.1.md), as terms of the
 * patient_search_terms index and the digits of patient_phone_digits (schema.sql), and what a
 * word of a query looks up there. Names are folded (foldForSearch) so that `muller` finds
 * `Müller` and `MULLER` alike.
 */

/** A half-open range of terms: [from, to). An empty range (from = to) matches nothing. */
export interface TermRange {
  from: string;
  to: string;
}

/**
 * What one word of a query matches (db/patient-search.ts makes it SQL): a term in any of
 * `ranges` (at least one), the patient numbered `seq`, or a patient whose phone or mobile holds
 * the run `digits`.
 */
export interface WordLookup {
  ranges: readonly TermRange[];
  seq: number | null;
  digits: string | null;
}

/** Hyphens and dashes within a name word (`Müller-Lüdenscheidt` is found by `lud`). */
const NAME_SEPARATORS = /[-‐‑‒–—]+/u;

/** The characters a phone number is written with besides its digits: `+43 (664) 123-45/67.8`. */
const PHONE_PUNCTUATION = /[\s+\-/.()]/g;

/** The shortest run of phone digits a query may look for. */
const MIN_PHONE_DIGITS = 4;

/**
 * A phone number's digits, once spaces, +, -, /, . and parentheses are removed; undefined when
 * anything else is left. A number dialled with its trunk prefix (`0664 …`) or international
 * prefix (`0043 …`) is stored with the country code (`+43 664 …`), so its leading `0` or `00` is
 * dropped (clinic-api-1.2.md): the rest is found inside either spelling.
 */
function phoneDigits(text: string): string | undefined {
  const digits = text.replace(PHONE_PUNCTUATION, '');
  if (!/^\d+$/.test(digits)) return undefined;
  const national = digits.replace(/^00?/, '');
  return national.length >= MIN_PHONE_DIGITS ? national : digits;
}

/** A whole query that is one phone number as the desk types it: digits and phone punctuation, 4 digits or more. */
const isPhoneNumber = (query: string) => /^[\d\s+\-/.()]+$/.test(query) && query.replace(/\D/g, '').length >= MIN_PHONE_DIGITS;

const textOf = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * The digits of a patient's phone and mobile, each number's run apart (`436641234567 012345678`),
 * or null when there are none: a query's run of digits is looked for inside this text
 * (patient_phone_digits, schema.sql).
 */
export function patientPhoneDigits(patient: Readonly<Record<string, unknown>>): string | null {
  const numbers = [textOf(patient.phone), textOf(patient.mobile)]
    .map((number) => (number === null ? '' : number.replace(/\D/g, '')))
    .filter((digits) => digits !== '');
  return numbers.length === 0 ? null : numbers.join(' ');
}

/** The term a patient is found by its date of birth (YYYY-MM-DD) with. */
export const dateOfBirthTerm = (date: string) => `d:${date}`;

/** Every term of the index for one patient, from its fields by name (kinds as in schema.sql: n:, d:, e:). */
export function patientSearchTerms(patient: Readonly<Record<string, unknown>>): string[] {
  const terms = new Set<string>();
  for (const name of [textOf(patient.first_name) ?? '', textOf(patient.last_name) ?? '']) {
    // The whole of a hyphenated name too, so that `muller-lu` finds it as typed.
    for (const word of foldForSearch(name).split(/\s+/u)) {
      for (const part of [word, ...word.split(NAME_SEPARATORS)]) if (part !== '') terms.add(`n:${part}`);
    }
  }
  const dateOfBirth = textOf(patient.date_of_birth);
  if (dateOfBirth !== null) terms.add(dateOfBirthTerm(dateOfBirth));
  const email = textOf(patient.email);
  if (email !== null) terms.add(`e:${email.toLowerCase()}`);
  return [...terms];
}

// The highest code point: every term that starts with a prefix sorts below prefix + this.
const AFTER_EVERY_SUFFIX = '\u{10FFFF}';
const prefixRange = (prefix: string): TermRange => ({ from: prefix, to: prefix + AFTER_EVERY_SUFFIX });
const exactRange = (term: string): TermRange => ({ from: term, to: `${term}\u0000` });

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DOTTED_DATE = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/;

/** The date of birth a word names, as stored (YYYY-MM-DD), or undefined. */
function dateOf(word: string): string | undefined {
  if (ISO_DATE.test(word)) return word;
  const dotted = DOTTED_DATE.exec(word);
  if (!dotted) return undefined;
  return `${dotted[3]}-${dotted[2]!.padStart(2, '0')}-${dotted[1]!.padStart(2, '0')}`;
}

/**
 * The words of a query: split at white space and at commas (`müller, jürgen`), the characters
 * that print as nothing left out (a name copied with a zero-width space is the name).
 */
export function queryWords(query: string): string[] {
  return withoutIgnorableCharacters(query)
    .split(/[\s,]+/u)
    .filter((word) => word !== '');
}

/**
 * A query that is one phone number as the desk types it, spaces and all (`+43 664 1234567`,
 * `0664 1234567`), as one word (clinic-api-1.2.md); undefined for any other query, or one that
 * is a single word anyway. Such a query is also read word by word, as 1.1.0 reads it (runs of
 * digits that must each match), and finds what either reading finds.
 */
export function phoneNumberWord(query: string): string | undefined {
  const trimmed = withoutIgnorableCharacters(query).trim();
  return isPhoneNumber(trimmed) && queryWords(trimmed).length > 1 ? trimmed : undefined;
}

/** Whether text `a` sorts before, at or after `b` as SQLite's BINARY collation orders UTF-8 text (code points). */
export const binaryOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** Whether every term of `inner` lies in `outer`; an empty `inner` lies anywhere. */
const lies = (inner: TermRange, outer: TermRange): boolean =>
  binaryOrder(inner.from, inner.to) >= 0 || (binaryOrder(outer.from, inner.from) <= 0 && binaryOrder(inner.to, outer.to) <= 0);

/**
 * Whether every patient `narrow` finds is also found by `wide`, so that `wide` adds nothing to a
 * query that holds both (`an` beside `anna`, a word typed twice). Checked per kind of match, so
 * it may say no where a patient could not tell (never yes where one could).
 */
export function findsAll(wide: WordLookup, narrow: WordLookup): boolean {
  return (
    narrow.ranges.every((range) => wide.ranges.some((outer) => lies(range, outer))) &&
    (narrow.seq === null || narrow.seq === wide.seq) &&
    (narrow.digits === null || (wide.digits !== null && narrow.digits.includes(wide.digits)))
  );
}

/**
 * The lookups of a query's words that narrow it: a word that finds every patient another word
 * finds is left out (of two that find the same, the first is kept). The answer is the same; the
 * cost of a search grows with each word checked per match (100 × `a` took 0.8 s at 100,000
 * patients, `a` alone 13 ms).
 */
export function narrowingLookups(words: readonly string[]): WordLookup[] {
  const lookups = words.map(wordLookup);
  return lookups.filter(
    (lookup, i) => !lookups.some((other, j) => j !== i && findsAll(lookup, other) && (j < i || !findsAll(other, lookup))),
  );
}

/**
 * The lookups of one query word: a name-word prefix always, and the date of birth, the whole
 * email, a patient number or a run of phone digits where the word can be one.
 */
export function wordLookup(word: string): WordLookup {
  const date = dateOf(word);
  const digits = phoneDigits(word);
  const seq = patientSeqOf(word, { digitsAlone: true });
  const ranges = [prefixRange(`n:${foldForSearch(word)}`)];
  if (date !== undefined) ranges.push(exactRange(`d:${date}`));
  if (word.includes('@')) ranges.push(exactRange(`e:${word.toLowerCase()}`));
  return {
    ranges,
    seq: seq ?? null,
    digits: digits !== undefined && digits.length >= MIN_PHONE_DIGITS ? digits : null,
  };
}
