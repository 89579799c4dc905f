import { afterEach, describe, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { BOOK_APPOINTMENT } from '../../../src/domain/appointments/book-appointment.js';
import { REMINDERS_AT_DESK } from '../../../src/domain/reminders/reminders-at-desk.js';
import { ERASE_PATIENT } from '../../../src/domain/retention/erase-patient.js';
import { setClinicRetention } from '../../../src/domain/retention/retention-rules.js';
import { performUseCase, type Caller } from '../../../src/domain/use-case.js';
import { createTestPatient } from '../../helpers/builders.js';
import { setUpRemindingClinic } from '../../helpers/reminder-clinic.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * REMINDERS_AT_DESK (`clinic reminders list [--date D] [--state S] [--patient REF]`, interface
 * 1.3.0 "Channels and replies"), rule by rule: every match, read page by page through the list
 * GET /reminders serves, with a day and a patient as the desk writes them. The desk's printout:
 * test/cli/commands/reminders.test.ts.
 */

interface Given {
  /** P-000001, with `visits` appointments of five reminders each from 07.12.2026, one a day at 10:00 Vienna. */
  first: string;
  /** P-000002, with one appointment on 03.12.2026 at 10:00 Vienna. */
  second: string;
}

const RULES = ['1d', '2d', '3d', '4d', '5d'];
const person = (roles: Caller['roles']): Caller => ({
  source: 'cli',
  actor: { type: 'person', id: 'p-1', name: 'Anna', source: 'reception-pc', requestId: null },
  roles,
});

/** A `given`: a clinic in Vienna on 28.11.2026 with the rules RULES, and the patients of Given; then `before`. */
const givenPatients =
  (visits: number, before: (db: Db, given: Given) => void = () => {}) =>
  (db: Db): Given => {
    setUpRemindingClinic(db, RULES);
    const book = (patient_id: string, day: Date) => {
      const date = day.toISOString().slice(0, 10);
      performUseCase(BOOK_APPOINTMENT, db, { body: { patient_id, start_at: `${date}T10:00:00`, end_at: `${date}T10:30:00` } }, DESK_USER);
    };
    const given = { first: createTestPatient(db, { first_name: 'Ada' }).id, second: createTestPatient(db, { first_name: 'Bert' }).id };
    for (let i = 0; i < visits; i++) book(given.first, new Date(Date.UTC(2026, 11, 7 + i)));
    book(given.second, new Date(Date.UTC(2026, 11, 3)));
    before(db, given);
    return given;
  };

const list = (query: Record<string, unknown>) => () => ({ query });
const read = (...patientIds: string[]) => patientIds.map((patient_id) => ({ action: 'reminder.read', patient_id }));

const scenarios: Scenario<Given>[] = [
  {
    title: 'lists every match, past the 200 of one page, by when each is due',
    given: givenPatients(40),
    request: list({}),
    expect: (g) => ({
      // 41 appointments of five reminders: the second patient's, due from 28.11, come first.
      result: {
        length: 205,
        0: { patient_id: g.second, due_at: '2026-11-28T09:00:00.000Z', rule: '5d', state: 'scheduled' },
        204: { patient_id: g.first, due_at: '2027-01-14T09:00:00.000Z', rule: '1d' },
      },
      audit: read(g.second, g.first),
      changes: [],
    }),
  },
  {
    title: "lists one patient's, named by the number in any case and without its zeros",
    given: givenPatients(1),
    request: list({ patient: 'p-2' }),
    expect: (g) => ({
      result: { length: 5, 0: { patient_id: g.second }, 4: { patient_id: g.second } },
      audit: read(g.second),
      changes: [],
    }),
  },
  {
    title: 'lists a clinic day written as the desk writes it',
    given: givenPatients(1),
    request: list({ date: '01.12.2026', state: 'scheduled' }),
    expect: (g) => ({
      result: { length: 1, 0: { patient_id: g.second, rule: '2d', due_at: '2026-12-01T09:00:00.000Z' } },
      audit: read(g.second),
      changes: [],
    }),
  },
  {
    title: 'lists only the states named, recording nothing when none matches',
    given: givenPatients(1),
    request: list({ date: '01.12.2026', state: 'sent,failed' }),
    expect: () => ({ result: { length: 0 }, audit: [], changes: [] }),
  },
  {
    title: 'refuses a number no patient has (404 PATIENT_NOT_FOUND)',
    given: givenPatients(1),
    request: list({ patient: 'P-99' }),
    expect: () => ({ refused: 'PATIENT_NOT_FOUND', status: 404, message: /P-99/ }),
  },
  {
    title: 'refuses a state it does not know',
    given: givenPatients(1),
    request: list({ state: 'scheduled,later' }),
    expect: () => ({ invalid: ['query.state.1'] }),
  },
  {
    title: 'refuses a person at reception an erased patient named by number (403 PATIENT_RESTRICTED)',
    given: givenPatients(1, (db, g) => {
      const visit = { patient_id: g.second, start_at: '2026-03-10T09:00:00Z', end_at: '2026-03-10T10:00:00Z', status: 'completed' };
      performUseCase(BOOK_APPOINTMENT, db, { body: visit }, DESK_USER);
      setClinicRetention(db, 'AT', undefined);
      performUseCase(ERASE_PATIENT, db, { path: { patient_id: g.second }, body: { dry_run: false } }, DESK_USER);
    }),
    request: list({ patient: 'P-2' }),
    caller: person(['reception']),
    expect: () => ({ refused: 'PATIENT_RESTRICTED', status: 403 }),
  },
  {
    title: 'refuses a person of billing alone (403 ROLE_FORBIDDEN)',
    given: givenPatients(1),
    request: list({}),
    caller: person(['billing']),
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describe('REMINDERS_AT_DESK', () => {
  afterEach(() => mock.timers.reset());
  describeScenarios('every reminder that matches, at the desk (REMINDERS_AT_DESK)', REMINDERS_AT_DESK, scenarios);
});
