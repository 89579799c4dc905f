import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { narrowingLookups, patientPhoneDigits, patientSearchTerms, queryWords, wordLookup } from '../../src/fields/search-terms.js';
import { foldForSearch } from '../../src/fields/folded-text.js';
import { withoutInvisibleCharacters } from '../../src/fields/invisible-text.js';

describe('search folding', () => {
  for (const [written, folded] of [
    ['Müller', 'muller'],
    ['MÜLLER', 'muller'],
    ['Strauß', 'strauss'],
    ['Yılmaz', 'yilmaz'],
    ['Şahin', 'sahin'],
    ['Đorđević', 'dordevic'],
    ['Søren', 'soren'],
    ['Łukasz', 'lukasz'],
    ['Æbelø', 'aebelo'],
    ['Chloé', 'chloe'],
    ['ﬁona', 'fiona'],
  ] as const) {
    it(`folds ${written} to ${folded}`, () => assert.equal(foldForSearch(written), folded));
  }

  it('indexes each part of a hyphenated name and the whole of it, the date of birth and the email in lower case', () => {
    const patient = {
      first_name: 'Anna-Lena',
      last_name: 'Müller Lüdenscheidt',
      date_of_birth: '1961-07-23',
      email: 'Anna@Example.AT',
      phone: '01/234 56-78',
      mobile: '+43 664 12345',
    };
    const terms = patientSearchTerms(patient);
    assert.deepEqual(terms.filter((t) => t.startsWith('n:')).sort(), ['n:anna', 'n:anna-lena', 'n:lena', 'n:ludenscheidt', 'n:muller']);
    assert.ok(terms.includes('d:1961-07-23'));
    assert.ok(terms.includes('e:anna@example.at'));
    assert.deepEqual(
      terms.filter((t) => !/^[nde]:/.test(t)),
      [],
    );
    assert.equal(patientPhoneDigits(patient), '012345678 4366412345');
    assert.equal(patientPhoneDigits({ phone: null, mobile: '' }), null);
  });

  it('reads a query word as a name prefix, and also as a number, a date, an email or phone digits where it can be one', () => {
    assert.deepEqual(wordLookup('Mül').ranges.length, 1);
    assert.equal(wordLookup('p-000042').seq, 42);
    assert.equal(wordLookup('42').seq, 42);
    assert.equal(wordLookup('mül').seq, null);
    assert.ok(wordLookup('23.07.1961').ranges.some((r) => r.from === 'd:1961-07-23'));
    // The trunk 0 is dropped (1.2.0): `0664 …` finds `+43 664 …`; too short a rest keeps it.
    assert.equal(wordLookup('0664/123').digits, '664123');
    assert.equal(wordLookup('0043 664').digits, '43664');
    assert.equal(wordLookup('0123').digits, '0123');
    assert.equal(wordLookup('123').digits, null, 'three digits are too few for a phone');
    assert.equal(wordLookup('mül').digits, null);
  });

  // Which words a search checks: those another word does not already narrow more.
  for (const [query, checked] of [
    ['lud lud LUD', ['lud']],
    ['m mü mul muller', ['muller']],
    ['muller m', ['muller']],
    ['anna lena', ['anna', 'lena']],
    ['4 42', ['4', '42']], // the number 42 is not the number 4
    ['1234 1234567', ['1234', '1234567']], // P-001234567 holds no 1234 in its phone
    ['0664 p-42', ['0664', 'p-42']],
    ['1961-07-23 19 1961-07-23', ['1961-07-23', '19']], // 19 is also the patient numbered 19
    ['an@example.org a', ['an@example.org', 'a']], // a finds names, not emails
    ['ann anna-lena', ['anna-lena']],
  ] as const) {
    it(`checks ${JSON.stringify(checked)} of ${JSON.stringify(query)}`, () => {
      const lookups = narrowingLookups(query.split(' '));
      assert.deepEqual(
        lookups,
        checked.map((word) => wordLookup(word)),
      );
    });
  }
});

describe('L5: characters that print as nothing (issue 39)', () => {
  // Written as escapes: a zero-width character in this file (or a test's title) would be as hard to see as in a name.
  const escaped = (text: string) =>
    text.replace(/\p{Default_Ignorable_Code_Point}/gu, (character) => `\\u{${character.codePointAt(0)!.toString(16)}}`);
  for (const [written, folded] of [
    ['Z\u200bürcher', 'zurcher'],
    ['Zür\u00adcher', 'zurcher'],
    ['\u202eZürcher\u202c', 'zurcher'],
    ['\u2066Zürcher\u2069', 'zurcher'],
    ['Zü\u200drcher\ufeff', 'zurcher'],
    ['Zü\u2060r\u200ec\u200fh\u061cer', 'zurcher'],
    ['\u3164Zürcher', 'zurcher'],
    ['Zür\u{e0041}cher', 'zurcher'],
  ] as const) {
    it(`search folds ${escaped(written)} to ${folded}`, () => assert.equal(foldForSearch(written), folded));
  }

  it('indexes a name stored with them under the name as it prints, and reads a query without them', () => {
    assert.deepEqual(patientSearchTerms({ first_name: 'E\u00adva', last_name: 'Z\u200bürcher' }), ['n:eva', 'n:zurcher']);
    assert.deepEqual(queryWords('Zü\u200brcher \u200b ,\u2060 eva'), ['Zürcher', 'eva']);
    assert.deepEqual(queryWords('\u200b\u00ad'), [], 'a query of them only has no words, as one of spaces');
  });

  for (const [typed, stored, why] of [
    ['Z\u200bürcher', 'Zürcher', 'loses a zero-width space'],
    ['E\u00adva', 'Eva', 'loses a soft hyphen'],
    ['\u202eQuellenhof\u202c', 'Quellenhof', 'loses a bidi override and its end'],
    ['\u2067Hof\u2069 \u200eAlm\u200f', 'Hof Alm', 'loses bidi isolates and marks'],
    ['Zü\u200drcher\u200c', 'Zürcher', 'loses joiners between and after Latin letters'],
    [
      '\u0645\u0627\u0647\u200c\u067e\u0627\u0631\u0647',
      '\u0645\u0627\u0647\u200c\u067e\u0627\u0631\u0647',
      'keeps the non-joiner a Persian name needs',
    ],
    ['\u0d28\u0d4d\u200d', '\u0d28\u0d4d\u200d', 'keeps a Malayalam chillu (na, virama, joiner) at the end of a word'],
    ['\u0645\u200cA', '\u0645A', 'loses a joiner before a letter of another script'],
    ['\u845b\u{e0100}\u57ce', '\u845b\u{e0100}\u57ce', 'keeps the variation selector of a Japanese name’s kanji'],
    ['\u3164Han\ufeff', 'Han', 'loses a Hangul filler that prints as a blank letter, and a BOM'],
    ['\u200b\u00ad\u2060', '', 'of nothing else is left empty'],
    ['Anna-Lena Muster', 'Anna-Lena Muster', 'in ASCII is kept as typed'],
    ['Anna\u00ad', 'Anna', 'loses a soft hyphen after ASCII letters, the first of the characters that print as nothing'],
  ] as const) {
    it(`a name at the door ${why}`, () => assert.equal(withoutInvisibleCharacters(typed), stored));
  }

  it('has nothing to remove from a name of characters before the soft hyphen (U+0000–U+00AC)', () => {
    const before = Array.from({ length: 0xad }, (_, code) => String.fromCharCode(code)).join('');
    assert.equal(before.replace(/\p{Default_Ignorable_Code_Point}/gu, ''), before);
    assert.equal(withoutInvisibleCharacters(before), before);
  });
});
