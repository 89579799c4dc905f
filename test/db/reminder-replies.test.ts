// Replies to SMS reminders (clinic-api-1.3.md, "Channels and replies"): each gateway message once,
// the appointment a reply concerns, `reminders replies` newest first, and the purge after 90 days.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { Db } from '../../src/db/open-database.js';
import {
  appointmentConcerned,
  insertReply,
  listReplies,
  newestReplyAt,
  purgeReplies,
  replyHandled,
  type ReplyRow,
} from '../../src/db/reminder-replies.js';
import { sqliteErrorCode } from '../../src/db/sqlite-result-codes.js';
import { bookAppointment } from '../../src/domain/appointments/book-appointment.js';
import { UPDATE_APPOINTMENT } from '../../src/domain/appointments/update-appointment.js';
import { SET_CLINIC_NAME } from '../../src/domain/desk/clinic-settings.js';
import { SET_REMINDERS } from '../../src/domain/reminders/set-reminders.js';
import { performUseCase } from '../../src/domain/use-case.js';
import { createTestPatient } from '../helpers/builders.js';
import { useTestDatabase } from '../helpers/fixtures.js';
import { DESK_USER } from '../helpers/use-case-scenarios.js';

const NUMBER = '+436601234567';

/** A reply received at `receivedAt` with `outcome`, about nothing; override any field. */
function reply(receivedAt: string, outcome: ReplyRow['outcome'], overrides: Partial<ReplyRow> = {}): ReplyRow {
  return {
    id: randomUUID(),
    provider_id: `SM-${receivedAt}-${outcome}`,
    received_at: receivedAt,
    from_number: NUMBER,
    text: outcome === 'confirm' ? 'C' : 'maybe',
    outcome,
    appointment_id: null,
    patient_id: null,
    ...overrides,
  };
}

/** Reminders one day before each appointment, at any hour (no quiet hours). */
function remindOneDayBefore(db: Db): void {
  performUseCase(SET_CLINIC_NAME, db, { body: { name: 'Praxis' } }, DESK_USER);
  performUseCase(SET_REMINDERS, db, { body: { before: ['1d'], quiet_hours: 'off' } }, DESK_USER);
}

