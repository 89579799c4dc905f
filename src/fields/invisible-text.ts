/**
 * Characters that print as nothing (issue 39, L5): a zero-width space or a soft hyphen in
 * `Z<U+200B>ürcher` prints like `Zürcher`, but `zürcher` did not find it; a bidi control reorders what
 * follows it. Unicode lists them as Default_Ignorable_Code_Point (DI): zero-width spaces and
 * joiners (U+200B–U+200D, U+2060, U+FEFF), the soft hyphen (U+00AD), the bidi marks, embeddings,
 * overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), the invisible
 * operators, the Hangul fillers that print as a blank letter (U+3164, U+FFA0), tags (U+E0000…) and
 * the like.
 */

/**
 * Every Default_Ignorable_Code_Point, made when a name or a query is first cleaned: as for the
 * joiners' classes below, V8 builds the property's ranges when the expression is made, which a
 * desk command that stores and searches no name (book, pay, report) would pay at its start.
 */
let defaultIgnorable: RegExp | undefined;
const defaultIgnorableExpression = () => (defaultIgnorable ??= /\p{Default_Ignorable_Code_Point}/gu);

/**
 * A character from U+00AD, the soft hyphen, the first Default_Ignorable_Code_Point: text without
 * one has nothing to remove, and a name or query typed in ASCII (most of them) is passed as it is,
 * without the expression above.
 */
const FROM_THE_FIRST_IGNORABLE = /[\u00ad-\uffff]/;

/**
 * Default-ignorable characters that a name in some script needs, kept at the door: variation
 * selectors (the form of the character before, as a Japanese name's kanji may require:
 * U+FE00–U+FE0F, U+E0100–U+E01EF, Mongolian U+180B–U+180D, U+180F) and the Hangul choseong and
 * jungseong fillers of a conjoining syllable (U+115F, U+1160).
 */
const NEEDED_BY_SCRIPTS = /^[\ufe00-\ufe0f\u{e0100}-\u{e01ef}\u180b-\u180d\u180f\u115f\u1160]$/u;

/** The zero-width non-joiner and joiner: they choose a letter's form in Arabic, Persian and the Indic scripts. */
const JOINERS = /^[\u200c\u200d]$/u;

/**
 * The two expressions a joiner is judged by, made when a name first holds one: V8 builds a
 * property class's ranges when the expression is made, and these cost about 1 ms together, which
 * every desk command and the server's start would otherwise pay for a name that almost never comes.
 * `joiningLetter`: a letter or mark of a script in which the joiners choose forms: not of the cased
 * alphabets (Latin, Greek, Cyrillic, Armenian) nor Common (digits, punctuation, emoji), where a
 * joiner only hides between letters that read the same without it.
 */
let joinerClasses: { joiningLetter: RegExp; letter: RegExp } | undefined;
const joinerExpressions = () =>
  (joinerClasses ??= {
    joiningLetter: /^(?![\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Armenian}\p{Script=Common}])[\p{L}\p{M}]$/u,
    letter: /^[\p{L}\p{M}]$/u,
  });

/** The character before `index` and the one from `index` in `text`, each a whole code point (or undefined). */
function codePointBefore(text: string, index: number): string | undefined {
  const last = text.codePointAt(index - 1);
  if (last === undefined) return undefined;
  const pair = index >= 2 && last >= 0xdc00 && last <= 0xdfff ? text.codePointAt(index - 2) : undefined;
  return pair !== undefined && pair > 0xffff ? String.fromCodePoint(pair) : String.fromCodePoint(last);
}

function codePointAt(text: string, index: number): string | undefined {
  const code = text.codePointAt(index);
  return code === undefined ? undefined : String.fromCodePoint(code);
}

/**
 * A name as it is stored (POST and PATCH /patients, the desk's create-patient and patient edit):
 * without the characters that print as nothing, which would make it look like a name it does not
 * match. Kept are only those some script needs: variation selectors, the Hangul fillers of a
 * conjoining syllable, and a zero-width (non-)joiner after a letter of a script that uses it
 * (a Persian or Malayalam name) and not before a letter of another; every other zero-width character, soft hyphen and bidi
 * control goes. A name of nothing else becomes empty (and is refused as too short).
 */
export function withoutInvisibleCharacters(name: string): string {
  if (!FROM_THE_FIRST_IGNORABLE.test(name)) return name;
  return name.replace(defaultIgnorableExpression(), (character: string, offset: number, whole: string) => {
    if (NEEDED_BY_SCRIPTS.test(character)) return character;
    if (!JOINERS.test(character)) return '';
    // After a letter of such a script, unless a letter of another script follows: a Malayalam
    // chillu (na, virama, ZWJ) ends a word.
    const { joiningLetter, letter } = joinerExpressions();
    const before = codePointBefore(whole, offset);
    const after = codePointAt(whole, offset + character.length);
    const joins = before !== undefined && joiningLetter.test(before);
    return joins && (after === undefined || !letter.test(after) || joiningLetter.test(after)) ? character : '';
  });
}

/**
 * Text without any default-ignorable character: how search compares names and query words
 * (folded-text.ts), so that a name stored with one (by 1.2.0, which took them) is found as it
 * prints, and one typed into a query changes nothing.
 */
export function withoutIgnorableCharacters(text: string): string {
  return FROM_THE_FIRST_IGNORABLE.test(text) ? text.replace(defaultIgnorableExpression(), '') : text;
}
