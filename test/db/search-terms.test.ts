import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { narrowingLookups, patientPhoneDigits, patientSearchTerms, wordLookup } from '../../src/fields/search-terms.js';
import { foldForSearch } from '../../src/fields/folded-text.js';

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
