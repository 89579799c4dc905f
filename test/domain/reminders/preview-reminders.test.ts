import assert from 'node:assert/strict';
import { afterEach, describe, mock } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { BOOK_APPOINTMENT } from '../../../src/domain/appointments/book-appointment.js';
import { UPDATE_APPOINTMENT } from '../../../src/domain/appointments/update-appointment.js';
import { PREVIEW_REMINDERS } from '../../../src/domain/reminders/preview-reminders.js';
import { recordServerChannels } from '../../../src/domain/reminders/reminder-channels.js';
import { writeSmsGateway } from '../../../src/domain/reminders/sms-gateway.js';
import { performUseCase, type Caller } from '../../../src/domain/use-case.js';
import { createTestPatient, type PatientBody } from '../../helpers/builders.js';
import { setUpRemindingClinic } from '../../helpers/reminder-clinic.js';
import { describeScenarios, DESK_USER, type Scenario } from '../../helpers/use-case-scenarios.js';

/**
 * PREVIEW_REMINDERS (`clinic reminders preview --date D`, interface 1.3.0 "Channels and
 * replies"), rule by rule: each reminder due that clinic day, a scheduled one as it would go out
 * now by the channels of the last `clinic serve`, a final one as it is; nothing changed. The
 * desk's printout: test/cli/commands/reminders.test.ts.
 */

interface Given {
  patientId: string;
  appointmentId: string;
}

/** A `given`: on 01.12.2026 at 09:00 in Vienna, one rule a day before, and Ada's appointment on 02.12 at 14:00 (reminder due 01.12 14:00). */
const givenAda =
  (patient: PatientBody = {}, before: (db: Db, given: Given) => void = () => {}) =>
  (db: Db): Given => {
    setUpRemindingClinic(db, ['1d']);
    const patientId = createTestPatient(db, { first_name: 'Ada', ...patient }).id;
    const body = { patient_id: patientId, start_at: '2026-12-02T14:00:00', end_at: '2026-12-02T14:30:00' };
    const given = { patientId, appointmentId: performUseCase(BOOK_APPOINTMENT, db, { body }, DESK_USER).id };
    before(db, given);
    mock.timers.setTime(Date.parse('2026-12-01T08:00:00Z'));
    return given;
  };

const preview = (date?: string) => () => ({ query: date === undefined ? {} : { date } });
const read = (given: Given) => [{ action: 'reminder.read', patient_id: given.patientId }];
const unchanged = (db: Db) =>
  assert.deepEqual(db.prepare('SELECT state, channel, recipient, text, attempts FROM reminders').all(), [
    { state: 'scheduled', channel: null, recipient: null, text: null, attempts: 0 },
  ]);

/** A day's preview of Ada's one reminder, `would` as named. */
const previewed = (given: Given, reminder: Record<string, unknown>, emailHost: string | null = null) => ({
  result: {
    date: '2026-12-01',
    email_host: emailHost,
    reminders: [{ appointment_id: given.appointmentId, due_at: '2026-12-01T13:00:00.000Z', ...reminder }],
  },
  audit: read(given),
  changes: [],
  then: unchanged,
});

const scenarios: Scenario<Given>[] = [
  {
    title: 'previews today by default: skipped no_channel while the last serve sent no e-mail and there is no gateway',
    given: givenAda(),
    request: preview(),
    expect: (g) => previewed(g, { state: 'scheduled', channel: null, would: 'skip', would_reason: 'no_channel' }),
  },
  {
    title: 'renders one that would go by e-mail now, through the SMTP server of the last serve, changing nothing',
    given: givenAda({}, (db) => recordServerChannels(db, 'mail.praxis.at:587')),
    request: preview('today'),
    expect: (g) =>
      previewed(
        g,
        {
          would: 'send',
          would_reason: null,
          channel: 'email',
          to: 'ada@example.org',
          subject: /02\.12\.2026 .*14:00.*Ordination Dr\. Huber/,
          text: /Ada/,
        },
        'mail.praxis.at:587',
      ),
  },
  {
    title: 'renders one that would go by SMS through the gateway to the mobile in E.164',
    given: givenAda({}, (db) =>
      writeSmsGateway(db, { preset: 'twilio', account: 'AC1', token: 'secret', from: '+43720123456', baseUrl: 'https://api.twilio.com' }),
    ),
    request: preview('2026-12-01'),
    expect: (g) => previewed(g, { would: 'send', channel: 'sms', to: '+436601234567', subject: null, text: /02\.12\.2026/ }),
  },
  {
    title: 'says a patient who opted out would be skipped',
    given: givenAda({ reminders_opt_out: true }, (db) => recordServerChannels(db, 'mail.praxis.at:587')),
    request: preview('01.12.2026'),
    expect: (g) => previewed(g, { would: 'skip', would_reason: 'opted_out', channel: null, text: null }, 'mail.praxis.at:587'),
  },
  {
    title: 'shows a reminder already final as it is, with nothing it would do',
    given: givenAda({}, (db, g) =>
      performUseCase(UPDATE_APPOINTMENT, db, { path: { appointment_id: g.appointmentId }, body: { status: 'cancelled' } }, DESK_USER),
    ),
    request: preview(),
    expect: (g) => ({
      result: {
        reminders: [{ appointment_id: g.appointmentId, state: 'withdrawn', reason: 'cancelled', would: null, would_reason: null }],
      },
      audit: read(g),
      changes: [],
    }),
  },
  {
    title: 'previews a day as the desk writes it, and records nothing for a day without reminders',
    given: givenAda(),
    request: preview('tomorrow'),
    expect: () => ({ result: { date: '2026-12-02', reminders: [] }, audit: [], changes: [] }),
  },
  {
    title: 'refuses a day it cannot read (422 date_parsing at query.date)',
    given: givenAda(),
    request: preview('someday'),
    expect: () => ({ invalid: ['query.date'], types: ['date_parsing'] }),
  },
  {
    title: 'refuses a person of billing alone (403 ROLE_FORBIDDEN)',
    given: givenAda(),
    request: preview(),
    caller: {
      source: 'cli',
      actor: { type: 'person', id: 'p-1', name: 'Bea', source: 'pc', requestId: null },
      roles: ['billing'],
    } satisfies Caller,
    expect: () => ({ refused: 'ROLE_FORBIDDEN', status: 403 }),
  },
];

describe('PREVIEW_REMINDERS', () => {
  afterEach(() => mock.timers.reset());
  describeScenarios("a day's reminders as they would go out now (PREVIEW_REMINDERS)", PREVIEW_REMINDERS, scenarios);
});
