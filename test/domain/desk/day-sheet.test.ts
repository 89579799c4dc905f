// The desk's day sheet, `clinic appointment list [--date D] [--doctor NAME|ID]` (clinic-api-1.1.md, "Staff references on the command line": "every Appointment of that clinic day ..., as `GET /appointments` orders them, not cut at a page").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../../src/db/open-database.js';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { addDoctor } from '../../../src/domain/catalog.js';
import { DAY_SHEET, readDaySheet } from '../../../src/domain/desk/day-sheet.js';
import { setClinicTimeZone } from '../../../src/domain/settings.js';
import { performUseCase } from '../../../src/domain/use-case.js';
import { AppError, ValidationError } from '../../../src/errors.js';
import { MAX_PAGE_LIMIT } from '../../../src/fields/page-fields.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';
import { DESK_USER } from '../../helpers/use-case-scenarios.js';
import { thrownBy } from '../../helpers/thrown.js';

/** In Vienna, 29 March 2026 has 23 hours: the clocks go from 02:00 to 03:00. */
const SUMMER_TIME_DAY = '2026-03-29';

/** A booking in clinic time (Vienna), without an offset, as the desk types it; its title names it. */
function book(db: Db, title: string, start: string, end: string, extra: Record<string, unknown> = {}): void {
  const patient = createTestPatient(db, { first_name: title });
  bookAppointment(db, { patient_id: patient.id, start_at: start, end_at: end, title, ...extra }, 'cli');
}

const titles = (sheet: { appointments: { title: string | null }[] }) => sheet.appointments.map((appointment) => appointment.title);

