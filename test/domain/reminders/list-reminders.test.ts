import { afterEach, describe, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { BOOK_APPOINTMENT } from '../../../src/domain/appointments/book-appointment.js';
import { UPDATE_APPOINTMENT } from '../../../src/domain/appointments/update-appointment.js';
import { LIST_REMINDERS } from '../../../src/domain/reminders/list-reminders.js';
import { performUseCase, type Caller } from '../../../src/domain/use-case.js';
import { createTestPatient } from '../../helpers/builders.js';
import { setUpRemindingClinic } from '../../helpers/reminder-clinic.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * LIST_REMINDERS (GET /reminders, interface 1.3.0 "Channels and replies"), rule by rule: by when
 * they are due, of one clinic day, states, patient or appointment, a page at a time; one
 * `reminder.read` per patient shown. The wiring: test/server/routes/reminders.test.ts.
 */

/** A patient's appointment, and the one reminder a rule of a day gives it. */
interface Booked {
  patientId: string;
  appointmentId: string;
}

/** Ada's on 02.12 at 14:00, Bert's on 03.12 at 09:00 and Cleo's on 03.12 at 00:00 (Vienna): reminders due 01.12 14:00, 02.12 09:00, 02.12 00:00. */
interface Given {
  ada: Booked;
  bert: Booked;
  cleo: Booked;
  /** The cursor after the first page of two, where a scenario asks for it. */
  cursor?: string;
}

const person = (roles: Caller['roles']): Caller => ({
  source: 'cli',
  actor: { type: 'person', id: 'p-1', name: 'Anna', source: 'reception-pc', requestId: null },
  roles,
});

/** A `given`: a clinic in Vienna whose one rule is a day before, with the three bookings of Given, and what `before` does next. */
const givenBookings =
  (before: (db: Db, given: Given) => void = () => {}) =>
  (db: Db): Given => {
    setUpRemindingClinic(db, ['1d']);
    const book = (first_name: string, start_at: string, end_at: string): Booked => {
      const patientId = createTestPatient(db, { first_name }).id;
      const appointment = performUseCase(BOOK_APPOINTMENT, db, { body: { patient_id: patientId, start_at, end_at } }, DESK_USER);
      return { patientId, appointmentId: appointment.id };
    };
    const given: Given = {
      ada: book('Ada', '2026-12-02T14:00:00', '2026-12-02T14:30:00'),
      bert: book('Bert', '2026-12-03T09:00:00', '2026-12-03T09:30:00'),
      cleo: book('Cleo', '2026-12-03T00:00:00', '2026-12-03T00:30:00'),
    };
    before(db, given);
    return given;
  };

const query = (values: Record<string, unknown>) => () => ({ query: values });

/** The reminder of `booked` as the list shows it, due at `due_at`. */
const shown = (booked: Booked, due_at: string, state = 'scheduled') => ({
  patient_id: booked.patientId,
  appointment_id: booked.appointmentId,
  rule: '1d',
  due_at,
  state,
});
const read = (booked: Booked) => ({ action: 'reminder.read', patient_id: booked.patientId, subject_type: 'reminder', subject_id: null });

const ADA_DUE = '2026-12-01T13:00:00.000Z';
const CLEO_DUE = '2026-12-01T23:00:00.000Z';
const BERT_DUE = '2026-12-02T08:00:00.000Z';

const scenarios: Scenario<Given>[] = [
  {
    title: 'lists every reminder by when it is due, recording one reminder.read per patient shown',
    given: givenBookings(),
    request: query({}),
    expect: (g) => ({
      result: { items: [shown(g.ada, ADA_DUE), shown(g.cleo, CLEO_DUE), shown(g.bert, BERT_DUE)], next: null },
      audit: [read(g.ada), read(g.cleo), read(g.bert)],
      changes: [],
    }),
  },
  {
    title: "lists a clinic day's from its local midnight, which is the evening before in UTC",
    given: givenBookings(),
    request: query({ date: '2026-12-02' }),
    expect: (g) => ({
      result: { items: [shown(g.cleo, CLEO_DUE), shown(g.bert, BERT_DUE)], next: null },
      audit: [read(g.cleo), read(g.bert)],
      changes: [],
    }),
  },
  {
    title: 'lists those of the states named, and records nothing when it shows nothing',
    given: givenBookings((db, g) =>
      performUseCase(UPDATE_APPOINTMENT, db, { path: { appointment_id: g.bert.appointmentId }, body: { status: 'cancelled' } }, DESK_USER),
    ),
    request: query({ state: 'withdrawn,sent' }),
    expect: (g) => ({
      result: { items: [{ ...shown(g.bert, BERT_DUE, 'withdrawn'), reason: 'cancelled' }], next: null },
      audit: [read(g.bert)],
      changes: [],
    }),
  },
  {
    title: 'records nothing for a list that shows no reminder',
    given: givenBookings(),
    request: query({ state: 'sent' }),
    expect: () => ({ result: { items: [], next: null }, audit: [], changes: [] }),
  },
  {
    title: "lists one patient's",
    given: givenBookings(),
    request: (g) => ({ query: { patient_id: g.bert.patientId } }),
    expect: (g) => ({ result: { items: [shown(g.bert, BERT_DUE)] }, audit: [read(g.bert)], changes: [] }),
  },
  {
    title: "lists one appointment's",
    given: givenBookings(),
    request: (g) => ({ query: { appointment_id: g.cleo.appointmentId } }),
    expect: (g) => ({ result: { items: [shown(g.cleo, CLEO_DUE)] }, audit: [read(g.cleo)], changes: [] }),
  },
  {
    title: 'gives a page of `limit` and the cursor of the next',
    given: givenBookings(),
    request: query({ limit: 2 }),
    expect: (g) => ({
      result: { items: [shown(g.ada, ADA_DUE), shown(g.cleo, CLEO_DUE)], next: /^[A-Za-z0-9_-]+$/ },
      audit: [read(g.ada), read(g.cleo)],
      changes: [],
    }),
  },
  {
    title: 'gives the page after a cursor, the last without one',
    given: givenBookings((db, g) => {
      // Read as a front end reads for itself (no actor): the first page records nothing.
      g.cursor = performUseCase(LIST_REMINDERS, db, { query: { limit: 2 } }, { source: 'api', actor: null }).next ?? undefined;
    }),
    request: (g) => ({ query: { limit: 2, after: g.cursor } }),
    expect: (g) => ({ result: { items: [shown(g.bert, BERT_DUE)], next: null }, audit: [read(g.bert)], changes: [] }),
  },
  {
    title: 'refuses a state it does not know, a day that does not exist, a cursor it did not give and a limit past 200, all at once',
    given: givenBookings(),
    request: query({ state: 'sent,lost', date: '2026-02-30', after: 'not-a-cursor', limit: 201 }),
    expect: () => ({ invalid: ['query.date', 'query.limit', 'query.state.1', 'query.after'] }),
  },
  {
    title: 'refuses a person of billing alone: reminders are for admin, reception, practitioner, scheduler (403 ROLE_FORBIDDEN)',
    given: givenBookings(),
    request: query({}),
    caller: person(['billing']),
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
  {
    title: 'lists them to a scheduler, who never sees money',
    given: givenBookings(),
    request: query({ date: '2026-12-01' }),
    caller: person(['scheduler']),
    expect: (g) => ({ result: { items: [shown(g.ada, ADA_DUE)], next: null }, audit: [read(g.ada)], changes: [] }),
  },
];

describe('LIST_REMINDERS', () => {
  afterEach(() => mock.timers.reset());
  describeScenarios('the reminders by when they are due (LIST_REMINDERS)', LIST_REMINDERS, scenarios);
});
