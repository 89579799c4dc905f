import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { foldForSearch, patientSearchTerms, wordLookup } from '../../src/db/search-terms.js';

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

  it('indexes each part of a hyphenated name and the whole of it, the date of birth, the email in lower case and every 4-digit run of the phones', () => {
    const terms = patientSearchTerms({
      first_name: 'Anna-Lena',
      last_name: 'Müller Lüdenscheidt',
      date_of_birth: '1961-07-23',
      email: 'Anna@Example.AT',
      phone: null,
      mobile: '+43 664 12345',
    });
    assert.deepEqual(terms.filter((t) => t.startsWith('n:')).sort(), ['n:anna', 'n:anna-lena', 'n:lena', 'n:ludenscheidt', 'n:muller']);
    assert.ok(terms.includes('d:1961-07-23'));
    assert.ok(terms.includes('e:anna@example.at'));
    assert.deepEqual(
      terms.filter((t) => t.startsWith('t:')),
      ['t:4366412345', 't:366412345', 't:66412345', 't:6412345', 't:412345', 't:12345', 't:2345'],
    );
  });

  it('reads a query word as a name prefix, and also as a number, a date, an email or phone digits where it can be one', () => {
    assert.deepEqual(wordLookup('Mül').ranges.length, 1);
    assert.equal(wordLookup('p-000042').seq, 42);
    assert.equal(wordLookup('42').seq, 42);
    assert.equal(wordLookup('mül').seq, null);
    assert.ok(wordLookup('23.07.1961').ranges.some((r) => r.from === 'd:1961-07-23'));
    assert.ok(wordLookup('0664/123').ranges.some((r) => r.from === 't:0664123'));
    assert.ok(!wordLookup('123').ranges.some((r) => r.from.startsWith('t:')), 'three digits are too few for a phone');
  });
});
