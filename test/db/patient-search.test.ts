import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { findPatients } from '../../src/domain/patients/find-patients.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { explainPatientSearch, explainPatientWalk } from '../../src/db/patient-search.js';
import { wordLookup } from '../../src/fields/search-terms.js';

/**
 * The plans of a search (src/db/patient-search.ts) give the answers of the search rules, page by
 * page, whichever one a query takes: driven by a word with few matches, a walk of the name
 * index when every word matches many, and the walk's fallback when common words rarely meet
 * (here only past the first 2,000 patients in name order).
 */
describe('patient search over 6,004 patients: every plan gives the same answers', () => {
  const data = useTestDatabase();
  /** Every patient made, as [patient_number, first_name, last_name, mobile]. */
  const made: [string, string, string, string][] = [];

  before(() => {
    const add = (first_name: string, last_name: string) => {
      const mobile = made.length % 5 === 0 ? '+43 1 999 8888' : '+43 664 1234567';
      const patient = createPatient(data.db, { first_name, last_name, email: `p${made.length}@example.org`, mobile });
      made.push([patient.patient_number, first_name, last_name, mobile]);
    };
    data.db.transaction(() => {
      for (let i = 0; i < 6000; i++) {
        if (i % 3 === 0) add('Anna', ['Berger', 'Huber', 'Klein'][i % 2]!);
        else if (i % 3 === 1) add('Paul', 'Moser');
        else add('Eva', 'Wolf');
      }
      add('Anna', 'Moser');
      for (let i = 0; i < 3; i++) add('Anna', 'Zimmer-Mohr');
    })();
  });

  /** Every patient number the search for `q` gives, read `limit` at a time through `after`. */
  function everyPage(q: string, limit: number): string[] {
    const found: string[] = [];
    let after: string | undefined;
    do {
      const page = findPatients(data.db, { q, limit: String(limit), ...(after === undefined ? {} : { after }) });
      found.push(...page.items.map((patient) => patient.patient_number));
      after = page.next ?? undefined;
    } while (after !== undefined);
    return found;
  }

  /**
   * The patient numbers of whom each of `words` begins a name word, and whose mobile holds
   * `digits` if given, in the list's order.
   */
  function expected(words: string[], digits?: string): string[] {
    const nameWords = (first: string, last: string) => `${first} ${last}`.toLowerCase().split(/[\s-]+/);
    return made
      .filter(([, , , mobile]) => digits === undefined || mobile.replace(/\D/g, '').includes(digits))
      .filter(([, first, last]) => words.every((word) => nameWords(first, last).some((name) => name.startsWith(word))))
      .sort(([numberA, firstA, lastA], [numberB, firstB, lastB]) =>
        lastA !== lastB ? (lastA < lastB ? -1 : 1) : firstA !== firstB ? (firstA < firstB ? -1 : 1) : numberA < numberB ? -1 : 1,
      )
      .map(([number]) => number);
  }

  for (const { q, words, digits, limit, why } of [
    { q: 'an', words: ['an'], limit: 200, why: 'one common word' },
    { q: 'an hu', words: ['an', 'hu'], limit: 50, why: 'two common words that often meet' },
    { q: 'an mo', words: ['an', 'mo'], limit: 2, why: 'two common words that meet only after the walk' },
    { q: 'zimmer an', words: ['zimmer', 'an'], limit: 2, why: 'a word with few matches beside a common one' },
    { q: 'an 1234567', words: ['an'], digits: '1234567', limit: 100, why: 'a common word and a run of phone digits' },
    { q: 'mo 9998888', words: ['mo'], digits: '9998888', limit: 100, why: 'phone digits and a common word found after the walk' },
  ]) {
    it(`finds ${why} (${q}), ${limit} at a time`, () => {
      const answer = everyPage(q, limit);
      assert.ok(answer.length > 0);
      assert.deepEqual(answer, expected(words, digits));
    });
  }
});

/**
 * Every list query is read from an index (the quality bar: "an index for every list query"),
 * proved on SQLite's own plan rather than on timings.
 */
describe('the plans of the patient search', () => {
  const data = useTestDatabase();

  it('lists patients by name from the name index, in order, without a sort', () => {
    const plan = explainPatientSearch(data.db, []).join('\n');
    assert.match(plan, /SEARCH p USING (COVERING )?INDEX patients_by_name/);
    assert.doesNotMatch(plan, /TEMP B-TREE/);
  });

  for (const words of [['mül'], ['mül', 'jürgen'], ['P-42', '1961-07-23', 'jm@example.at', '0664 1234']]) {
    it(`searches "${words.join(' ')}" through the term index, never scanning patients or terms`, () => {
      const plan = explainPatientSearch(data.db, words.map(wordLookup)).join('\n');
      assert.match(plan, /SEARCH f USING PRIMARY KEY \(term>\? AND term<\?\)/);
      if (words.length > 1) assert.match(plan, /USING (COVERING )?INDEX patient_search_terms_by_patient \(patient_seq=\?/);
      assert.doesNotMatch(plan, /SCAN (p|patients|patient_search_terms|f|t)\b(?! USING)/);
    });
  }

  it('walks the name index in order for common words, checking each patient on the term index, without a sort', () => {
    const plan = explainPatientWalk(data.db, [wordLookup('m'), wordLookup('0664')]).join('\n');
    assert.match(plan, /SEARCH p USING (COVERING )?INDEX patients_by_name/);
    assert.match(plan, /USING (COVERING )?INDEX patient_search_terms_by_patient \(patient_seq=\?/);
    assert.doesNotMatch(plan, /TEMP B-TREE|SCAN (p|patients|patient_search_terms|t|d)\b(?! USING)/);
  });

  it('finds a run of phone digits by reading the narrow digits table, and only when no other word narrows first', () => {
    assert.match(explainPatientSearch(data.db, [wordLookup('1234567')]).join('\n'), /SCAN d\b/);
    const withName = explainPatientSearch(data.db, [wordLookup('huber'), wordLookup('1234567')]).join('\n');
    assert.doesNotMatch(withName, /SCAN d\b/);
    assert.match(withName, /SEARCH d USING INTEGER PRIMARY KEY \(rowid=\?\)/);
  });
});