describe('reminder replies (db)', () => {
  const data = useTestDatabase({ each: true });
  beforeEach(() => mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-11-30T08:00:00.000Z') }));
  afterEach(() => mock.timers.reset());

  it('knows each gateway message it handled, refuses it twice, and when the newest reply arrived', () => {
    assert.equal(newestReplyAt(data.db), null);
    insertReply(data.db, reply('2026-11-30T09:00:00.000Z', 'confirm', { provider_id: 'SM1' }));
    insertReply(data.db, reply('2026-11-30T08:30:00.000Z', 'unknown', { provider_id: 'SM2' }));
    assert.equal(newestReplyAt(data.db), '2026-11-30T09:00:00.000Z', 'the newest by arrival, not the last stored');
    assert.deepEqual(
      ['SM1', 'SM2', 'SM3'].map((id) => replyHandled(data.db, id)),
      [true, true, false],
    );
    assert.throws(
      () => insertReply(data.db, reply('2026-11-30T09:05:00.000Z', 'confirm', { provider_id: 'SM1' })),
      (error) => sqliteErrorCode(error) === 'SQLITE_CONSTRAINT_UNIQUE',
    );
  });

  it('lists the replies since an instant, it included, newest first: those the desk must read, or all', () => {
    const patient = createTestPatient(data.db);
    const appointment = bookAppointment(
      data.db,
      { patient_id: patient.id, start_at: '2026-12-03T09:00:00Z', end_at: '2026-12-03T09:30:00Z' },
      'cli',
    );
    const tooOld = reply('2026-11-01T07:59:59.999Z', 'unknown');
    const first = reply('2026-11-01T08:00:00.000Z', 'unmatched');
    const confirmed = reply('2026-11-29T10:00:00.000Z', 'confirm', {
      appointment_id: appointment.id,
      patient_id: patient.id,
      id: '00000000-0000-4000-8000-000000000000',
    });
    const unknown = reply('2026-11-29T10:00:00.000Z', 'unknown', { patient_id: patient.id, id: 'ffffffff-0000-4000-8000-000000000000' });
    for (const row of [tooOld, first, confirmed, unknown]) insertReply(data.db, row);
    const since = '2026-11-01T08:00:00.000Z';
    assert.deepEqual(
      listReplies(data.db, since, false).map((row) => row.id),
      [unknown.id, first.id],
    );
    // Two replies of the same instant: the larger id first, so pages of the list never swap them.
    const all = listReplies(data.db, since, true);
    assert.deepEqual(
      all.map((row) => row.id),
      [unknown.id, confirmed.id, first.id],
    );
    const shown = all.find((row) => row.id === confirmed.id);
    assert.deepEqual([shown?.appointment_number, shown?.patient_number], [appointment.appointment_number, patient.patient_number]);
    assert.deepEqual([all.at(-1)?.appointment_number, all.at(-1)?.patient_number], [null, null]);
  });

  it('forgets the replies that arrived before an instant, keeping those that arrived at it, and says how many went', () => {
    for (const at of ['2026-09-01T07:59:59.998Z', '2026-09-01T07:59:59.999Z', '2026-09-01T08:00:00.000Z']) {
      insertReply(data.db, reply(at, 'unknown'));
    }
    assert.equal(purgeReplies(data.db, '2026-09-01T08:00:00.000Z'), 2);
    assert.deepEqual(
      listReplies(data.db, '2000-01-01T00:00:00.000Z', true).map((row) => row.received_at),
      ['2026-09-01T08:00:00.000Z'],
    );
    assert.equal(purgeReplies(data.db, '2026-09-01T08:00:00.000Z'), 0);
  });

  it('finds the nearest appointment to come, booked or of a free status, with an SMS reminder sent to the number', () => {
    remindOneDayBefore(data.db);
    const patient = createTestPatient(data.db);
    const book = (start: string, status?: string) =>
      bookAppointment(data.db, { patient_id: patient.id, start_at: start, end_at: start.replace(':00:00Z', ':30:00Z'), status }, 'cli');
    const cancelled = book('2026-12-02T08:00:00Z');
    const freeStatus = book('2026-12-03T08:00:00Z', 'confirmed by phone');
    const later = book('2026-12-04T08:00:00Z');
    const emailed = book('2026-12-01T09:00:00Z');
    // The reminders went out: by SMS to the number, but one by e-mail.
    data.db.exec(`UPDATE reminders SET state = 'sent', channel = 'sms', recipient = '${NUMBER}'`);
    data.db.prepare(`UPDATE reminders SET channel = 'email', recipient = 'ada@example.org' WHERE appointment_id = ?`).run(emailed.id);
    performUseCase(UPDATE_APPOINTMENT, data.db, { path: { appointment_id: cancelled.id }, body: { status: 'cancelled' } }, DESK_USER);

    assert.equal(appointmentConcerned(data.db, NUMBER, '2026-11-30T08:00:00.000Z')?.id, freeStatus.id);
    assert.equal(appointmentConcerned(data.db, NUMBER, '2026-12-03T07:59:59.999Z')?.id, freeStatus.id);
    assert.equal(appointmentConcerned(data.db, NUMBER, '2026-12-03T08:00:00.000Z')?.id, later.id, 'not one that has begun');
    assert.equal(appointmentConcerned(data.db, NUMBER, '2026-12-04T08:00:00.000Z'), undefined);
    assert.equal(appointmentConcerned(data.db, '+436609999999', '2026-11-30T08:00:00.000Z'), undefined, 'no reminder went to that number');
    assert.equal(appointmentConcerned(data.db, NUMBER, '2026-11-30T08:00:00.000Z')?.patient_number, patient.patient_number);
  });

  it('concerns no appointment whose reminder was only planned, not yet sent', () => {
    remindOneDayBefore(data.db);
    const patient = createTestPatient(data.db);
    bookAppointment(data.db, { patient_id: patient.id, start_at: '2026-12-02T08:00:00Z', end_at: '2026-12-02T08:30:00Z' }, 'cli');
    data.db.exec(`UPDATE reminders SET channel = 'sms', recipient = '${NUMBER}'`);
    assert.equal(appointmentConcerned(data.db, NUMBER, '2026-11-30T08:00:00.000Z'), undefined);
  });
});
