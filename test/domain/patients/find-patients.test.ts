import type { Db } from '../../../src/db/open-database.js';
import { FIND_PATIENTS } from '../../../src/domain/patients/find-patients.js';
import { createTestPatient } from '../../helpers/builders.js';
import { describeScenarios, type Outcome, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * FIND_PATIENTS (GET /patients, `clinic patient find`): what a search answers and records, row by
 * row. How each query word matches: test/fields/search-terms.test.ts and test/server/routes/patients.test.ts;
 * pages and their Link: test/domain/pagination.test.ts; the actor each front end records:
 * test/server/routes/audit.test.ts and test/cli/commands/audit.test.ts.
 */

/** Three patients named Searchling (Ada, Bob, Cleo) and one named Other, by number. */
interface Given {
  ada: string;
  bob: string;
  cleo: string;
  other: string;
}

const aClinic = (db: Db): Given => ({
  ada: createTestPatient(db, { first_name: 'Ada', last_name: 'Searchling' }).id,
  bob: createTestPatient(db, { first_name: 'Bob', last_name: 'Searchling' }).id,
  cleo: createTestPatient(db, { first_name: 'Cleo', last_name: 'Searchling' }).id,
  other: createTestPatient(db, { first_name: 'Dora', last_name: 'Other' }).id,
});

const find = (query: Record<string, string>) => () => ({ query });

/** The page's patients, in order, and one patient.search for each with the text searched for. */
const found =
  (q: string | null, names: (keyof Given)[]) =>
  (given: Given): Outcome => ({
    result: { items: names.map((name) => ({ id: given[name] })) },
    audit: names.map((name) => ({
      action: 'patient.search',
      patient_id: given[name],
      subject_type: 'patient',
      subject_id: null,
      detail: { q },
    })),
    changes: [],
  });

const scenarios: Scenario<Given>[] = [
  {
    title: 'finds by a word of the name, in name order, one patient.search per patient with the text',
    given: aClinic,
    request: find({ q: 'searchling' }),
    expect: found('searchling', ['ada', 'bob', 'cleo']),
  },
  {
    title: 'records only the patients on the page returned, not every match',
    given: aClinic,
    request: find({ q: 'searchling', limit: '2' }),
    expect: found('searchling', ['ada', 'bob']),
  },
  {
    title: 'lists every patient without q, recording q as null',
    given: aClinic,
    request: find({ limit: '3' }),
    expect: found(null, ['other', 'ada', 'bob']),
  },
  {
    title: 'records nothing for a search that finds nobody',
    given: aClinic,
    request: find({ q: 'nobody' }),
    expect: () => ({ result: { items: [] }, audit: [], changes: [] }),
  },
  {
    title: 'refuses a limit over 1000 and a cursor it did not give (422)',
    given: aClinic,
    request: find({ limit: '1001', after: 'x' }),
    expect: () => ({ invalid: ['query.limit', 'query.after'] }),
  },
];

describeScenarios('FIND_PATIENTS', FIND_PATIENTS, scenarios);