describe('the day sheet', () => {
  const data = useTestDatabase({ each: true });

  it('lists every appointment overlapping the clinic day in time order, then by number, on a day of 23 hours', () => {
    setClinicTimeZone(data.db, 'Europe/Vienna');
    book(data.db, 'ends as the day begins', '2026-03-28T23:00', '2026-03-29T00:00');
    book(data.db, 'ten', '2026-03-29T10:00', '2026-03-29T10:30');
    book(data.db, 'nine', '2026-03-29T09:00', '2026-03-29T09:30');
    book(data.db, 'ten, booked later', '2026-03-29T10:00', '2026-03-29T10:15');
    book(data.db, 'overnight', '2026-03-28T23:30', '2026-03-29T00:30');
    book(data.db, 'half past eleven at night', '2026-03-29T23:30', '2026-03-29T23:59');
    book(data.db, 'next day', '2026-03-30T00:00', '2026-03-30T00:30');
    const sheet = readDaySheet(data.db, { date: '29.03.2026' });
    assert.equal(sheet.date, SUMMER_TIME_DAY);
    assert.equal(sheet.context.timeZone, 'Europe/Vienna');
    assert.deepEqual(titles(sheet), ['overnight', 'nine', 'ten', 'ten, booked later', 'half past eleven at night']);
    assert.equal(sheet.doctor, null);
  });

  it(`is the whole day, never cut at a page: ${MAX_PAGE_LIMIT + 1} appointments`, () => {
    setClinicTimeZone(data.db, 'UTC');
    const patient = createTestPatient(data.db);
    const start = Date.parse('2026-12-01T00:00:00.000Z');
    for (let n = MAX_PAGE_LIMIT; n >= 0; n--) {
      const at = (minutes: number) => new Date(start + (n * 7 + minutes) * 60_000).toISOString();
      bookAppointment(data.db, { patient_id: patient.id, start_at: at(0), end_at: at(5) }, 'cli');
    }
    const sheet = readDaySheet(data.db, { date: '2026-12-01' });
    assert.equal(sheet.appointments.length, MAX_PAGE_LIMIT + 1);
    const starts = sheet.appointments.map((appointment) => appointment.start_at);
    assert.deepEqual(starts, [...starts].sort());
    assert.equal(new Set(sheet.appointments.map((appointment) => appointment.id)).size, MAX_PAGE_LIMIT + 1);
  });

  it("lists one doctor's appointments, the doctor named in any case, and refuses a name that names none", () => {
    setClinicTimeZone(data.db, 'Europe/Vienna');
    const berger = addDoctor(data.db, { name: 'Dr. Anna Berger', color: '#336699' });
    const huber = addDoctor(data.db, { name: 'Dr. Karl Huber', color: '#993366' });
    book(data.db, 'Berger at nine', '2026-12-01T09:00', '2026-12-01T09:30', { resource_id: berger.id });
    book(data.db, 'Huber at ten', '2026-12-01T10:00', '2026-12-01T10:30', { resource_id: huber.id });
    book(data.db, 'nobody at eleven', '2026-12-01T11:00', '2026-12-01T11:30');
    const bergers = readDaySheet(data.db, { date: '2026-12-01', doctor: 'BERGER' });
    assert.deepEqual(titles(bergers), ['Berger at nine']);
    assert.equal(bergers.doctor?.id, berger.id);
    assert.deepEqual(titles(readDaySheet(data.db, { date: '2026-12-01', doctor: huber.id })), ['Huber at ten']);
    assert.deepEqual(titles(readDaySheet(data.db, { date: '2026-12-01' })), ['Berger at nine', 'Huber at ten', 'nobody at eleven']);
    const refusal = thrownBy(() => readDaySheet(data.db, { date: '2026-12-01', doctor: 'Schmidt' }));
    assert.ok(refusal instanceof AppError, `refused with an AppError, not ${String(refusal)}`);
    assert.deepEqual([refusal.status, refusal.code], [422, 'DOCTOR_NOT_FOUND']);
  });

  it("is today's in the clinic's zone by default, and empty on a day without appointments", () => {
    setClinicTimeZone(data.db, 'Europe/Vienna');
    book(data.db, 'just after midnight', '2026-12-01T00:15', '2026-12-01T00:45');
    // 23:30 UTC on 30 November is already 1 December in Vienna.
    const today = readDaySheet(data.db, {}, Date.parse('2026-11-30T23:30:00.000Z'));
    assert.equal(today.date, '2026-12-01');
    assert.deepEqual(titles(today), ['just after midnight']);
    const empty = readDaySheet(data.db, { date: 'tomorrow' }, Date.parse('2026-11-30T23:30:00.000Z'));
    assert.deepEqual([empty.date, empty.appointments], ['2026-12-02', []]);
  });

  it('refuses a day that is not on the calendar at `date`', () => {
    const refusal = thrownBy(() => readDaySheet(data.db, { date: '30.02.2026' }));
    assert.ok(refusal instanceof ValidationError, `refused as invalid, not ${String(refusal)}`);
    assert.deepEqual(
      refusal.issues.map((issue) => [issue.loc, issue.type]),
      [[['query', 'date'], 'date_parsing']],
    );
  });

  it('records one appointment.read per patient on the sheet, as GET /appointments records its pages', () => {
    setClinicTimeZone(data.db, 'UTC');
    const ada = createTestPatient(data.db, { first_name: 'Ada' });
    const bob = createTestPatient(data.db, { first_name: 'Bob' });
    for (const [patient, hour] of [
      [ada, '09'],
      [bob, '10'],
      [ada, '11'],
    ] as const)
      bookAppointment(data.db, { patient_id: patient.id, start_at: `2026-12-01T${hour}:00Z`, end_at: `2026-12-01T${hour}:30Z` }, 'cli');
    const before = (data.db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM audit_trail').get() as { seq: number }).seq;
    const sheet = performUseCase(DAY_SHEET, data.db, { query: { date: '2026-12-01' } }, DESK_USER);
    assert.equal(sheet.appointments.length, 3);
    const recorded = data.db.prepare('SELECT action, patient_id, subject_id FROM audit_events WHERE seq > ? ORDER BY seq').all(before);
    assert.deepEqual(recorded, [
      { action: 'appointment.read', patient_id: ada.id, subject_id: null },
      { action: 'appointment.read', patient_id: bob.id, subject_id: null },
    ]);
  });
});
